"""The one per-file pipeline: decode, gate, parse, model and rules (the
engine), the file directive, per-file ignores, ``# noqa`` with flake8's exact
semantics, and the comment codes TLA095/TLA096.

Every front end goes through :func:`lint_source`: ``check``, ``kernels``,
the fixes and the language server; the flake8 plugin shares the engine and
the file directive (flake8 does decoding, E999 and ``# noqa`` itself).
Runs in worker processes too, so it takes and returns plain, picklable data.
"""
from __future__ import annotations

import ast
import os
import sys
from typing import Dict, Iterator, List, NamedTuple, Optional, Sequence, Set, Tuple

from . import suppress
from .constants import STRICT_ENV, THIRD_PARTY_ROOTS
from .diagnostic import Fix, advice, flake8_message, with_advice
from .settings import IO_ERROR, SYNTAX_ERROR, Settings
from .source import DecodeError, SourceFile, byte_index, char_index, decode

MARKER = b"tilelang"


def _cell_number(value) -> Optional[int]:
    """An edit's notebook cell from a cache row: None or a positive int."""
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise TypeError("bad cell in a finding row")
    return value


class Finding(NamedTuple):
    """A diagnostic as the command line reports it: with its file, the
    source line and the noqa row flake8 would use."""

    path: str  # as displayed (flake8's spelling of the path)
    line: int
    col: int  # 0-based, UTF-8 bytes of the line, exactly what flake8 gets
    code: str
    message: str  # the finding and its consequence
    severity: str
    end_line: int
    end_col: int  # 0-based bytes, exclusive
    noqa_row: Optional[int]
    source: str  # the physical line without its newline ("" when unknown)
    help: Optional[str] = None  # the advice when there is no fix
    fix: Optional[Fix] = None
    end_source: str = ""  # the end line's text, when it is another line
    # notebooks (notebook.py): the code cell (1-based index in `cells`); line,
    # end_line, noqa_row and the fix's edits are then relative to that cell,
    # and ``raw`` is (line, column, end line, end column), 1-based characters,
    # of the same place in the .ipynb file's own text
    cell: Optional[int] = None
    raw: Optional[Tuple[int, int, int, int]] = None

    @property
    def char_col(self) -> int:
        """1-based column in characters (what JSON, SARIF and GitHub want)."""
        return char_index(self.source, self.col) + 1

    @property
    def char_end_col(self) -> int:
        if self.end_line != self.line:
            return char_index(self.end_source, self.end_col) + 1
        return char_index(self.source, self.end_col) + 1

    @property
    def advice(self) -> Optional[str]:
        """The help text, else the fix title (``diagnostic.advice``)."""
        return advice(self.help, self.fix)

    def to_row(self) -> list:
        """Plain JSON data (the cache's entry format)."""
        row = list(self)
        if self.fix is not None:
            row[11] = [self.fix.title, self.fix.applicability,
                       [[e.start[0], e.start[1], e.end[0], e.end[1], e.text, e.path, e.cell] for e in self.fix.edits]]
        if self.raw is not None:
            row[14] = list(self.raw)
        return row

    @classmethod
    def from_row(cls, row) -> "Finding":
        """The inverse of ``to_row``; raises ValueError/TypeError on anything
        that is not exactly such a row (cache entries are untrusted)."""
        if not isinstance(row, list) or len(row) != len(cls._fields):
            raise ValueError("not a finding row")
        types = (str, int, int, str, str, str, int, int, (int, type(None)), str, (str, type(None)),
                 (list, type(None)), str, (int, type(None)), (list, type(None)))
        for value, kind in zip(row, types):
            if not isinstance(value, kind) or isinstance(value, bool):
                raise TypeError("bad field in a finding row")
        fix = None
        if row[11] is not None:
            from .diagnostic import Edit

            title, applicability, edits = row[11]
            fix = Fix(str(title), [Edit((int(a), int(b)), (int(c), int(d)), str(t),
                                        None if p is None else str(p), _cell_number(k))
                                   for a, b, c, d, t, p, k in edits],
                      str(applicability))
        raw = None
        if row[14] is not None:
            if len(row[14]) != 4 or not all(isinstance(v, int) and not isinstance(v, bool) for v in row[14]):
                raise TypeError("bad notebook position in a finding row")
            raw = tuple(row[14])
        return cls(*row[:11], fix, row[12], row[13], raw)

    @property
    def one_line(self) -> str:
        """The finding and its advice on one line (SARIF, GitHub, GitLab)."""
        return with_advice(self.message, self.advice)

    def flake8_text(self) -> str:
        """What flake8 prints after the position (the plugin's text)."""
        return flake8_message(self.code, self.message, self.severity, _default_severity(self.code),
                              self.help, self.fix)


class FileResult(NamedTuple):
    findings: List[Finding]
    cacheable: bool


def simple(path: str, line: int, col: int, code: str, message: str, severity: str = "error",
           source: str = "", end_col: Optional[int] = None, help: Optional[str] = None) -> Finding:  # noqa: A002
    return Finding(path, line, col, code, message, severity, line,
                   col + 1 if end_col is None else end_col, line if line > 0 else None, source, help)


def _safe_roots() -> frozenset:
    """Top-level imports that can never make a file's result depend on
    another file of the project: known third-party packages and the
    standard library."""
    stdlib = frozenset(getattr(sys, "stdlib_module_names", ())) | frozenset(sys.builtin_module_names)
    if not stdlib:  # Python 3.9: no sys.stdlib_module_names; stay conservative
        stdlib = frozenset({"os", "sys", "math", "functools", "itertools", "typing", "dataclasses",
                            "collections", "enum", "re", "time", "argparse", "logging"})
    return THIRD_PARTY_ROOTS | stdlib


def _statements(body) -> "Iterator[ast.stmt]":
    """Every statement, nested ones too, without visiting expressions."""
    for stmt in body:
        yield stmt
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(stmt, name, None)
            if inner:
                yield from _statements(inner)


def _line_spans(tree: ast.Module) -> Dict[int, Tuple[int, int]]:
    """line -> (first, last) of the simple statements, compound-statement
    headers and decorators that cover it, merged where they share a line
    (`a(); b = \\`). flake8's noqa range for a line never leaves that span
    (a NEWLINE token ends it), so a span without "noqa" text proves the line
    has no noqa, without tokenizing the file."""
    intervals: List[Tuple[int, int]] = []
    for node in _statements(tree.body):
        if not isinstance(node, ast.stmt):
            continue  # except handlers, match cases: their lines stay unknown
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            for dec in getattr(node, "decorator_list", ()):
                intervals.append((dec.lineno, dec.end_lineno or dec.lineno))
            intervals.append((node.lineno, max(node.lineno, body[0].lineno - 1)))
        else:
            intervals.append((node.lineno, node.end_lineno or node.lineno))
    intervals.sort()
    merged: List[List[int]] = []
    for first, last in intervals:
        if merged and first <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], last)
        else:
            merged.append([first, last])
    out: Dict[int, Tuple[int, int]] = {}
    for first, last in merged:
        for n in range(first, last + 1):
            out[n] = (first, last)
    return out


def _may_have_noqa(line: int, spans: Dict[int, Tuple[int, int]], lines: Sequence[str]) -> bool:
    span = spans.get(line)
    if span is None:
        return True  # not provably free of a noqa: ask the tokenizer
    first, last = span
    last = min(last, len(lines))
    # a backslash joins the next physical line into the same token run (its
    # comment counts, also when it belongs to no statement of its own)
    while last < len(lines) and lines[last - 1].rstrip("\r\n").endswith("\\"):
        last += 1
    return any("noqa" in lines[n - 1].lower() for n in range(first, last + 1))


def self_contained(tree: ast.Module) -> bool:
    """True when nothing the file imports can be one of the user's modules,
    so its result depends on its own content only (safe to cache)."""
    safe = _safe_roots()
    for node in _statements(tree.body):
        if isinstance(node, ast.Import):
            if any(alias.name.split(".")[0] not in safe for alias in node.names):
                return False
        elif isinstance(node, ast.ImportFrom):
            if node.level or (node.module or "").split(".")[0] not in safe:
                return False
    return True


_RULE_SEVERITY: Dict[str, str] = {}


def _rule_table() -> Dict[str, str]:
    if not _RULE_SEVERITY:
        from .settings import known_rules

        _RULE_SEVERITY.update((r.code, r.severity) for r in known_rules())
    return _RULE_SEVERITY


def _known_codes() -> Tuple[str, ...]:
    return tuple(_rule_table())


def _default_severity(code: str) -> Optional[str]:
    return _rule_table().get(code)


def lint_source(display: str, data: bytes, settings: Settings,
                source: Optional[SourceFile] = None, source_provider=None) -> FileResult:
    """Every finding for one file (its bytes, or an already decoded
    ``source`` such as an editor buffer), never raising (unless strict
    mode). ``source_provider(path) -> bytes | str | None`` is asked for the
    text of the user's other modules before the disk (an editor's unsaved
    buffers)."""
    try:
        if source_provider is not None:
            from .model.crossmod import source_provider as providing

            with providing(source_provider):
                return _lint(display, data, settings, source)
        return _lint(display, data, settings, source)
    except (Exception, RecursionError) as exc:  # noqa: B902 - one bad file never ends the run
        if os.environ.get(STRICT_ENV) == "1":
            raise
        from .output import printable

        detail = str(exc).splitlines()[0][:120] if str(exc) else ""
        return FileResult([simple(
            display, 1, 0, "TLA000",
            "flake8-tilelang internal error: %s%s" % (type(exc).__name__, ": " + printable(detail) if detail else ""),
            help="Please report it with this file")], False)


def parse(display: str, data: bytes, source: Optional[SourceFile] = None):
    """(source, tree, None), or (source or None, None, the E902/E999 finding)
    for a file that cannot be decoded or parsed."""
    if source is None:
        try:
            source = decode(data)
        except DecodeError as exc:
            return None, None, simple(display, exc.line, exc.col, IO_ERROR, exc.message)
    try:
        return source, ast.parse(source.text, display), None
    except SyntaxError as exc:
        # flake8's E999: the exception's name and first argument, column offset + 1
        line = exc.lineno or 1
        src = source.line_text(line)
        col = max(exc.offset or 1, 1)
        return source, None, simple(display, line, col, SYNTAX_ERROR, "%s: %s" % (
            type(exc).__name__, exc.msg), source=src, end_col=max(col + 1, len(src.encode("utf-8"))))
    except (ValueError, RecursionError, MemoryError) as exc:  # null bytes, nesting too deep
        return source, None, simple(display, 1, 0, SYNTAX_ERROR, "%s: %s" % (
            type(exc).__name__, str(exc).splitlines()[0] if str(exc) else "cannot parse"))


def _lint(display: str, data: bytes, settings: Settings, source: Optional[SourceFile]) -> FileResult:
    if source is None and MARKER not in data:
        return FileResult([], True)
    if source is None and display.lower().endswith(".ipynb"):
        from . import notebook

        findings, cacheable = notebook.lint(display, data, settings,
                                            lambda d, src: _lint(d, b"", settings, src))
        return FileResult(findings, cacheable)
    if source is None:
        try:
            source = decode(data)
        except DecodeError as exc:
            return FileResult([simple(display, exc.line, exc.col, IO_ERROR, exc.message)], True)
    lines = source.lines
    if "tilelang" not in source.text:  # the bytes matched inside something else (e.g. UTF-16)
        return FileResult([], True)
    honour = not settings.disable_noqa
    # every noqa helper below looks only at lines holding "noqa": one scan of
    # the text tells whether any does (most files have none)
    noqa_text = honour and "noqa" in source.text.lower()
    wanted = settings.enabled
    known = _known_codes()

    malformed: List[Tuple[int, int, str, str]] = []
    if noqa_text and suppress.MALFORMED_NOQA in wanted:
        malformed = suppress.malformed_noqa(lines, known)
    comments = [(line, col, suppress.MALFORMED_NOQA, msg, advice, _repair_fix(lines, line, known))
                for line, col, msg, advice in malformed]
    if noqa_text and suppress.flake8_skips_file(lines):
        # flake8 checks nothing in this file: neither does the command line,
        # except for the comment warnings.
        return FileResult(_finish(display, source, [], settings, None, comments), True)
    directive = suppress.file_directive(lines) if noqa_text else None
    if directive == suppress.ALL:
        return FileResult([], True)

    source, tree, error = parse(display, data, source)
    if tree is None:
        assert error is not None
        return FileResult([error], True)

    diagnostics = _engine(tree, lines, display, settings)
    diagnostics = [d for d in diagnostics if d.code in wanted]  # TLA000 comes unasked
    if directive is not None:
        diagnostics = [d for d in diagnostics
                       if not suppress.suppressed_by_file_directive(directive, d.code)]

    index = suppress.NoqaIndex(lines)
    used: Dict[suppress.Noqa, Set[str]] = {}
    kept = []
    if noqa_text and suppress.has_noqa(lines):
        spans = _line_spans(tree)
        for d in diagnostics:
            if not _may_have_noqa(d.line, spans, lines):
                kept.append(d)  # no noqa anywhere in its statement: skip tokenizing the file
                continue
            noqa = index.noqa_for(d.line)
            if noqa is not None and noqa.suppresses(d.code):
                used.setdefault(noqa, set()).add(d.code)
            else:
                kept.append(d)
    else:
        kept = list(diagnostics)

    if noqa_text and suppress.UNUSED_NOQA in wanted and suppress.has_noqa(lines):
        malformed_lines = {m[0] for m in malformed}
        for noqa in index.directives():
            if noqa.line in malformed_lines or not index.in_comment(noqa):
                continue  # a `# noqa` in a string is text: never judged nor edited
            codes = suppress.unused_codes(noqa, used.get(noqa, ()))
            if not codes:
                continue
            off = [c for c in codes if not any(w.startswith(c) for w in wanted)]
            note = ""
            if off:
                note = " (%s %s not enabled in this run)" % (
                    ", ".join(off), "is" if len(off) == 1 else "are")
            fix = _unused_fix(lines, noqa, [c for c in codes if c not in off])
            comments.append((noqa.line, noqa.col, suppress.UNUSED_NOQA,
                             "unused `noqa` code%s %s: nothing reports %s on this statement%s" % (
                                 "s" if len(codes) > 1 else "", ", ".join(codes),
                                 "it" if len(codes) == 1 else "them", note),
                             "Remove %s from the comment" % ("it" if len(codes) == 1 else "them"), fix))

    if directive is not None:
        comments = [c for c in comments if not suppress.suppressed_by_file_directive(directive, c[2])]
    findings = _finish(display, source, kept, settings, index, comments)
    cacheable = self_contained(tree) and not any(f.code == "TLA000" for f in findings)
    return FileResult(findings, cacheable)


def _engine(tree, lines, display, settings):
    from .engine import check_tree

    # the pipeline applies (or, with --disable-noqa, skips) the file directive itself
    return check_tree(tree, lines, display, wanted=settings.enabled.__contains__, file_noqa=False,
                      chip=settings.target_chip, target=getattr(settings, "target", None),
                      src=getattr(settings, "src", None))


def _finish(display: str, source: SourceFile, diagnostics, settings: Settings,
            index: Optional[suppress.NoqaIndex], comments) -> List[Finding]:
    """Per-file ignores, then source lines and noqa rows."""
    lines = source.lines
    ignored = settings.per_file_codes(display)
    out = []
    for d in diagnostics:
        if ignored and d.code.startswith(ignored):
            continue
        if index is None:
            index = suppress.NoqaIndex(lines)
        src = source.line_text(d.line)
        out.append(Finding(display, d.line, d.col, d.code, d.message, d.severity, d.end_line, d.end_col,
                           _noqa_row(lines, d.line, index), src, d.help, d.fix,
                           source.line_text(d.end_line) if d.end_line != d.line else ""))
    for line, col, code, msg, advice, fix in comments:
        if code not in settings.enabled or (ignored and code.startswith(ignored)):
            continue
        if index is None:
            index = suppress.NoqaIndex(lines)
        src = source.line_text(line)
        start = byte_index(src, col)
        if fix is not None and "; " in msg:
            msg = msg.rsplit("; ", 1)[0]  # the advice is the fix's title now
        out.append(Finding(display, line, start, code, msg, _default_severity(code) or "error", line,
                           _comment_end(src, start), _noqa_row(lines, line, index), src,
                           advice, fix))
    out.sort(key=lambda f: (f.line, f.col, f.code))
    return out


def _noqa_row(lines: Sequence[str], line: int, index: suppress.NoqaIndex) -> Optional[int]:
    """The last line of the token run flake8 searches for the noqa of
    ``line`` (where a trailing ``# noqa`` works); tokenizes only when the line
    continues (a backslash, a triple-quoted string)."""
    if line < 1 or line > len(lines):
        return None
    text = lines[line - 1]
    if not text.rstrip().endswith("\\") and '"""' not in text and "'''" not in text:
        return line
    return index.range_of(line)[1]


def _comment_end(src: str, col: int) -> int:
    """End of the comment that starts at ``col`` (the rest of the line)."""
    return max(len(src.encode("utf-8", "surrogatepass").rstrip()), col + 1)


def _edit_on_line(lines: Sequence[str], line: int, start: int, end: int, text: str):
    from .diagnostic import Edit

    src = lines[line - 1].rstrip("\r\n")
    return Edit((line, byte_index(src, start)), (line, byte_index(src, end)), text)


def _repair_fix(lines: Sequence[str], line: int, known) -> Optional[Fix]:
    """TLA095's fix: the comment spelt so that flake8 reads what it says."""
    from .diagnostic import SAFE, UNSAFE

    found = suppress.repair_noqa(
        suppress.comment_part(lines[line - 1], suppress.comment_columns(lines).get(line)) or "", known)
    if found is None:
        return None
    start, end, text, safe = found
    return Fix("Write `%s`" % text, [_edit_on_line(lines, line, start, end, text)],
               SAFE if safe else UNSAFE)


def _unused_fix(lines: Sequence[str], noqa: "suppress.Noqa", codes: Sequence[str]) -> Optional[Fix]:
    """TLA096's fix (Ruff's RUF100): the unused codes out of the comment;
    codes of rules not enabled in this run stay."""
    from .diagnostic import SAFE

    if not codes:  # only codes of rules this run does not enable: nothing to take out
        return None
    title = "Remove %s from the `noqa`" % ", ".join(codes)
    found = suppress.remove_noqa_codes(lines[noqa.line - 1], noqa, codes)
    if found is None:
        return None
    start, end, text = found
    src = lines[noqa.line - 1].rstrip("\r\n")
    if not text and not src[:start].strip():  # the comment had its own line: the line goes
        from .diagnostic import Edit

        return Fix(title, [Edit((noqa.line, 0), (noqa.line + 1, 0), "")], SAFE)
    return Fix(title, [_edit_on_line(lines, noqa.line, start, end, text)], SAFE)
