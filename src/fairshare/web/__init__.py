"""What the live services show: a ResourceManager's state as sampled (``sample``), the
history database of those samples (``history/``), and the pages, JSON and metrics built from
them — shared by ``fairshare watch`` (a real RM, polled) and ``fairshare serve`` (fairshare as
the RM)."""
