"""What a run leaves behind: the timeline and summary sampled from the engine, snapshots of
its state, and the output files, written all or nothing."""
