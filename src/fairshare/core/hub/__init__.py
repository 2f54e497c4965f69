"""What every step works through: the read-only :class:`~.context.Context` (configuration,
queue tree and their derived answers), the :class:`~.scheduler.Scheduler` that adds the state,
the clock and the event sink to it, and the state's only writer (:mod:`.state`)."""
