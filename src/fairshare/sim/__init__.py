"""The simulator: scenario files read (``parse``), workloads from files (``sources``), the
discrete-event loop that drives the engine (``run``), what a run writes (``record``), and a
running cluster's state turned into a scenario (``importer``)."""
