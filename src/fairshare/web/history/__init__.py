"""The history database of a watched (or served) ResourceManager: samples, their buckets at
every resolution, apps as seen, preemptions found (docs/watch.md)."""
