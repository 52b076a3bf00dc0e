"""Formats for people: ``concise`` (flake8's default line, byte for byte) and
``full`` (the source line with a caret under the reported code), plus the
``--statistics`` table.

Paths, messages and source lines come from the linted tree: every character a
terminal could act on (escape sequences, control and bidi characters) and
every undecodable byte of a file name is printed as a visible escape.
"""
from __future__ import annotations

from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from . import printable

_RESET = "\033[0m"
_BOLD = "\033[1m"
_DIM = "\033[2m"
_COLORS = {"error": "\033[31m", "warning": "\033[33m", "info": "\033[36m"}


def concise(findings: Iterable) -> str:
    """``path:row:col: CODE message`` with flake8's 1-based byte column
    (``nb.ipynb:cell 3:row:col:`` in a notebook, the row in that cell)."""
    return "".join("%s:%s%d:%d: %s\n" % (printable(f.path), _cell(f), f.line, f.col + 1,
                                         printable(f.flake8_text()))
                   for f in findings)


def _cell(f) -> str:
    """``cell 3:`` before the row of a finding in a notebook (Ruff's form)."""
    cell = getattr(f, "cell", None)
    return "cell %d:" % cell if cell else ""


def _paint(text: str, style: str, color: bool) -> str:
    return "%s%s%s" % (style, text, _RESET) if color and style else text


def _width(text: str) -> int:
    """Columns ``text`` takes once escaped and with tabs expanded."""
    text = printable(text)
    return len(text.expandtabs(8) if "\t" in text else text)


def full(findings: Iterable, color: bool = False) -> str:
    out: List[str] = []
    for f in findings:
        sev = _COLORS.get(f.severity, "")
        head = "%s:%s%d:%d: %s %s %s" % (
            _paint(printable(f.path), _BOLD, color), _cell(f), f.line, f.char_col,
            _paint(f.code, _BOLD + sev, color), _paint("[%s]" % f.severity, sev, color),
            printable(f.message))
        out.append(head)
        if f.line > 0 and f.source:
            gutter = " " * len(str(f.line))
            src = printable(f.source)
            if "\t" in src:
                src = src.expandtabs(8)
            first = f.char_col - 1
            last = f.char_end_col - 1 if f.end_line == f.line else first + 1
            start = _width(f.source[:first])
            width = max(1, _width(f.source[:max(last, first + 1)]) - start)
            width = max(1, min(width, len(src) - start)) if len(src) > start else 1
            bar = _paint("|", _DIM, color)
            out.append("%s %s" % (gutter, bar))
            out.append("%s %s %s" % (_paint(str(f.line), _DIM, color), bar, src))
            out.append("%s %s %s%s %s" % (gutter, bar, " " * start,
                                          _paint("^" * width, sev, color), _paint(f.code, sev, color)))
            out.append("%s %s" % (gutter, bar))
        for label, text in advice_lines(f):
            out.append("%s %s %s" % (" " * len(str(max(f.line, 0))), _paint("=", _DIM, color),
                                     "%s: %s" % (_paint(label, _BOLD, color), printable(text))))
        out.append("")
    return "\n".join(out) + ("\n" if out else "")


def advice_lines(f) -> List[Tuple[str, str]]:
    """Ruff's trailer lines: ``help`` (the advice, which may name
    alternatives) and the fix (its title says what the edit does), labelled
    ``fix`` or ``unsafe fix``; a display-only fix is advice (``help``)."""
    fix = f.fix
    lines: List[Tuple[str, str]] = []
    if f.help and (fix is None or f.help != fix.title):
        lines.append(("help", f.help))
    if fix is not None:
        if fix.applicability == "display-only":
            if not lines:  # the advice, once (a help equal to the title was not added above)
                lines.append(("help", fix.title))
        else:
            lines.append(("fix" if fix.applicability == "safe" else "unsafe fix", fix.title))
    return lines


def statistics_rows(findings: Iterable, names: Dict[str, str],
                    fixable=None) -> List[Tuple[str, str, int, str, int]]:
    """(code, name, count, severity, fixable count) per code, the most
    frequent first. ``fixable(finding)``: would this run's ``--fix`` apply
    its fix. A code reported with two severities (its registry tiers) shows
    both, ``error/warning``."""
    counts: Dict[str, int] = {}
    fixes: Dict[str, int] = {}
    sev: Dict[str, List[str]] = {}
    for f in findings:
        counts[f.code] = counts.get(f.code, 0) + 1
        fixes[f.code] = fixes.get(f.code, 0) + (1 if fixable is not None and fixable(f) else 0)
        seen = sev.setdefault(f.code, [])
        if f.severity not in seen:
            seen.append(f.severity)
    order = {"error": 0, "warning": 1, "info": 2}
    rows = [(code, names.get(code, ""), n, "/".join(sorted(sev[code], key=lambda s: order.get(s, 3))),
             fixes[code]) for code, n in counts.items()]
    rows.sort(key=lambda r: (-r[2], r[0]))
    return rows


def statistics_text(rows: List[Tuple[str, str, int, str, int]]) -> str:
    """Ruff's ``--statistics``: count, code, ``[*]`` when ``--fix`` fixes
    some of them, name, severity, and how many are fixable when not all."""
    if not rows:
        return ""
    width = max(len(str(r[2])) for r in rows)
    code_w = max(len(r[0]) for r in rows)
    name_w = max(len(r[1]) for r in rows)
    sev_w = max(len(r[3]) for r in rows)
    any_fix = any(r[4] for r in rows)
    out = []
    for code, name, n, severity, nfix in rows:
        marker = ("[*] " if nfix else "    ") if any_fix else ""
        tail = "  %d fixable" % nfix if 0 < nfix < n else ""
        out.append(("%*d  %-*s  %s%-*s  %-*s%s" % (width, n, code_w, code, marker, name_w, name,
                                                   sev_w, severity, tail)).rstrip() + "\n")
    return "".join(out)


ELLIPSIS = "\u2026"


def _cut(cell: str, width: int, left: bool) -> str:
    """``cell`` in at most ``width`` columns, an ellipsis marking the cut
    (at the start for a path: its end is the file and line)."""
    if len(cell) <= width:
        return cell
    if width <= 1:
        return ELLIPSIS[:width]
    return ELLIPSIS + cell[len(cell) - width + 1:] if left else cell[:width - 1] + ELLIPSIS


def fit_table(rows: List[List[str]], width: Optional[int] = None, shrink: Sequence[int] = (),
              left: Sequence[int] = (), minimum: int = 8, gap: int = 2) -> List[str]:
    """Aligned lines of ``rows`` (the first is the header). With ``width``,
    the columns in ``shrink`` give up columns, the widest first, until the
    table fits or each is down to ``minimum`` (or its header); a cut cell
    ends with an ellipsis (starts with one for the columns in ``left``).
    The columns stay aligned whatever happens: a table that cannot fit is
    wider than the terminal, never broken."""
    ncols = len(rows[0]) if rows else 0
    widths = [max(len(r[i]) for r in rows) for i in range(ncols)]
    if width is not None:
        floor = {i: min(widths[i], max(minimum, len(rows[0][i]))) for i in shrink}
        excess = sum(widths) + gap * (ncols - 1) - width
        while excess > 0:
            can = [i for i in shrink if widths[i] > floor[i]]
            if not can:
                break
            i = max(can, key=lambda j: (widths[j] - floor[j], j))
            widths[i] -= 1
            excess -= 1
    out = []
    for row in rows:
        cells = [_cut(cell, widths[i], i in left).ljust(widths[i]) for i, cell in enumerate(row)]
        out.append((" " * gap).join(cells).rstrip())
    return out


def wrap_note(text: str, width: Optional[int]) -> str:
    """A note under a table, wrapped to ``width`` columns (as is without)."""
    if width is None or len(text) <= width:
        return text
    import textwrap

    return "\n".join(textwrap.wrap(text, width=max(width, 20), break_long_words=False,
                                   break_on_hyphens=False))


def records(rows: List[List[str]], width: int, indent: int = 4) -> List[str]:
    """``rows`` (the first is the header) as one block per row, for a
    terminal too narrow for the table: the first cell on its own line (cut
    at its start when longer than ``width``), then ``HEADER value`` items
    packed into indented lines of at most ``width`` columns (an item that
    is longer on its own is cut with an ellipsis)."""
    header = rows[0]
    out: List[str] = []
    room = max(width - indent, 10)
    for row in rows[1:]:
        if out:
            out.append("")
        out.append(_cut(row[0], width, True))
        line = ""
        for name, cell in zip(header[1:], row[1:]):
            item = _cut("%s %s" % (name, cell), room, False)
            if line and len(line) + 2 + len(item) > room:
                out.append(" " * indent + line)
                line = ""
            line = "%s  %s" % (line, item) if line else item
        if line:
            out.append(" " * indent + line)
    return out
