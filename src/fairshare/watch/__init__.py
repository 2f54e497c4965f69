"""``fairshare watch``: a running ResourceManager polled over its REST API (docs/watch.md)."""
