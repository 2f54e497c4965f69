"""Running a scenario: its scripted steps, then its workload through the discrete-event loop,
which skips heartbeats that provably change nothing, applies timed changes and takes over
apps already running."""
