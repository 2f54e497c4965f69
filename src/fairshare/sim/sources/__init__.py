"""Workload sources other than a scenario's own ``workload.apps``: Hadoop SLS JSON job traces
and topology files, SLS SYNTH descriptions, and CSV.

Each module is a plain function from a file (and what it needs: SLS's default sizes, the
scenario's seed) to :class:`~fairshare.sim.parse.specs.WorkloadApp` and
:class:`~fairshare.sim.parse.specs.NodeSpec` records that remember their file and line;
:func:`~fairshare.sim.sources.combine.load_workload` reads all of a scenario's and checks them
together. docs/workloads.md describes every format and each choice made against Hadoop's code.
"""

from fairshare.sim.sources.combine import LoadedWorkload, SourceFile, load_workload
from fairshare.sim.sources.csv_source import dump_csv, load_csv, parse_csv
from fairshare.sim.sources.sls import SlsTrace, load_sls_jobs
from fairshare.sim.sources.sls_settings import SlsSettings, sls_settings
from fairshare.sim.sources.sls_topology import SlsTopology, load_sls_topology
from fairshare.sim.sources.synth import SynthWorkload, load_synth

__all__ = [
    "LoadedWorkload", "SlsSettings", "SlsTopology", "SlsTrace", "SourceFile", "SynthWorkload",
    "dump_csv", "load_csv", "load_sls_jobs", "load_sls_topology", "load_synth", "load_workload",
    "parse_csv", "sls_settings",
]
