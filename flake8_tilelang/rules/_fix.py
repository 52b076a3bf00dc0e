"""Building the edits of a rule's fix from the ast nodes the model hands out.

The model keeps no source text, so the engine makes the file's tree and
lines available here while the rules run (:func:`context`); every helper
returns ``None`` when no safe mechanical edit exists (the rule then reports
the advice without edits). Positions are ``ast``'s: 1-based lines, 0-based
UTF-8 byte columns.
"""
from __future__ import annotations

import ast
import contextlib
from typing import Dict, Iterator, List, Optional, Sequence, Set

from ..diagnostic import DISPLAY_ONLY, SAFE, UNSAFE, Edit, Fix  # noqa: F401 - re-exported

_BLOCKS = ("body", "orelse", "finalbody")


class FixContext:
    def __init__(self, tree: Optional[ast.Module], lines: Sequence[str], filename: str):
        self.tree = tree
        self._raw = lines
        self.filename = filename
        self._parents: Optional[Dict[int, List[ast.stmt]]] = None
        self._in_string: Optional[Set[int]] = None
        self._exprs: Optional[Dict[int, ast.Expr]] = None
        self._assigns: Optional[Dict[int, ast.stmt]] = None
        self._dict_keys: Optional[Dict[int, ast.Dict]] = None
        self.memo: Dict[str, object] = {}

    def line(self, n: int) -> str:
        """Physical line ``n`` without its line end ("" outside the file)."""
        return self._raw[n - 1].rstrip("\r\n") if 0 < n <= len(self._raw) else ""

    def _index(self) -> None:
        """One walk over the statements (never the expressions): the block
        of every statement, and every expression statement by its value."""
        self._parents, self._exprs, self._assigns = {}, {}, {}
        stack = [self.tree.body] if self.tree is not None else []
        while stack:
            block = stack.pop()
            for stmt in block:
                self._parents[id(stmt)] = block
                if isinstance(stmt, ast.Expr):
                    self._exprs[id(stmt.value)] = stmt
                elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
                    self._assigns[id(stmt.value)] = stmt
                for name in _BLOCKS:
                    inner = getattr(stmt, name, None)
                    if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                        stack.append(inner)
                for handler in getattr(stmt, "handlers", ()) or ():
                    stack.append(handler.body)
                for case in getattr(stmt, "cases", ()) or ():
                    stack.append(case.body)

    def block_of(self, stmt: ast.stmt) -> Optional[List[ast.stmt]]:
        """The statement list that holds ``stmt``."""
        if self._parents is None:
            self._index()
        return self._parents.get(id(stmt))  # type: ignore[union-attr]

    def statement_of(self, node: ast.AST) -> Optional[ast.stmt]:
        """The expression statement whose value is exactly ``node``."""
        if self._exprs is None:
            self._index()
        return self._exprs.get(id(node))  # type: ignore[union-attr]

    def assignment_of(self, node: ast.AST) -> Optional[ast.stmt]:
        """The assignment whose value is exactly ``node`` (``buf = T.alloc_L0A(...)``)."""
        if self._assigns is None:
            self._index()
        return self._assigns.get(id(node))  # type: ignore[union-attr]

    def dict_of_key(self, key: ast.AST) -> Optional[ast.Dict]:
        """The dict display that holds ``key`` as one of its keys."""
        if self._dict_keys is None:
            self._dict_keys = {}
            for node in ast.walk(self.tree) if self.tree is not None else ():
                if isinstance(node, ast.Dict):
                    for k in node.keys:
                        if k is not None:
                            self._dict_keys[id(k)] = node
        return self._dict_keys.get(id(key))

    def string_lines(self) -> Set[int]:
        """Lines that begin inside a multi-line string (never re-indented)."""
        if self._in_string is None:
            import io
            import tokenize  # here: most runs never need it (flake8 has it loaded anyway)

            self._in_string = set()
            text = "\n".join(line.rstrip("\r\n") for line in self._raw) + "\n"
            try:
                for tok in tokenize.generate_tokens(io.StringIO(text).readline):
                    kind = tok.type
                    if kind == tokenize.STRING or getattr(tokenize, "FSTRING_MIDDLE", -1) == kind \
                            or getattr(tokenize, "FSTRING_START", -1) == kind:
                        for n in range(tok.start[0] + 1, tok.end[0] + 1):
                            self._in_string.add(n)
            except (tokenize.TokenError, SyntaxError, IndentationError):
                pass
        return self._in_string


_CURRENT: List[FixContext] = []


@contextlib.contextmanager
def context(tree, lines: Sequence[str], filename: str) -> Iterator[None]:
    _CURRENT.append(FixContext(tree, lines, filename))
    try:
        yield
    finally:
        _CURRENT.pop()


def current() -> Optional[FixContext]:
    return _CURRENT[-1] if _CURRENT else None


def _indent(text: str) -> str:
    return text[:len(text) - len(text.lstrip(" \t"))]


def _blen(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _only_comment_after(ctx: FixContext, line: int, byte_col: int) -> bool:
    rest = ctx.line(line).encode("utf-8", "surrogatepass")[byte_col:].decode("utf-8", "replace").strip()
    return not rest or rest.startswith("#")


# -- deleting a statement ---------------------------------------------------------

def delete_statement(stmt: ast.stmt) -> Optional[List[Edit]]:
    """Delete a simple statement that has its lines to itself (with its
    trailing comment); a lone statement of its block becomes ``pass``."""
    ctx = current()
    if ctx is None:
        return None
    block = ctx.block_of(stmt)
    if block is None:
        return None
    first, last = stmt.lineno, stmt.end_lineno or stmt.lineno
    before = ctx.line(first).encode("utf-8", "surrogatepass")[:stmt.col_offset]
    if before.strip() or not _only_comment_after(ctx, last, stmt.end_col_offset or 0):
        return None  # shares its line with another statement (`a(); b()`, `if x: b()`)
    if ctx.line(first - 1).rstrip().endswith("\\"):
        return None
    if len(block) == 1:
        return [Edit((first, stmt.col_offset), (last, stmt.end_col_offset or 0), "pass")]
    comment = _kept_comment(ctx, last, stmt.end_col_offset or 0)
    if comment:  # `T.barrier_all()  # why`: the comment stays, on its own line
        return [Edit((first, 0), (last + 1, 0), _indent(ctx.line(first)) + comment + "\n")]
    return [Edit((first, 0), (last + 1, 0), "")]


def _kept_comment(ctx: FixContext, line: int, byte_col: int) -> str:
    """The comment after a deleted statement, without its noqa (which named
    the deleted statement's codes)."""
    import re

    rest = ctx.line(line).encode("utf-8", "surrogatepass")[byte_col:].decode("utf-8", "surrogatepass").strip()
    if not rest.startswith("#"):
        return ""
    if "noqa" in rest.lower():  # the pattern needs the word: no compile without it
        rest = re.sub(r"#\s*noqa(?::[\s]?(?:[A-Z]+[0-9]+(?:[,\s]+)?)+)?", "", rest, flags=re.I).strip()
    rest = rest.lstrip("#").strip()
    return "# " + rest if rest else ""


# -- unwrapping a with block ------------------------------------------------------

def unwrap_with(with_stmt: ast.With) -> Optional[List[Edit]]:
    """Delete the header of a one-item ``with`` (no ``as``) and dedent its
    body; lines inside multi-line strings are left as they are; a comment
    after the header's colon is kept on a line of its own."""
    ctx = current()
    if ctx is None or not isinstance(with_stmt, ast.With) or len(with_stmt.items) != 1:
        return None
    if with_stmt.items[0].optional_vars is not None or not with_stmt.body:
        return None
    item = with_stmt.items[0].context_expr
    head_line = with_stmt.lineno
    body_first = with_stmt.body[0].lineno
    # the header's colon: the first ':' after the item, outside comments
    colon_line, colon_col = None, None
    line, col = item.end_lineno or head_line, item.end_col_offset or 0
    while line < body_first:
        raw = ctx.line(line).encode("utf-8", "surrogatepass")
        rest = raw[col:]
        stripped = rest.lstrip(b" \t)")
        if stripped.startswith(b":"):
            colon_line, colon_col = line, len(raw) - len(stripped)
            break
        if stripped and not stripped.startswith((b"#", b"\\")):
            return None
        line, col = line + 1, 0
    if colon_line is None or colon_line >= body_first:
        return None  # `with T.Scope("V"): x()` on one line
    raw = ctx.line(colon_line).encode("utf-8", "surrogatepass")
    comment = raw[colon_col + 1:].strip().decode("utf-8", "surrogatepass")
    if comment and not comment.startswith("#"):
        return None
    outer = _indent(ctx.line(head_line))
    if ctx.line(head_line).encode("utf-8", "surrogatepass")[:with_stmt.col_offset].strip():
        return None
    inner = _indent(ctx.line(body_first))
    if not inner.startswith(outer) or len(inner) <= len(outer):
        return None
    extra = len(inner) - len(outer)
    edits = [Edit((head_line, 0), (colon_line + 1, 0), outer + comment + "\n" if comment else "")]
    last = with_stmt.body[-1].end_lineno or with_stmt.body[-1].lineno
    # only a triple quote or a backslash at a line's end can make a string span lines:
    # tokenize the file (the costly part, also for the flake8 plugin) only then
    region = [ctx.line(n) for n in range(colon_line + 1, last + 1)]
    if any('"""' in t or "'''" in t or t.rstrip("\r\n").endswith("\\") for t in region):
        strings = ctx.string_lines()
    else:
        strings = set()
    for n in range(colon_line + 1, last + 1):
        if n in strings:
            continue
        text = ctx.line(n)
        ws = _indent(text)
        if not text.strip():
            continue
        if ws.startswith(inner):
            edits.append(Edit((n, len(outer)), (n, len(outer) + extra), ""))
        elif ws.startswith(outer) and len(ws) > len(outer):
            # a comment or a continuation line indented less than the body
            cut = min(extra, len(ws) - len(outer))
            edits.append(Edit((n, len(outer)), (n, len(outer) + cut), ""))
    return edits


# -- replacing an expression --------------------------------------------------------

def replace_node(node: ast.AST, text: str) -> Optional[List[Edit]]:
    if not hasattr(node, "end_lineno") or node.end_lineno is None:  # type: ignore[attr-defined]
        return None
    return [Edit((node.lineno, node.col_offset),  # type: ignore[attr-defined]
                 (node.end_lineno, node.end_col_offset), text)]  # type: ignore[attr-defined]


def replace_string(node: ast.AST, value: str) -> Optional[List[Edit]]:
    """Replace a plain string literal, keeping its quote character."""
    ctx = current()
    if ctx is None or not isinstance(node, ast.Constant) or not isinstance(node.value, str):
        return None
    if node.lineno != node.end_lineno:
        return None
    raw = ctx.line(node.lineno).encode("utf-8", "surrogatepass")[node.col_offset:node.end_col_offset]
    quote = raw[:1].decode("ascii", "replace")
    if quote not in ("'", '"') or raw[:3] in (b'"""', b"'''") or quote in value or "\\" in value:
        return None
    return replace_node(node, quote + value + quote)


def replace_attr_name(node: ast.AST, name: str) -> Optional[List[Edit]]:
    """``PassConfigKey.TYPO`` -> ``PassConfigKey.NAME`` (only the member)."""
    if not isinstance(node, ast.Attribute) or node.end_lineno is None:
        return None
    end = node.end_col_offset or 0
    return [Edit((node.end_lineno, end - len(node.attr)), (node.end_lineno, end), name)]


# -- deleting a dict entry ------------------------------------------------------------

def delete_dict_entry(key: ast.AST) -> Optional[List[Edit]]:
    """Delete ``key: value,`` from the dict display that holds ``key``: the
    whole lines when the entry has its lines to itself, else the entry and
    its comma."""
    ctx = current()
    if ctx is None or ctx.tree is None:
        return None
    node = ctx.dict_of_key(key)
    if node is None:
        return None
    i = next(i for i, k in enumerate(node.keys) if k is key)
    value = node.values[i]
    first, col = key.lineno, key.col_offset  # type: ignore[attr-defined]
    last, end = value.end_lineno or value.lineno, value.end_col_offset or 0
    tail = ctx.line(last).encode("utf-8", "surrogatepass")[end:]
    after = tail.lstrip(b" \t")
    comma = after.startswith(b",")
    rest = after[1:].strip() if comma else after.strip()
    head = ctx.line(first).encode("utf-8", "surrogatepass")[:col]
    own_lines = not head.strip() and (not rest or rest.startswith(b"#"))
    if own_lines and len(node.keys) > 1:
        return [Edit((first, 0), (last + 1, 0), "")]
    if len(node.keys) == 1:
        stop = end + (len(tail) - len(after) + 1 if comma else 0)
        return [Edit((first, col), (last, stop), "")]
    if comma:
        # `{a: 1, key: 2, b: 3}`: the entry, its comma and the space after it
        stop = end + (len(tail) - len(after)) + 1
        stop += len(after[1:]) - len(after[1:].lstrip(b" "))
        return [Edit((first, col), (last, stop), "")]
    # the last entry without a trailing comma: take the comma before it
    prev = node.values[i - 1]
    return [Edit((prev.end_lineno, prev.end_col_offset), (last, end), "")]  # type: ignore[arg-type]


def fix(title: str, edits: Optional[List[Edit]], applicability: str) -> Fix:
    """A Fix, display-only when no edit could be built."""
    return Fix(title, edits or (), applicability if edits else DISPLAY_ONLY)
