"""The randomized fault campaign: kill -9 at random storage calls, and random S3 faults.

Every trial starts from a copy of a scenario's template table (the *before* state), runs one
operation in a forked child process (a write, a compaction, a clean, a rollback) while a test-only
hook numbers the storage calls the child makes, and either SIGKILLs the child at the N-th call (N
drawn from a seeded RNG over the calls a dry run of the same operation made) or, on S3, fails each
botocore call with a seeded probability (an error before S3 applies it, an error after, a lost
response). Then the next writer recovers, and the trial checks:

* our reader and hudi-rs return the same rows, after the fault and after the recovery;
* the rows after the fault are the *before* or the *after* state (the dry run's) exactly, as the
  operation's outcome allows; the recovery adds exactly its own row to them;
* no instant is pending after the recovery and no stray object is left
  (:mod:`tests.faults.campaign.inventory` defines "stray").

Modules: :mod:`.scenarios` (tables and operations), :mod:`.points` (the in-child hook),
:mod:`.worker` (what a child runs), :mod:`.runner` (starting children), :mod:`.stores` (local disk
and moto S3), :mod:`.inventory` (strays), :mod:`.trials` (one trial and its verdict),
:mod:`.report` (results, failure classes, the terminal summary).
"""
