"""Formats for people: ``concise`` (flake8's default line, byte for byte) and
``full`` (the source line with a caret under the reported code), plus the
``--statistics`` table.

Paths, messages and source lines come from the linted tree: every character a
terminal could act on (escape sequences, control and bidi characters) and
every undecodable byte of a file name is printed as a visible escape.
"""
from __future__ import annotations

from typing import Dict, Iterable, List, Tuple

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
        advice = f.advice
        if advice:
            label = "help" if f.fix is None or f.fix.applicability == "display-only" else (
                "fix" if f.fix.applicability == "safe" else "unsafe fix")
            out.append("%s %s %s" % (" " * len(str(max(f.line, 0))), _paint("=", _DIM, color),
                                     "%s: %s" % (_paint(label, _BOLD, color), printable(advice))))
        out.append("")
    return "\n".join(out) + ("\n" if out else "")


def statistics_rows(findings: Iterable, names: Dict[str, str]) -> List[Tuple[str, str, int, str]]:
    counts: Dict[str, int] = {}
    sev: Dict[str, str] = {}
    for f in findings:
        counts[f.code] = counts.get(f.code, 0) + 1
        sev.setdefault(f.code, f.severity)
    rows = [(code, names.get(code, ""), n, sev[code]) for code, n in counts.items()]
    rows.sort(key=lambda r: (-r[2], r[0]))
    return rows


def statistics_text(rows: List[Tuple[str, str, int, str]]) -> str:
    if not rows:
        return ""
    width = max(len(str(r[2])) for r in rows)
    code_w = max(len(r[0]) for r in rows)
    name_w = max(len(r[1]) for r in rows)
    return "".join("%*d  %-*s  %-*s  %s\n" % (width, n, code_w, code, name_w, name, severity)
                   for code, name, n, severity in rows)
