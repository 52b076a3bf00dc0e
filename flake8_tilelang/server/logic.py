"""What the language server computes, without any LSP library: positions in
the negotiated encoding, the edits of fixes and ``# noqa`` actions, and the
hover texts. Plain tuples in and out, so the unit tests need no server.

Positions here are LSP's: (0-based line, column in the negotiated unit:
UTF-8 bytes or UTF-16 code units). The checker's own positions are (1-based
line, 0-based UTF-8 byte column); ``Codec`` converts between the two through
``SourceFile``.
"""
from __future__ import annotations

import os
import re
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from ..diagnostic import SAFE, UNSAFE, Edit, Fix
from ..source import SourceFile

UTF8 = "utf-8"
UTF16 = "utf-16"

LspPos = Tuple[int, int]
# (start, end, new text) in LSP positions
TextEdit = Tuple[LspPos, LspPos, str]

SEVERITY = {"error": 1, "warning": 2, "info": 3}  # DiagnosticSeverity: Error, Warning, Information



def choose_encoding(offered: Optional[Iterable[str]]) -> str:
    """UTF-8 when the client offers it (no conversion at all: the checker's
    columns are UTF-8 bytes), else UTF-16, which every client must support."""
    return UTF8 if offered and UTF8 in list(offered) else UTF16


class Codec:
    """Converts the checker's (line, byte column) to LSP positions and back."""

    def __init__(self, encoding: str = UTF16):
        self.encoding = encoding

    def to_lsp(self, src: SourceFile, line: int, byte_col: int) -> LspPos:
        if line < 1:
            return (0, 0)
        if line > len(src.lines):
            return (len(src.lines), 0)
        byte_col = max(0, min(byte_col, len(src.line_text(line).encode("utf-8", "surrogatepass"))))
        if self.encoding == UTF8:
            return (line - 1, byte_col)
        return (line - 1, src.utf16_col(line, byte_col))

    def from_lsp(self, src: SourceFile, pos: LspPos) -> Tuple[int, int]:
        line = pos[0] + 1
        if self.encoding == UTF8:
            return (line, max(0, min(pos[1], len(src.line_text(line).encode("utf-8", "surrogatepass")))))
        return (line, src.byte_col_from_utf16(line, max(0, pos[1])))

    def finding_range(self, src: SourceFile, f) -> Tuple[LspPos, LspPos]:
        start = self.to_lsp(src, f.line, f.col)
        end = self.to_lsp(src, f.end_line, f.end_col)
        if end < start:
            end = start
        return start, end


def contains(rng: Tuple[LspPos, LspPos], pos: LspPos) -> bool:
    start, end = rng
    return start <= pos <= end


def overlaps(a: Tuple[LspPos, LspPos], b: Tuple[LspPos, LspPos]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


# -- fixes ---------------------------------------------------------------------

def applicable(fix: Optional[Fix], unsafe_fixes: bool) -> bool:
    """Whether a fix is offered: safe ones always, unsafe ones only when the
    client enables them, display-only ones never."""
    if fix is None or not fix.edits:
        return False
    return fix.applicability == SAFE or (unsafe_fixes and fix.applicability == UNSAFE)


def fix_changes(fixes: Sequence[Fix], own_path: str, load: Callable[[str], Optional[SourceFile]],
                codec: Codec) -> Dict[str, List[TextEdit]]:
    """{path: [TextEdit, ...]} for ``fixes`` applied together: a fix whose
    edits overlap an edit already taken is left out (apply the rest, lint
    again, fix again), like ``check --fix`` does in one pass. ``load(path)``
    gives the current text of a file (an open buffer or the disk)."""
    taken: Dict[str, List[Tuple[Tuple[int, int], Tuple[int, int]]]] = {}
    out: Dict[str, List[TextEdit]] = {}
    sources: Dict[str, Optional[SourceFile]] = {}
    for fix in fixes:
        edits = [(os.path.abspath(e.path) if e.path else own_path, e) for e in fix.edits]
        if any(_clashes(taken.get(p, ()), e) for p, e in edits):
            continue
        converted = []
        for path, e in edits:
            if path not in sources:
                sources[path] = load(path)
            src = sources[path]
            if src is None:
                break
            converted.append((path, (codec.to_lsp(src, *e.start), codec.to_lsp(src, *e.end), e.text)))
        else:
            for (path, e), (_, edit) in zip(edits, converted):
                taken.setdefault(path, []).append((e.start, e.end))
                out.setdefault(path, []).append(edit)
    for edits in out.values():
        edits.sort(key=lambda t: (t[0], t[1]))
    return out


def _clashes(spans, edit: Edit) -> bool:
    return spans_clash(spans, edit.start, edit.end)


def spans_clash(spans, start, end) -> bool:
    """Whether ``[start, end)`` overlaps one of ``spans`` (two insertions at
    one place clash too)."""
    for a, b in spans:
        if start < b and a < end:
            return True
        if start == end == a == b:
            return True
    return False


def fix_all(findings: Sequence, unsafe_fixes: bool = False) -> List[Fix]:
    """The fixes "fix all" applies: safe ones (and unsafe ones when enabled),
    in the order of the file."""
    return [f.fix for f in findings if applicable(f.fix, unsafe_fixes)]


# -- "disable TLAxxx for this line" -------------------------------------------

def noqa_edit(src: SourceFile, finding) -> Optional[Tuple[int, int, int, str]]:
    """(line, start byte col, end byte col, text) that makes flake8 (and the
    command line) silence ``finding``: the same edit ``check --add-noqa``
    makes (its code merged into the ``# noqa:`` flake8 already reads for that
    statement, or ``  # noqa: CODE`` on a line of the statement where flake8
    reads it). None when nothing can or needs to be done."""
    from ..noqa_add import add_noqa

    text, _, _ = add_noqa(src, [finding])
    if text is None:
        return None
    new = text.split("\n")
    for n, old in enumerate(src.lines, 1):
        body = old.rstrip("\n")
        if new[n - 1] != body:  # the one line add_noqa changed
            return (n, 0, len(body.encode("utf-8", "surrogatepass")), new[n - 1])
    return None


# -- hover ----------------------------------------------------------------------

_NOQA_COMMENT = re.compile(r"#\s*(?:flake8(?:[-_]tilelang)?\s*[:=]\s*)?noqa\b", re.I)
_CODE = re.compile(r"[A-Za-z]+[0-9]+")


def noqa_code_at(line_text: str, char: int, known: Sequence[str]) -> Optional[Tuple[int, int, List[str]]]:
    """The code (or code prefix) under character ``char`` of a ``# noqa``
    comment: (start char, end char, the known codes it names)."""
    m = _NOQA_COMMENT.search(line_text)
    if m is None:
        return None
    for token in _CODE.finditer(line_text, m.end()):
        if token.start() <= char <= token.end():
            word = token.group(0).upper()
            codes = [c for c in known if c == word] or [c for c in known if c.startswith(word)]
            if not codes:
                return None
            return token.start(), token.end(), codes
    return None


def rule_link(code: str, docs_url: Optional[str] = None) -> str:
    """Where the rule's whole page is: its URL when a docs URL is known
    (the ``docs-url`` template), else the command that prints it."""
    from ..output import rule_url

    url = rule_url(code, docs_url)
    if url:
        return "[%s documentation](%s)" % (code, url)
    return "Full page: `flake8-tilelang rule %s`" % code


def rule_summary(rule) -> str:
    return "**%s** `%s` (%s): %s" % (rule.code, rule.name, rule.severity, rule.summary.strip())


def rule_docs(codes: Sequence[str], limit: int = 6, docs_url: Optional[str] = None) -> str:
    """Short Markdown for ``codes`` (a prefix may name many): each rule's
    code, name, severity and summary with a link to its page; past
    ``limit``, the rest by name."""
    from ..settings import known_rules

    rules = {r.code: r for r in known_rules()}
    shown = [rules[c] for c in codes if c in rules]
    parts = ["%s\n\n%s" % (rule_summary(r), rule_link(r.code, docs_url)) for r in shown[:limit]]
    rest = shown[limit:]
    if rest:
        parts.append("Also: " + ", ".join("%s %s" % (r.code, r.name) for r in rest))
    return "\n\n---\n\n".join(parts)


_SWITCH_SET = re.compile(r"`?(TL_ASCEND_[A-Z_]+)`? is (on|off|unknown)(?: \(([^()]*)\))?")


def diagnostic_hover(findings: Sequence, rule_of: Callable[[str], object] = None,
                     docs_url: Optional[str] = None) -> str:
    """Per finding: the rule (code, name, severity, summary), the finding,
    the switch it is about and where it is set, the fix (or the advice), and
    a link to the rule's page -- not the whole page."""
    parts = []
    for f in findings:
        rule = rule_of(f.code) if rule_of is not None else None
        if rule is not None:
            head = rule_summary(rule)
        else:
            head = "**%s** (%s)" % (f.code, f.severity)
        lines = [head, "", f.message]
        switches = []
        for m in _SWITCH_SET.finditer(f.message):
            where = (", " + m.group(3)) if m.group(3) else ""
            text = "`%s` is %s%s" % (m.group(1), m.group(2), where)
            if text not in switches:
                switches.append(text)
        if switches:
            lines += ["", "**Switch:** " + "; ".join(switches)]
        if f.fix is not None:
            kind = {"safe": "fix", "unsafe": "unsafe fix"}.get(f.fix.applicability, "suggested fix")
            lines += ["", "**Fix** (%s): %s" % (kind, f.fix.title)]
        elif f.help:
            lines += ["", "**Fix:** %s" % f.help]
        lines += ["", rule_link(f.code, docs_url)]
        parts.append("\n".join(lines))
    return "\n\n---\n\n".join(parts)


def config_hover(tree, filename: str, line: int, byte_col: int) -> Optional[Tuple[Tuple[int, int, int, int], str]]:
    """Hover text for a ``pass_configs`` switch at (line, byte col): on a key
    of a config that reaches a kernel, where its value comes from ("set at
    ..."); on the ``pass_configs=`` argument (or decorator, or PassContext)
    of a compile site, the state of every Ascend switch and where it is set.
    Returns ((line, col, end line, end col), markdown) or None. Uses only the
    model's public attributes and never raises (a hover is not worth an
    error)."""
    try:
        return _config_hover(tree, filename, line, byte_col)
    except Exception:  # noqa: B902 - the model is being rewritten; a hover must never fail
        return None


def _span(node) -> Optional[Tuple[int, int, int, int]]:
    try:
        return (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
    except AttributeError:
        return None


def _inside(span, line: int, col: int) -> bool:
    return span is not None and (span[0], span[1]) <= (line, col) <= (span[2], span[3])


def _config_hover(tree, filename, line, byte_col):
    from ..model import build_model

    return config_lookup(config_table(build_model(tree, filename), tree, filename), filename, line, byte_col)


# A row of the switch-hover table: (kind "key" / "origin", absolute path of
# the file the span is in, (line, col, end line, end col), text, kernel name).
# Plain tuples: the server's worker computes the table with the lint and
# sends it over a pipe; a key of a dict that lives in another module gets a
# row for that module, so hovering there works while the kernel is open.
ConfigRow = Tuple[str, str, Tuple[int, int, int, int], str, str]


def config_table(model, tree, filename: str) -> List[ConfigRow]:
    """Every switch key (wherever its dict lives) and every compile site's
    ``pass_configs=`` of this file's kernels, with their hover text. Uses only
    the model's public attributes."""
    from .. import constants as C
    import ast

    here = os.path.abspath(filename)
    # `pass_configs=CFG`: the keyword's name shows the same as its value
    # (only the compile sites are walked: this runs after every lint)
    keyword_of = {}
    for site in getattr(model, "sites", ()):
        site = getattr(site, "site", site)  # the model's Site wraps the CompileSite
        for node in (getattr(site, "node", None), getattr(site, "pass_context", None)):
            if isinstance(node, ast.AST):
                keyword_of.update((id(k.value), k) for k in ast.walk(node)
                                  if isinstance(k, ast.keyword) and k.arg)
    rows: List[ConfigRow] = []
    seen = set()
    for kernel in getattr(model, "kernels", ()):
        name = getattr(kernel, "display_name", None) or getattr(kernel, "name", "kernel")
        for config in getattr(kernel, "configs", ()):
            for key, entry in getattr(config, "entries", {}).items():
                span = _span(getattr(entry, "node", None))
                if span is None:
                    continue
                path = os.path.abspath(getattr(entry, "filename", "") or filename)
                rows.append(("key", path, span, config.describe(key), name))
            origin = getattr(config, "origin", None)
            span = _span(keyword_of.get(id(origin), origin))
            if span is not None and (id(config), name) not in seen:
                seen.add((id(config), name))
                lines = ["- %s" % config.describe(key) for key in C.SWITCHES]
                rows.append(("origin", here, span, "**pass_configs of `%s`**\n\n%s" % (name, "\n".join(lines)),
                             name))
    return rows


def config_lookup(rows: Sequence[ConfigRow], filename: str, line: int, byte_col: int):
    """The hover at (line, byte col) of ``filename`` from table rows (of this
    file's lint and of the open files whose kernels use its dicts):
    ((line, col, end line, end col), markdown) or None."""
    here = os.path.abspath(filename)
    key_texts: Dict[str, List[str]] = {}
    key_span = None
    origin_texts: List[str] = []
    origin_span = None
    for kind, path, span, text, name in rows:
        if path != here or not _inside(span, line, byte_col):
            continue
        if kind == "key":
            key_span = span
            key_texts.setdefault(text, []).append(name)
        else:
            if origin_span is None or (span[0], span[1]) >= (origin_span[0], origin_span[1]):
                origin_span = span
            origin_texts.append(text)
    if key_texts:
        rows_out = []
        for text, names in key_texts.items():
            shown = list(dict.fromkeys(names))
            kernels = ", ".join("`%s`" % n for n in shown)
            rows_out.append("- %s (kernel%s %s)" % (text, "s" if len(shown) > 1 else "", kernels))
        return key_span, "**pass_configs switch**\n\n" + "\n".join(rows_out)
    if origin_texts:
        return origin_span, "\n\n".join(dict.fromkeys(origin_texts))
    return None


# -- no flicker while the file does not parse ------------------------------------

def carry_over(old: SourceFile, new: SourceFile, findings: Sequence) -> List:
    """The findings of the last version that parsed, moved onto ``new``: a
    finding above the edited lines keeps its place, one below moves by the
    number of lines added or removed, one that touches the edited lines is
    dropped. Fixes are dropped too (their edits are positions in ``old``)."""
    a, b = old.lines, new.lines
    limit = min(len(a), len(b))
    top = 0
    while top < limit and a[top] == b[top]:
        top += 1
    bottom = 0
    while bottom < limit - top and a[len(a) - 1 - bottom] == b[len(b) - 1 - bottom]:
        bottom += 1
    first_tail = len(a) - bottom + 1  # 1-based: lines of `old` from here on are unchanged
    delta = len(b) - len(a)
    out = []
    for f in findings:
        last = max(f.line, f.end_line)
        if last <= top:
            out.append(f._replace(fix=None))
        elif f.line >= first_tail:
            out.append(f._replace(line=f.line + delta, end_line=f.end_line + delta, fix=None,
                                  noqa_row=None if f.noqa_row is None else f.noqa_row + delta))
    return out
