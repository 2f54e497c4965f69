"""The frame of every live page: the report's style sheet (one look for the report and the
watch, :data:`fairshare.report.html_kit.CSS`) plus the pages' own, the navigation, and the
status line — which RM, how old the sample is, the last poll's error.

Everything is served by the app itself (``/static/…`` from the package): no CDN, no font, no
request to anywhere else. Every user-given string (queue, app, user names, error texts) goes
through :func:`fairshare.report.html_kit.esc`.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextvars import ContextVar
from urllib.parse import quote

from fairshare.report.html_kit import CSS, esc
from fairshare.report.units import duration
from fairshare.web.history.model import Window
from fairshare.web.pages import params
from fairshare.web.pages.source import LatestSample

# the program whose pages these are, named in every title and header: fairshare watch's or
# fairshare serve's (the app sets it around each page it renders: create_app's ``program``)
PROGRAM: ContextVar[str] = ContextVar("pages_program", default="fairshare watch")
NAV = (("/scheduler", "Scheduler"), ("/tuning", "Preemption Tuning"),
       ("/apps", "Applications"), ("/nodes", "Nodes"), ("/diagnosis", "Diagnosis"))


def page(title: str, body: Iterable[str], *, scripts: Iterable[str] = (),
         charts: bool = False) -> str:
    """A whole document; ``scripts``: names under /static/ loaded at the end of the body."""
    css = '<link rel="stylesheet" href="/static/pages.css">'
    if charts:
        css += '\n<link rel="stylesheet" href="/static/uPlot.min.css">'
        scripts = ("uPlot.iife.min.js", *scripts)
    tags = "".join(f'\n<script src="/static/{esc(s)}"></script>' for s in scripts)
    links = "".join(f'<li><a href="{href}">{name}</a></li>' for href, name in NAV)
    program = esc(PROGRAM.get())
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<link rel=\"icon\" href=\"data:,\">\n<title>{esc(title)} · {program}</title>"
            f"\n<style>{CSS}</style>\n{css}\n</head>\n<body>\n"
            f'<header><nav class="top"><ul><li class="brand">{program}</li>{links}</ul>'
            f"</nav><h1>{esc(title)}</h1></header>\n<main>\n"
            + "\n".join(body) + f"\n</main>{tags}\n</body>\n</html>\n")


def age_text(latest: LatestSample) -> str:
    """``sample 2.5 s old``: the page's status line and /api/scheduler's ``age_text``."""
    if latest.sample is None:
        return "no sample yet"
    return f"sample {duration((latest.age_s or 0.0) * 1000)} old"


def status(latest: LatestSample) -> str:
    """The RM, the sample's age and the last error: shown on every page that draws the latest
    sample, and updated live on the Scheduler page (ids ``sample-age``, ``poll-error``)."""
    error = (f'<span id="poll-error" class="error">last poll failed: {esc(latest.error)}</span>'
             if latest.error else '<span id="poll-error" class="error" hidden></span>')
    version = (f" · Hadoop {esc(latest.sample.rm_version)}"
               if latest.sample is not None and latest.sample.rm_version else "")
    return (f'<p class="status">ResourceManager <code>{esc(latest.rm_url)}</code>{version} · '
            f'<span id="sample-age">{age_text(latest)}</span> {error}</p>')


def href(prefix: str, name: str) -> str:
    """A link to a queue's or app's page: the name quoted for the path, then escaped."""
    return esc(prefix + quote(name, safe=".-_"))


def note(text: str) -> str:
    return f'<p class="muted">{text}</p>'


def message(title: str, text: str) -> str:
    """The body of an error page (404, 400): the reason in plain words."""
    return page(title, [f'<p class="error" id="message">{esc(text)}</p>',
                        '<p><a href="/scheduler">Back to the Scheduler page</a></p>'])


def window_form(action: str, w: Window, extra: str = "") -> str:
    """The window's form (from, to, tz and the page's own filters), filled with its values."""
    return (f'<form class="window" method="get" action="{esc(action)}">'
            f'<label>from <input type="datetime-local" step="1" name="from" '
            f'value="{params.local_input(w.start_ms, w.timezone)}"></label> '
            f'<label>to <input type="datetime-local" step="1" name="to" '
            f'value="{params.local_input(w.end_ms, w.timezone)}"></label> '
            f'<label>tz <input name="tz" size="14" value="{esc(w.timezone)}"></label> {extra}'
            '<button type="submit">Show</button></form>')
