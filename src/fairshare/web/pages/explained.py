"""An app page's Explain section: the engine's own account of the app
(:class:`~fairshare.web.pages.source.Explained`, ``fairshare explain --app`` on the events the
engine wrote), drawn where an engine runs behind the pages — ``fairshare serve``; a watcher has
none, and its app page has no such section.

Each statement is a row: when (on the engine's clock, as the statement's words say it, and
the moment in the page's time zone), what the engine did, and the ``seq`` of the events behind
it. Every app and container the statements name links to its own account: an app to its page,
a container to the container's explanation (``Explained.container_url``).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from fairshare.report import units
from fairshare.report.html_kit import esc, table
from fairshare.web.pages.common import when
from fairshare.web.pages.layout import href, note
from fairshare.web.pages.source import Explained

# the ids the engine's statements name: a container (the engine's form,
# container_<app id>_<attempt>_<seq>, or YARN's) and an app (ApplicationId.toString)
_IDS = re.compile(r"\b(container_[A-Za-z0-9_]+|application_[0-9]+_[0-9]+)\b")
SEQS_SHOWN = 8  # as fairshare explain prints them: the first few, then an ellipsis


def explained_json(e: Explained) -> dict[str, Any]:
    """The account as ``/api/app/{id}`` carries it: the explain endpoint's own shape
    (``subject``, ``statements`` of ``t``, ``text``, ``seq``) and where it comes from."""
    return {"subject": e.subject, "url": e.url, "started_ms": e.started_ms, "error": e.error,
            "statements": [{"t": s.time_ms, "text": s.text, "seq": list(s.seqs)}
                           for s in e.statements]}


def _linked(text: str, container_url: str | None) -> str:
    """``text`` escaped, each app and container it names a link to its account."""
    def link(found: re.Match[str]) -> str:
        name = found.group(1)
        if name.startswith("application_"):
            return f'<a href="{href("/app/", name)}">{name}</a>'
        if container_url is None:
            return name
        target = esc(container_url.replace("{id}", quote(name, safe="")))
        return f'<a class="container" href="{target}">{name}</a>'
    # the ids are letters, digits and underscores: escaping leaves them as they were
    return _IDS.sub(link, esc(text))


def _when(time_ms: int | None, started_ms: int | None, zone: str) -> str:
    if time_ms is None:
        return f'<td class="nowrap" data-ms="">{units.DASH}</td>'
    moment = "" if started_ms is None else (
        f'<br><span class="muted">{when(started_ms + time_ms, zone)}</span>')
    return f'<td class="nowrap" data-ms="{time_ms}">{units.duration(time_ms)}{moment}</td>'


def explain_section(e: Explained, zone: str) -> str:
    """The section: a heading, where the account comes from, and its statements."""
    source = (f'The engine\'s own account, from the events it wrote (<code>fairshare explain '
              f'--app</code>; as JSON at <a href="{esc(e.url)}">{esc(e.url)}</a>). Times on '
              "the server's clock since it started, then the moment.")
    if e.error is not None:
        return "\n".join(['<h2 id="explain">Explain</h2>', note(source),
                          f'<p class="muted" id="explain-none">{esc(e.error)}</p>'])
    rows = []
    for s in e.statements:
        seqs = ", ".join(str(n) for n in s.seqs[:SEQS_SHOWN])
        more = "…" if len(s.seqs) > SEQS_SHOWN else ""
        rows.append(f"<tr>{_when(s.time_ms, e.started_ms, zone)}"
                    f"<td>{_linked(s.text, e.container_url)}</td>"
                    f'<td class="muted">{seqs}{more}</td></tr>')
    head = "<tr><th>at</th><th>what the engine did</th><th>events (seq)</th></tr>"
    return "\n".join(['<h2 id="explain">Explain</h2>', note(source),
                      table(head, rows, table_id="explain-statements")])
