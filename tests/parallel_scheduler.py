"""xdist's group scheduling, with the JVM groups handed out first (see :mod:`tests.parallel`)."""

from __future__ import annotations

from collections import OrderedDict

from xdist.scheduler import LoadGroupScheduling

from tests.parallel import CLUSTER_GROUP, KAFKA_GROUP, ORACLE_GROUP, SPARK_GROUP


class JvmFirstScheduling(LoadGroupScheduling):
    """Group scheduling whose queue starts with the Spark group, then the cluster, oracle and Kafka
    groups (the longest units, so the first workers take one each), then the rest largest first."""

    def schedule(self) -> None:
        if self.collection is None and self.collection_is_completed and self._check_nodes_have_same_collection():
            # The base class fills the queue in collection order without reordering; keys already in
            # it keep their place, so laying the order out first decides it.
            collection = list(next(iter(self.registered_collections.values())))
            units: dict[str, dict[str, bool]] = {}
            for nodeid in collection:
                units.setdefault(self._split_scope(nodeid), {})[nodeid] = False
            first = [g for g in (SPARK_GROUP, CLUSTER_GROUP, ORACLE_GROUP, KAFKA_GROUP) if g in units]
            rest = sorted((s for s in units if s not in first), key=lambda s: -len(units[s]))
            self.workqueue = OrderedDict((s, units[s]) for s in [*first, *rest])
            self.config.option.loadscopereorder = False
        super().schedule()
