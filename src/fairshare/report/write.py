"""Putting a page and its PNGs in place without ever leaving half of them.

``report.html`` gets its charts as PNG in ``report-files/`` beside it (the page's name, then
``-files``). Everything is written under temporary names first — the PNGs into a hidden staging
directory, the page into a hidden file — and renamed into place only once all of it is
written: a reader never sees a half-written page, and a build that fails leaves the previous
report as it was. The ``-files`` directory belongs to the report: a new build replaces it
whole, so it never holds charts of queues an earlier build chose.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path

from fairshare.config.errors import ConfigError
from fairshare.report.charts import Chart


def files_dir(page: Path) -> Path:
    """Where a page's PNGs go: ``report.html`` → ``report-files``."""
    return page.with_name(page.stem + "-files")


def check_target(page: Path) -> None:
    """Refuse, before anything is read or drawn, a page that could not be written: its
    directory missing, the page a directory, its ``-files`` name taken by a file."""
    folder = page.parent
    if not folder.is_dir():
        raise ConfigError("cannot write the report: no such directory", str(folder))
    if page.is_dir():
        raise ConfigError("cannot write the report: is a directory", str(page))
    pngs = files_dir(page)
    if pngs.exists() and not pngs.is_dir():
        raise ConfigError("cannot write the charts: exists and is not a directory", str(pngs))


def write_page(page: Path, text: str, charts: Sequence[Chart]) -> list[Path]:
    """Write ``page`` and one PNG per chart; the paths written, the page first."""
    check_target(page)
    folder, pngs = page.parent, files_dir(page)
    tag = f"{os.getpid()}.partial"
    stage, draft = folder / f".{pngs.name}.{tag}", folder / f".{page.name}.{tag}"
    old = folder / f".{pngs.name}.{os.getpid()}.old"
    swapped = False
    try:
        stage.mkdir()
        for chart in charts:
            (stage / f"{chart.name}.png").write_bytes(chart.png)
        draft.write_text(text, encoding="utf-8")
        if pngs.exists():
            pngs.rename(old)
        stage.rename(pngs)
        swapped = True
        draft.replace(page)
    except OSError as e:
        if swapped:  # the page could not be replaced: the new charts go, the old come back
            pngs.rename(stage)
        if old.exists() and not pngs.exists():
            old.rename(pngs)
        where = e.filename if isinstance(e.filename, str) else str(page)
        raise ConfigError(f"cannot write the report: {e.strerror or e}", where) from None
    finally:
        shutil.rmtree(stage, ignore_errors=True)
        shutil.rmtree(old, ignore_errors=True)
        draft.unlink(missing_ok=True)
    return [page, *(pngs / f"{chart.name}.png" for chart in charts)]
