"""Where containers run: ``virtual`` (simulated NodeManagers), ``local`` (processes on this
machine), ``ray`` (a Ray cluster's nodes). One protocol, ``base.Executor``."""
