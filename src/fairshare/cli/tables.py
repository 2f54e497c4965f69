"""Tables that fit the console's width without breaking a value.

rich fits a table that is too wide by wrapping at any space and then cutting every column
evenly: ``1 m 43 s`` becomes ``1 m 43`` over ``s``, and short columns vanish into ``…``.
:class:`FitTable` decides the widths itself, at print time (when the width is known): a number
with its unit stays on one line; a resource (``20,419 MB, 10 vc``) breaks only after a comma;
headers wrap between words; names (left-aligned columns) fold. Columns that need the fewest
extra characters to print on one line get them first, so as few columns as possible wrap. Only
a console narrower than every column's unbreakable part gets rich's own cut (``…``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.measure import Measurement
from rich.table import Column, Table
from rich.text import Text

_NAME_FOLD = 10  # a name column keeps at least this many characters a line


class FitTable(Table):
    """A :class:`rich.table.Table` that fits the console as the module docstring says."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        wide = Measurement.get(console, options.update_width(10**6), _plain(self)).maximum
        if wide <= options.max_width:
            yield from Table.__rich_console__(self, console, options)
            return
        natural = [_natural(column) for column in self.columns]
        budget = options.max_width - (wide - sum(natural))
        splitters = breaks(self.columns, budget)
        least = [_least(c, split) for c, split in zip(self.columns, splitters, strict=True)]
        widths = share_widths(natural, least, budget)
        fitted = _plain(self)
        fitted.columns = [_narrowed(column, width, split) for column, width, split
                          in zip(self.columns, widths, splitters, strict=True)]
        yield from Table.__rich_console__(fitted, console, options)


def breaks(columns: list[Column], budget: int) -> list[Callable[[str], list[str]]]:
    """Where each column's values may break: between their parts (:func:`_parts`), or, in the
    columns that gain the most by it (values before names) until the least widths fit
    ``budget``, between words."""
    splitters: list[Callable[[str], list[str]]] = [_parts] * len(columns)
    least = [_least(c, _parts) for c in columns]
    # values break between words before names fold shorter: a name cut is the harder to read
    gains = sorted((c.justify == "left", -(least[i] - _least(c, _words)), i)
                   for i, c in enumerate(columns))
    for _name, minus_gain, i in gains:
        gain = -minus_gain
        if sum(least) <= budget:
            break
        if gain <= 0:
            continue
        splitters[i] = _words
        least[i] -= gain
    return splitters


def share_widths(natural: list[int], least: list[int], budget: int) -> list[int]:
    """Each column's width: at least its unbreakable part, then, smallest need first, what it
    needs to print on one line, while ``budget`` lasts; the rest grow evenly."""
    widths = [min(n, m) for n, m in zip(natural, least, strict=True)]
    left = budget - sum(widths)
    for i in sorted(range(len(widths)), key=lambda i: (natural[i] - widths[i], i)):
        need = natural[i] - widths[i]
        if 0 < need <= left:
            widths[i], left = natural[i], left - need
    short = [i for i in range(len(widths)) if widths[i] < natural[i]]
    while left > 0 and short:  # what remains goes to the wrapped columns, a character each
        for i in list(short):
            if left == 0:
                break
            widths[i] += 1
            left -= 1
            if widths[i] == natural[i]:
                short.remove(i)
    return widths


def _plain(table: Table) -> Table:
    """A copy whose columns are unchanged: rendering it measures without recursing here."""
    copy = Table.__new__(Table)
    copy.__dict__.update(table.__dict__)
    copy.columns = list(table.columns)
    return copy


def _lines(cell: RenderableType) -> list[str]:
    text = cell.plain if isinstance(cell, Text) else cell if isinstance(cell, str) else ""
    return text.split("\n")


def _cells(column: Column) -> Iterator[RenderableType]:
    yield column.header
    yield from column.cells


def _natural(column: Column) -> int:
    return max((cell_len(line) for cell in _cells(column) for line in _lines(cell)), default=0)


_BREAK = re.compile(r"(?<=, )|(?<= / )")


def _parts(line: str) -> list[str]:
    """The pieces a value may break between: after each ``, `` (a resource's types) and
    `` / `` (memory / vcores)."""
    return [p.rstrip(" ") for p in _BREAK.split(line)]


def _least(column: Column, splitter: Callable[[str], list[str]]) -> int:
    """The widest piece no line break may split: a header's word, a value's part."""
    words = [w for line in _lines(column.header) for w in line.split()]
    least = max((cell_len(w) for w in words), default=0)
    if column.justify == "left":  # a name: folds
        fold = _NAME_FOLD if splitter is _parts else _NAME_FOLD // 2
        return max(least, min(_natural(column), fold))
    pieces = (p for cell in column.cells for line in _lines(cell) for p in splitter(line))
    return max([least, *(cell_len(p) for p in pieces)])


def _narrowed(column: Column, width: int, splitter: Callable[[str], list[str]]) -> Column:
    if width >= _natural(column):
        return replace(column, width=width)
    header = _rewrapped(column.header, width, _words, paragraph=True)
    if column.justify == "left":
        return replace(column, width=width, header=header, no_wrap=False, overflow="fold")
    cells = [_rewrapped(cell, width, splitter) for cell in column.cells]
    return replace(column, width=width, header=header, _cells=cells, no_wrap=True)


def _words(line: str) -> list[str]:
    return line.split()


def _rewrapped(cell: RenderableType, width: int, pieces: Callable[[str], list[str]], *,
               paragraph: bool = False) -> RenderableType:
    """``cell`` with its lines packed into ``width`` at the breaks ``pieces`` allows: a header
    as one paragraph, a value line by line."""
    lines = _lines(cell)
    if all(cell_len(line) <= width for line in lines) or not isinstance(cell, str | Text):
        return cell
    paragraphs = [" ".join(lines)] if paragraph else lines
    packed = "\n".join(line for p in paragraphs for line in _pack(pieces(p), width))
    if isinstance(cell, Text):
        return Text(packed, style=cell.style, justify=cell.justify)
    return packed


def _pack(pieces: Iterable[str], width: int) -> Iterator[str]:
    """``pieces`` joined by spaces into lines of at most ``width`` (a longer piece alone)."""
    line = ""
    for piece in pieces:
        if line and cell_len(line) + 1 + cell_len(piece) > width:
            yield line
            line = piece
        else:
            line = f"{line} {piece}" if line else piece
    if line:
        yield line
