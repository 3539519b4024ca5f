"""``hudi-fw streamer``: config-driven ingestion from a source plugin into a table, exactly once.

Internal package: not a stable API; import from the public modules (docs/api.md): ``run_streamer``,
``StreamerReport`` and ``StopSignal`` are exported by ``hudi_framework``.
"""

from hudi_framework.streamer.job import RoundReport, StopSignal, StreamerObserver, StreamerReport, run_streamer

__all__ = ["RoundReport", "StopSignal", "StreamerObserver", "StreamerReport", "run_streamer"]
