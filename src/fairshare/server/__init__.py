"""``fairshare serve``: the engine as a live ResourceManager (docs/serve.md).

One thread owns the engine (:mod:`fairshare.server.loop`) and applies commands in order —
requests, the update pass, the preemption round, kill timers, node heartbeats — on a clock;
requests read the latest frozen :class:`~fairshare.server.view.ServerSnapshot`, never live
state. The REST layer renders YARN's own answers from it (``rest/``), the executors run the
containers (``executors/``), and the pages and metrics are ``web``'s, shared with ``watch``.
"""
