"""Writer schemas of Hudi's timeline Avro records (data files, no code).

Each ``<RecordName>.avsc`` holds the schema text exactly as Java embeds it in the ``avro.schema``
header of its Avro container files (namespace ``org.apache.hudi.avro.model``), so files we write
carry the same header Java writes.

Provenance:

* Copied byte for byte from the headers of the Java-written fixture tables (Hudi 1.x, v8/v9):
  ``HoodieCommitMetadata``, ``HoodieReplaceCommitMetadata``, ``HoodieRequestedReplaceMetadata``,
  ``HoodieCompactionPlan``, ``HoodieRollbackPlan``, ``HoodieRollbackMetadata``, ``HoodieIndexPlan``,
  ``HoodieIndexCommitMetadata``; ``HoodieArchivedMetaEntry`` from the SCHEMA header of the
  archive log blocks Apache Hudi 1.2.0 writes for a table version 6.
* Derived from ``hudi-common/src/main/avro/*.avsc`` by replaying Java's ``Schema.toString()`` with
  the ``avro.java.string`` properties the Avro Maven plugin adds (the replay reproduces the fixture
  schemas above exactly), but not seen in any Java-written file: ``HoodieCleanerPlan``,
  ``HoodieCleanMetadata``, ``HoodieSavepointMetadata``, ``HoodieRestorePlan``,
  ``HoodieRestoreMetadata``. The source revision of these may trail the newest Hudi release.

Internal package: not a stable API; import from the public modules (docs/api.md).
"""
