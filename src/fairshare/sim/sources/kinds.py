"""Which kind of SLS input a JSON file is, so that a file given under the wrong workload key is
named in the error ("this looks like a SYNTH description") instead of failing on its first key.

SLS itself is told the kind on its command line (``--tracetype SLS|RUMEN|SYNTH``, ``--nodes``)
and fails in its own way on the wrong one. Each loader looks at its file's first JSON value:

* a **Rumen** job trace (``LoggedJob`` as Rumen writes a MapReduce job history: ``jobID`` with
  ``mapTasks``, ``submitTime``, …), which fairshare does not read: SLS's ``rumen2sls.sh``
  (``RumenToSLSConverter``) turns it into an SLS trace and a topology file;
* a **SYNTH** description (``SynthTraceJobProducer.Trace``: ``workloads``);
* an SLS **topology** file (``SLSUtils.parseNodesFromNodeFile``: ``rack`` / ``nodes``);
* an SLS **job trace** (``AMDefinitionSLS``: ``job.*`` keys, or ``num.nodes``).
"""

from __future__ import annotations

from typing import Any, Literal

__all__ = ["Kind", "kind_of", "wrong_kind"]

Kind = Literal["rumen", "synth", "sls", "sls-nodes"]

# LoggedJob's keys that no SLS or SYNTH file has, beside "jobID"
_RUMEN = ("mapTasks", "reduceTasks", "submitTime", "launchTime", "finishTime", "jobName")
_NAMES: dict[Kind, str] = {
    "synth": "an SLS SYNTH description", "sls": "an SLS job trace",
    "sls-nodes": "an SLS topology file", "rumen": "a Rumen job trace",
}
_SIGNS: dict[Kind, str] = {
    "synth": "'workloads'", "sls": "'job.*' keys", "sls-nodes": "'rack' and 'nodes'",
    "rumen": "'jobID', 'mapTasks', 'submitTime'",
}
RUMEN_HELP = ("fairshare does not read Rumen's job histories: convert it with Hadoop's "
              "rumen2sls.sh (RumenToSLSConverter: --rumen-file=FILE --output-dir=DIR), then "
              "give its sls-jobs.json as 'workload.sls' and its sls-nodes.json as "
              "'workload.sls-nodes'")


def kind_of(value: Any) -> Kind | None:
    """The kind of input a file whose first JSON value is ``value`` looks like (None: none)."""
    if not isinstance(value, dict):
        return None
    keys = value.keys()
    if "jobID" in keys and any(key in keys for key in _RUMEN):
        return "rumen"
    if "workloads" in keys:
        return "synth"
    if any(key.startswith("job.") for key in keys) or "num.nodes" in keys:
        return "sls"
    if "nodes" in keys and isinstance(value["nodes"], list):
        return "sls-nodes"
    return None


def wrong_kind(value: Any, expected: Kind) -> str | None:
    """The error for a file given as ``expected`` (its workload key) whose first JSON value
    ``value`` looks like another kind; None when it does not."""
    kind = kind_of(value)
    if kind is None or kind == expected:
        return None
    looks = f"this looks like {_NAMES[kind]} ({_SIGNS[kind]}), not {_NAMES[expected]}"
    if kind == "rumen":
        return f"{looks}: {RUMEN_HELP}"
    return f"{looks}: give it as 'workload.{kind}'"
