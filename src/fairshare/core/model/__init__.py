"""What the engine is made of: the records of the cluster's state and the only module that
writes them (:mod:`.state`, with the change log the caches drain), the queue tree and its
settings, the policies' comparators, the AM-share rule, YARN's iteration orders, the events, and the
:class:`~fairshare.core.model.scheduler.Scheduler` every step works through. Imports nothing
else from ``fairshare.core``."""
