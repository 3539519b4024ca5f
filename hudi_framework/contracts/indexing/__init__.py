"""The index toolkit: what record index plugins build on.

Per-file steps (:mod:`.file_lookup`: open a base file, read its record keys, build location rows),
the key footer Apache Hudi writes in every base file (:mod:`.footer`, with its bloom filter in
:mod:`.bloom_filter`, :mod:`.bloom_text` and :mod:`.murmur`), Java-ordered key arrays
(:mod:`.key_arrays`), lookup planning (:mod:`.planning`) and the options every shipped index takes
(:mod:`.options`). Import the submodules; this package re-exports nothing, so that the index
contract (:mod:`hudi_framework.contracts.index`) can use the bloom filter sizing without loading the
parts that use the contract.
"""

__all__ = []
