"""What every front end reports: a Diagnostic with a real range, and an
optional Fix made of Edits.

Positions are (line, column): lines 1-based, columns 0-based UTF-8 byte
offsets into the line, exactly what ``ast`` gives and what flake8 prints
(+1). ``source.SourceFile`` converts them to character columns (JSON, SARIF,
GitHub) and UTF-16 units (LSP) in one place.

Rules do not build Diagnostics by hand: they ``yield report(at, message,
help=..., fix=...)`` and the engine stamps the rule's code and default
severity on it (``Report.finish``). The message states the finding and its
consequence; the advice is the fix title or ``help``.
"""
from __future__ import annotations

import ast
from typing import Optional, Sequence, Tuple

ERROR = "error"
WARNING = "warning"
INFO = "info"
SEVERITIES = (ERROR, WARNING, INFO)

# Ruff's applicability levels: a safe fix keeps the program's meaning and is
# applied by --fix; an unsafe one may change it (--unsafe-fixes); a
# display-only one is shown and never applied.
SAFE = "safe"
UNSAFE = "unsafe"
DISPLAY_ONLY = "display-only"
APPLICABILITIES = (SAFE, UNSAFE, DISPLAY_ONLY)

Position = Tuple[int, int]


class Edit:
    """Replace ``[start, end)`` of ``path`` with ``text`` (an insertion when
    start == end, a deletion when text is empty)."""

    __slots__ = ("path", "start", "end", "text", "cell")

    def __init__(self, start: Position, end: Position, text: str, path: Optional[str] = None,
                 cell: Optional[int] = None):
        self.start = start
        self.end = end
        self.text = text
        self.path = path  # None: the diagnostic's own file
        # a notebook's finding (notebook.map_findings): the code cell the edit is in,
        # its lines relative to that cell
        self.cell = cell

    def _key(self) -> tuple:
        return (self.path, self.start, self.end, self.text, self.cell)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Edit) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return "Edit(%r, %r, %r%s%s)" % (self.start, self.end, self.text,
                                         ", path=%r" % self.path if self.path else "",
                                         ", cell=%d" % self.cell if self.cell else "")


class Fix:
    """A title (the advice, imperative: "Remove the `with T.Scope` block"),
    the edits that carry it out, and how safe applying them is."""

    __slots__ = ("title", "edits", "applicability")

    def __init__(self, title: str, edits: Sequence[Edit] = (), applicability: str = DISPLAY_ONLY):
        if applicability not in APPLICABILITIES:
            raise ValueError("bad applicability %r" % applicability)
        self.title = title
        self.edits = tuple(edits)
        # a fix with no edit can only be displayed
        self.applicability = applicability if self.edits else DISPLAY_ONLY

    def _key(self) -> tuple:
        return (self.title, self.edits, self.applicability)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Fix) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return "Fix(%r, %r, %r)" % self._key()


class Diagnostic:
    """One finding. ``line``/``col`` are the start (flake8's row and 0-based
    byte column), ``end_line``/``end_col`` the exclusive end."""

    __slots__ = ("code", "line", "col", "message", "severity", "end_line", "end_col", "help", "fix",
                 "path")

    def __init__(self, code: str, line: int, col: int, message: str, severity: str = ERROR,
                 end_line: Optional[int] = None, end_col: Optional[int] = None,
                 help: Optional[str] = None, fix: Optional[Fix] = None,  # noqa: A002 - Ruff's name
                 path: Optional[str] = None):
        self.code = code
        self.line = line
        self.col = col
        self.message = message
        self.severity = severity
        self.end_line = line if end_line is None else end_line
        self.end_col = col + 1 if end_col is None else end_col
        self.help = help
        self.fix = fix
        self.path = path

    @property
    def start(self) -> Position:
        return (self.line, self.col)

    @property
    def end(self) -> Position:
        return (self.end_line, self.end_col)

    @property
    def advice(self) -> Optional[str]:
        """What to do: the help text (which may name alternatives), else the
        fix title (which says what the fix's edit does)."""
        return advice(self.help, self.fix)

    def _key(self) -> tuple:
        return (self.code, self.line, self.col, self.message, self.severity)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Diagnostic) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return "Diagnostic(code=%r, line=%r, col=%r, message=%r, severity=%r)" % self._key()

    def flake8_text(self, default_severity: Optional[str] = None) -> str:
        """The flake8 plugin's line: flake8 cannot apply a fix, so the marker
        says which command does (``FLAKE8_MARKERS``)."""
        return flake8_message(self.code, self.message, self.severity, default_severity, self.help,
                              self.fix, FLAKE8_MARKERS)


def advice(help: Optional[str], fix: Optional[Fix]) -> Optional[str]:  # noqa: A002
    """The advice of a one-line report: ``help`` when the rule gave one (it
    may name alternatives: "delete it, or set X False"), else the fix title
    (what the fix's edit does)."""
    if help:
        return help
    return fix.title if fix is not None else None


# The fix marker at the end of a one-line report. The command line's
# `concise` output uses Ruff's markers (its summary names `--fix`); under
# flake8, which cannot apply a fix, the marker names the command that does.
CLI_MARKERS = {SAFE: " [*]", UNSAFE: " [*unsafe]"}
FLAKE8_MARKERS = {SAFE: " [*] fixable: flake8-tilelang check --fix",
                  UNSAFE: " [*unsafe] fixable: flake8-tilelang check --fix --unsafe-fixes"}


def flake8_message(code: str, message: str, severity: str, default_severity: Optional[str],
                   help: Optional[str], fix: Optional[Fix],  # noqa: A002
                   markers: Optional[dict] = None) -> str:
    """The one line flake8 prints after the position: the code, a severity
    tag when this finding's tier differs from the rule's default (flake8 has
    no severities; the tla-sarif/tla-github reporters read the tag back;
    every tier is declared in the registry, see ``Rule.tiers``), the
    finding, the short advice and a fix marker (``markers``: the command
    line's ``CLI_MARKERS`` by default, ``FLAKE8_MARKERS`` in the plugin)."""
    tag = "[%s] " % severity if default_severity is not None and severity != default_severity else ""
    text = with_advice(message, advice(help, fix))
    if fix is not None and fix.applicability != DISPLAY_ONLY:
        text += (markers or CLI_MARKERS)[fix.applicability]
    return "%s %s%s" % (code, tag, text)


def with_advice(message: str, advice: Optional[str]) -> str:
    """``finding; advice`` on one line (flake8, SARIF, GitHub, GitLab)."""
    if not advice:
        return message
    return "%s; %s" % (message.rstrip("."), _lower_first(advice.rstrip(".")))


def _lower_first(text: str) -> str:
    if len(text) > 1 and text[0].isupper() and not text[1].isupper():
        return text[0].lower() + text[1:]
    return text


def read_severity_tag(text: str) -> Tuple[Optional[str], str]:
    """(severity, rest) for a flake8 message text after the code, as written
    by ``Diagnostic.flake8_text``; (None, text) when it has no tag."""
    if text.startswith("["):
        close = text.find("] ")
        if close > 0 and text[1:close] in SEVERITIES:
            return text[1:close], text[close + 2:]
    return None, text


# -- positions of what a rule reports ------------------------------------------

_HEADER_OF = {
    ast.With: lambda n: n.items[-1].optional_vars or n.items[-1].context_expr if n.items else None,
    ast.AsyncWith: lambda n: n.items[-1].optional_vars or n.items[-1].context_expr if n.items else None,
    ast.For: lambda n: n.iter,
    ast.AsyncFor: lambda n: n.iter,
    ast.If: lambda n: n.test,
    ast.While: lambda n: n.test,
}


def node_range(node: ast.AST) -> Tuple[Position, Position]:
    """The node's start and end; a compound statement ends with its header
    (``with T.Scope("V"):`` is underlined, not its whole body), and a
    function or class definition is reduced to its name line."""
    start = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
    header = _HEADER_OF.get(type(node))
    if header is not None:
        last = header(node)
        if last is not None:
            return start, (last.end_lineno, last.end_col_offset)  # type: ignore[attr-defined]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return start, (node.lineno, node.col_offset + len("def ") + len(node.name))
    end_line = getattr(node, "end_lineno", None)
    end_col = getattr(node, "end_col_offset", None)
    if end_line is None or end_col is None:
        return start, (start[0], start[1] + 1)
    return start, (end_line, end_col)


def _anchor(at) -> Tuple[Position, Position]:
    """Start and end of whatever a rule reports on: an ast node, a model
    object that names its node (``report_node``, ``call``, ``node``), or a
    (line, col) pair."""
    if isinstance(at, ast.AST):
        return node_range(at)
    if isinstance(at, tuple) and len(at) == 2 and all(isinstance(v, int) for v in at):
        return at, (at[0], at[1] + 1)
    for attr in ("report_node", "call", "node"):
        node = getattr(at, attr, None)
        if isinstance(node, ast.AST) and hasattr(node, "lineno"):
            return node_range(node)
    line = getattr(at, "line", None)
    col = getattr(at, "col", 0)
    if isinstance(line, int):
        return (line, col or 0), (line, (col or 0) + 1)
    raise TypeError("cannot report on %r" % (at,))


class Report:
    """A diagnostic without its code: what a rule yields. The engine finishes
    it with the code and default severity of the rule that yielded it."""

    __slots__ = ("start", "end", "message", "help", "fix", "severity")

    def __init__(self, start: Position, end: Position, message: str, help: Optional[str],
                 fix: Optional[Fix], severity: Optional[str]):
        self.start = start
        self.end = end
        self.message = message
        self.help = help
        self.fix = fix
        self.severity = severity

    def finish(self, code: str, default_severity: str) -> Diagnostic:
        return Diagnostic(code, self.start[0], self.start[1], self.message,
                          self.severity or default_severity, self.end[0], self.end[1],
                          self.help, self.fix)


def report(at, message: str, *, help: Optional[str] = None,  # noqa: A002
           fix: Optional[Fix] = None, severity: Optional[str] = None,
           end_at=None) -> Report:
    """What a rule yields: ``at`` is the node (or model object) the user
    should change; ``end_at`` widens the range to the end of another one."""
    start, end = _anchor(at)
    if end_at is not None:
        end = _anchor(end_at)[1]
    return Report(start, end, message, help, fix, severity)
