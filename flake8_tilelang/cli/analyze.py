"""Check one file's bytes: decode, parse, run the engine, apply suppressions.

Runs in worker processes too, so everything here takes and returns plain,
picklable data. The engine is the one the flake8 plugin runs; this adds what
flake8 itself does around a plugin (decoding, E999, ``# noqa``,
``# flake8: noqa``) with flake8's exact semantics, plus the file directive,
per-file ignores, TLA095 and TLA096.
"""
from __future__ import annotations

import ast
import os
import sys
from typing import Dict, Iterator, List, NamedTuple, Optional, Sequence, Set, Tuple

from .. import suppress
from ..settings import IO_ERROR, SYNTAX_ERROR, Settings

STRICT_ENV = "FLAKE8_TILELANG_STRICT"
MARKER = b"tilelang"


class Finding(NamedTuple):
    path: str  # as displayed (flake8's spelling of the path)
    line: int
    col: int  # 0-based, UTF-8 bytes of the line, exactly what flake8 gets
    code: str
    message: str
    severity: str
    end_line: int
    end_col: int  # 0-based, exclusive
    noqa_row: Optional[int]
    source: str  # the physical line without its newline ("" when unknown)

    @property
    def char_col(self) -> int:
        """1-based column in characters (what JSON, SARIF and GitHub want)."""
        return _char_index(self.source, self.col) + 1

    @property
    def char_end_col(self) -> int:
        if self.end_line != self.line:
            return self.char_col
        return _char_index(self.source, self.end_col) + 1


def _char_index(text: str, byte_col: int) -> int:
    if byte_col <= 0:
        return 0
    if text.isascii():
        return byte_col
    return len(text.encode("utf-8")[:byte_col].decode("utf-8", "ignore"))


def _byte_index(text: str, char_col: int) -> int:
    return char_col if text.isascii() else len(text[:char_col].encode("utf-8"))


class FileResult(NamedTuple):
    findings: List[Finding]
    cacheable: bool


def simple(path: str, line: int, col: int, code: str, message: str, severity: str = "error",
           source: str = "") -> Finding:
    return Finding(path, line, col, code, message, severity, line, col + 1,
                   line if line > 0 else None, source)


def decode(data: bytes) -> Tuple[Optional[str], Optional[Tuple[int, int, str]]]:
    """(text with ``\\n`` line ends, None) or (None, (line, col, message))."""
    head = data[:400]
    encoding = "utf-8"
    if data.startswith(b"\xef\xbb\xbf"):
        encoding = "utf-8-sig"
    elif b"coding" in head:
        import io
        import tokenize

        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        except SyntaxError as exc:  # an unknown or inconsistent coding cookie
            return None, (1, 0, "SyntaxError: %s" % exc)
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        start = getattr(exc, "start", 0)
        line = data.count(b"\n", 0, start) + 1
        col = start - (data.rfind(b"\n", 0, start) + 1)
        return None, (line, col, "%s: %s (the file is not valid %s; convert it or declare its "
                                 "encoding in a `# -*- coding: ... -*-` line)" % (
                                     type(exc).__name__, exc, encoding))
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text, None


def split_lines(text: str) -> List[str]:
    lines = text.split("\n")
    out = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out


# Imports that can never make a file's result depend on another file of the
# project (the cross-module model only follows the user's own modules).
_SAFE_ROOTS = frozenset({
    "tilelang", "tvm", "torch", "torch_npu", "numpy", "scipy", "triton", "jax", "jaxlib",
    "tensorflow", "pandas", "sympy", "transformers", "vllm", "cupy", "numba", "mindspore",
    "pytest", "hypothesis", "setuptools", "pkg_resources", "typing_extensions", "einops",
    "__future__",
})


def _safe_roots() -> frozenset:
    stdlib = frozenset(getattr(sys, "stdlib_module_names", ())) | frozenset(sys.builtin_module_names)
    try:
        from ..model import crossmod  # the model's own deny list, when it has one

        deny = frozenset(getattr(crossmod, "DENY_ROOTS", _SAFE_ROOTS)) | {"__future__"}
    except ImportError:
        deny = _SAFE_ROOTS
    if not stdlib:  # Python 3.9: no sys.stdlib_module_names; stay conservative
        stdlib = frozenset({"os", "sys", "math", "functools", "itertools", "typing", "dataclasses",
                            "collections", "enum", "re", "time", "argparse", "logging"})
    return (deny & _SAFE_ROOTS) | stdlib


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
    return any("noqa" in lines[n - 1].lower() for n in range(first, min(last, len(lines)) + 1))


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
        from ..settings import known_rules

        _RULE_SEVERITY.update((r.code, r.severity) for r in known_rules())
    return _RULE_SEVERITY


def _known_codes() -> Tuple[str, ...]:
    return tuple(_rule_table())


def _severity(code: str) -> str:
    return _rule_table().get(code, "error")


def analyze(display: str, data: bytes, settings: Settings) -> FileResult:
    """Every finding for one file, never raising (unless strict mode)."""
    try:
        return _analyze(display, data, settings)
    except (Exception, RecursionError) as exc:  # noqa: B902 - one bad file never ends the run
        if os.environ.get(STRICT_ENV) == "1":
            raise
        detail = str(exc).splitlines()[0][:120] if str(exc) else ""
        return FileResult([simple(
            display, 1, 0, "TLA000",
            "flake8-tilelang internal error in the command line: %s%s; please report it with "
            "this file" % (type(exc).__name__, ": " + detail if detail else ""))], False)


def _analyze(display: str, data: bytes, settings: Settings) -> FileResult:
    if MARKER not in data:
        return FileResult([], True)
    text, error = decode(data)
    if text is None:
        assert error is not None
        line, col, message = error
        return FileResult([simple(display, line, col, IO_ERROR, message)], True)
    lines = split_lines(text)
    if "tilelang" not in text:  # the bytes matched inside something else (e.g. UTF-16)
        return FileResult([], True)
    honour = not settings.disable_noqa
    wanted = settings.enabled
    known = _known_codes()

    malformed: List[Tuple[int, int, str]] = []
    if honour and suppress.MALFORMED_NOQA in wanted:
        malformed = suppress.malformed_noqa(lines, known)
    if honour and suppress.flake8_skips_file(lines):
        # flake8 checks nothing in this file: neither does the command line,
        # except for the comment warnings.
        return FileResult(_finish(display, lines, None, [], malformed, settings, None), True)
    directive = suppress.file_directive(lines) if honour else None
    if directive == suppress.ALL:
        return FileResult([], True)

    try:
        tree = ast.parse(text, display)
    except SyntaxError as exc:
        line = exc.lineno or 1
        col = max((exc.offset or 1) - 1, 0)
        src = lines[line - 1].rstrip("\n") if 0 < line <= len(lines) else ""
        col = _byte_index(src, col)
        found = simple(display, line, col, SYNTAX_ERROR, "SyntaxError: %s" % exc.msg, source=src)
        return FileResult([found], True)
    except (ValueError, RecursionError, MemoryError) as exc:  # null bytes, nesting too deep
        return FileResult([simple(display, 1, 0, SYNTAX_ERROR, "%s: %s" % (
            type(exc).__name__, str(exc).splitlines()[0] if str(exc) else "cannot parse"))], True)

    diagnostics = _engine(tree, lines, display, settings)
    diagnostics = [d for d in diagnostics if d.code in wanted]  # TLA000 comes unasked
    if directive is not None:
        diagnostics = [d for d in diagnostics
                       if not suppress.suppressed_by_file_directive(directive, d.code)]

    index = suppress.NoqaIndex(lines)
    used: Dict[suppress.Noqa, Set[str]] = {}
    kept = []
    if honour and suppress.has_noqa(lines):
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

    unused: List[Tuple[int, int, str]] = []
    if honour and suppress.UNUSED_NOQA in wanted and suppress.has_noqa(lines):
        malformed_lines = {m[0] for m in malformed}
        for noqa in index.directives():
            if noqa.line in malformed_lines:
                continue
            codes = suppress.unused_codes(noqa, used.get(noqa, ()))
            if not codes:
                continue
            off = [c for c in codes if not any(w.startswith(c) for w in wanted)]
            note = ""
            if off:
                note = " (%s %s not enabled in this run)" % (
                    ", ".join(off), "is" if len(off) == 1 else "are")
            unused.append((noqa.line, noqa.col, "unused `noqa` code%s %s: nothing reports %s on "
                           "this statement%s; remove %s from the comment" % (
                               "s" if len(codes) > 1 else "", ", ".join(codes),
                               "it" if len(codes) == 1 else "them", note,
                               "it" if len(codes) == 1 else "them")))

    comment_findings = [(line, col, suppress.MALFORMED_NOQA, msg) for line, col, msg in malformed]
    comment_findings += [(line, col, suppress.UNUSED_NOQA, msg) for line, col, msg in unused]
    if directive is not None:
        comment_findings = [c for c in comment_findings
                            if not suppress.suppressed_by_file_directive(directive, c[2])]
    findings = _finish(display, lines, tree, kept, [], settings, index,
                       comment_findings=comment_findings)
    cacheable = self_contained(tree) and not any(f.code == "TLA000" for f in findings)
    return FileResult(findings, cacheable)


def _engine(tree, lines, display, settings):
    from ..engine import check_tree

    # the command line applies (or, with --disable-noqa, skips) the file directive itself
    return check_tree(tree, lines, display, wanted=settings.enabled.__contains__, file_noqa=False)


def _finish(display: str, lines: Sequence[str], tree, diagnostics, malformed, settings: Settings,
            index: Optional[suppress.NoqaIndex], comment_findings=None) -> List[Finding]:
    """Per-file ignores, then positions, source lines and noqa rows."""
    items = [(d.line, d.col, d.code, d.flake8_text(_severity(d.code))[len(d.code) + 1:], d.severity)
             for d in diagnostics]
    for line, col, msg in malformed:
        if suppress.MALFORMED_NOQA in settings.enabled:
            items.append((line, _byte_index(_src(lines, line), col), suppress.MALFORMED_NOQA, msg,
                          _severity(suppress.MALFORMED_NOQA)))
    for line, col, code, msg in comment_findings or ():
        items.append((line, _byte_index(_src(lines, line), col), code, msg, _severity(code)))
    ignored = settings.per_file_codes(display)
    if ignored:
        items = [i for i in items if not i[2].startswith(ignored)]
    if not items:
        return []
    if index is None:
        index = suppress.NoqaIndex(lines)
    ends = _ends(tree, {(i[0], i[1]) for i in items}) if tree is not None else {}
    out = []
    for line, col, code, message, severity in items:
        src = _src(lines, line)
        end = ends.get((line, col))
        if end is None:
            end = (line, _code_end(src, col))
        out.append(Finding(display, line, col, code, message, severity, end[0], end[1],
                           _noqa_row(lines, line, index), src))
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


def _src(lines: Sequence[str], line: int) -> str:
    return lines[line - 1].rstrip("\n") if 0 < line <= len(lines) else ""


def _code_end(src: str, col: int) -> int:
    """End of the code on a line (before a trailing comment), at least col+1."""
    raw = src.encode("utf-8")
    text = raw.rstrip()
    hash_at = src.find("#")
    if hash_at >= 0:  # good enough for an underline; a '#' in a string only shortens it
        cut = _byte_index(src, hash_at)
        if cut > col:
            text = raw[:cut].rstrip()
    return max(len(text), col + 1)


def _ends(tree: ast.Module, wanted: Set[Tuple[int, int]]) -> Dict[Tuple[int, int], Tuple[int, int]]:
    """For each (line, col): the end of the widest node starting there that
    fits on that line (a compound statement ends with its header). Only the
    innermost statements around the wanted lines are walked."""
    lines = {line for line, _ in wanted}
    roots = []
    for stmt in _innermost(tree.body, lines):
        roots.append(stmt)
    out: Dict[Tuple[int, int], Tuple[int, int]] = {}
    for root in roots:
        for node in _walk_shallow(root):
            line = getattr(node, "lineno", None)
            if line is None or (line, node.col_offset) not in wanted:
                continue
            end = _node_end(node)
            if end is None or end[0] != line:
                continue
            key = (line, node.col_offset)
            if key not in out or end[1] > out[key][1]:
                out[key] = end
    return out


_BODY_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")


def _innermost(body, lines: Set[int]) -> "Iterator[ast.AST]":
    for stmt in body:
        first = getattr(stmt, "lineno", None)
        if first is None:  # a match_case: only its body has positions
            yield from _innermost(getattr(stmt, "body", []), lines)
            continue
        last = getattr(stmt, "end_lineno", None) or first
        if not any(first <= n <= last for n in lines):
            continue
        yield stmt  # its own header (walked without its nested statement bodies)
        for name in _BODY_FIELDS:
            inner = getattr(stmt, name, None)
            if inner:
                yield from _innermost(inner, lines)


def _walk_shallow(node: ast.AST) -> "Iterator[ast.AST]":
    """The node and its sub-nodes, not descending into nested statement
    bodies (those are visited as statements of their own)."""
    todo = [node]
    while todo:
        current = todo.pop()
        yield current
        for name, value in ast.iter_fields(current):
            if current is node and name in _BODY_FIELDS:
                continue
            if isinstance(value, list):
                todo.extend(v for v in value if isinstance(v, ast.AST) and not isinstance(v, ast.stmt))
            elif isinstance(value, ast.AST) and not isinstance(value, ast.stmt):
                todo.append(value)


def _node_end(node: ast.AST) -> Optional[Tuple[int, int]]:
    end_line = getattr(node, "end_lineno", None)
    end_col = getattr(node, "end_col_offset", None)
    if end_line is None or end_col is None:
        return None
    if end_line == node.lineno:  # type: ignore[attr-defined]
        return end_line, end_col
    header = None
    if isinstance(node, (ast.With, ast.AsyncWith)) and node.items:
        last = node.items[-1]
        header = last.optional_vars or last.context_expr
    elif isinstance(node, (ast.For, ast.AsyncFor)):
        header = node.iter
    elif isinstance(node, (ast.If, ast.While)):
        header = node.test
    if header is not None:
        return _node_end(header) if header.end_lineno != header.lineno else (  # type: ignore[attr-defined]
            header.end_lineno, header.end_col_offset)  # type: ignore[attr-defined]
    return None
