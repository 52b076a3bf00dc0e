"""Jupyter notebooks (``.ipynb``, nbformat 4): the one model every front end
uses, Ruff's way.

- **One program.** The code cells, in order, are concatenated into one
  Python text (a config dict in one cell and the kernel in another are one
  module). Markdown and raw cells are left out; so is a code cell that starts
  with a cell magic that is not Python (``%%bash``, ``%%writefile``, ...).
  After each code cell comes one separator comment line, so edits never
  cross a cell and the text splits back into cells exactly.
- **IPython syntax neutralised.** When a cell does not parse as Python, each
  line magic (``%load_ext``), shell line (``!ls``, ``x = !ls``), help line
  (``obj?``, ``??obj``) and python-ish cell magic line (``%%time``) becomes
  ``pass`` at the same indentation, plus a marker comment: line counts stay,
  no value changes, and the original line is put back when the cell is
  written. ``%time stmt`` runs its statement, as IPython does: it becomes
  ``if 1: stmt`` (as wide as ``%time``, so the statement's columns stay)
  plus the marker comment.
- **Positions.** A finding's virtual line maps to (cell, line in cell); cells
  are numbered by their index in the notebook's ``cells`` array, from 1
  (markdown cells count), like Ruff. ``raw`` is the same place in the
  ``.ipynb`` file itself (line and column of the JSON text), for formats and
  editors that show the file as it is.
- **Writing back.** Only the ``"source"`` values of edited code cells are
  replaced, spliced into the original text: outputs, metadata, execution
  counts, key order, indentation, trailing newline and unicode escaping stay
  byte-identical; the new value is written in the style of the one it
  replaces (a list of lines or one string, its indentation, ``\\uXXXX``
  escapes when the file uses them, the file's line ending).
"""
from __future__ import annotations

import json
import re
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Dict, Iterable, Iterator, List, Optional, Tuple

SUFFIX = ".ipynb"
# the separator after each code cell (a comment: invisible to the engine)
SEPARATOR = "# flake8-tilelang: end of cell %d\n"
# what a neutralised IPython line becomes (the number finds its original)
MARKER = "pass  # flake8-tilelang: IPython line %d"
_MARKED = re.compile(r"^([ \t]*)pass  # flake8-tilelang: IPython line (\d+)[ \t]*$")
# `%time stmt` runs the statement in the user's namespace: it becomes `if 1: stmt` (the same
# width, so every column of the statement stays) plus the marker comment after it
KEPT = "  # flake8-tilelang: IPython line %d"
_TIME_MAGIC = re.compile(r"^([ \t]*)%time([ \t]+)(\S.*?)([ \t]*)$")
_KEPT = re.compile(r"^([ \t]*)if 1:([ \t]+)(.*?)  # flake8-tilelang: IPython line (\d+)(.*)$")
# cell magics whose body is Python (run as is, timed or captured)
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "python", "python3", "ipython",
                                "debug", "pypy"})
MAX_CELLS = 20_000
_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()
_ASSIGN_MAGIC = re.compile(r"^[ \t]*[A-Za-z_][\w.]*(?:[ \t]*,[ \t]*[A-Za-z_][\w.]*)*[ \t]*=[ \t]*[!%]")
_UNICODE_ESCAPE = re.compile(r"\\u(?:00[89a-fA-F]|0[1-9a-fA-F]|[1-9a-fA-F])")


def is_notebook(display: str) -> bool:
    return display.lower().endswith(SUFFIX)


class NotebookError(ValueError):
    """Not a notebook this tool reads: the message says why; ``line`` and
    ``col`` (1-based, 0-based) are where, when known."""

    def __init__(self, message: str, line: int = 0, col: int = 0):
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col


class Cell:
    __slots__ = ("number", "kind", "span", "listed", "text", "pieces", "skipped", "code", "magic",
                 "ended")

    def __init__(self, number: int, kind: str):
        self.number = number  # 1-based index in the cells array
        self.kind = kind
        self.span: Optional[Tuple[int, int]] = None  # the "source" value in the raw text
        self.listed = False  # the source is a JSON list of strings
        self.text = ""  # the source as the user wrote it
        self.pieces: List[Tuple[int, int]] = []  # (offset in text, raw offset of that string's content)
        self.skipped: Optional[str] = None  # why the cell is not analysed
        self.code = ""  # what the engine sees (magics neutralised), ends with a newline
        self.magic: Dict[int, str] = {}  # marker number -> original line (without newline)
        self.ended = False  # the source ends with a newline


# -- reading the JSON, with the place of every source value -------------------

def _ws(s: str, i: int) -> int:
    return _WS.match(s, i).end()  # type: ignore[union-attr]


def _members(s: str, i: int) -> Iterator[Tuple[str, int, int]]:
    """(key, value start, value end) of the object at ``s[i] == '{'``."""
    i = _ws(s, i + 1)
    if s[i] == "}":
        return
    while True:
        key, i = scanstring(s, i + 1)
        i = _ws(s, i)
        i = _ws(s, i + 1)  # past ':'
        _, end = _DECODER.raw_decode(s, i)
        yield key, i, end
        i = _ws(s, end)
        if s[i] != ",":
            return
        i = _ws(s, i + 1)


def _elements(s: str, i: int) -> Iterator[Tuple[int, int]]:
    """(start, end) of each element of the array at ``s[i] == '['``."""
    i = _ws(s, i + 1)
    if s[i] == "]":
        return
    while True:
        _, end = _DECODER.raw_decode(s, i)
        yield i, end
        i = _ws(s, end)
        if s[i] != ",":
            return
        i = _ws(s, i + 1)


def _content_map(s: str, start: int) -> List[int]:
    """For the JSON string at ``s[start] == '"'``: the raw offset of each of
    its decoded characters (and one past the last)."""
    out: List[int] = []
    i = start + 1
    while True:
        c = s[i]
        if c == '"':
            out.append(i)
            return out
        out.append(i)
        if c == "\\":
            if s[i + 1] == "u":
                code = int(s[i + 2:i + 6], 16)
                if 0xD800 <= code < 0xDC00 and s[i + 6:i + 8] == "\\u":
                    i += 12  # a surrogate pair: one character
                else:
                    i += 6
            else:
                i += 2
        else:
            i += 1


class Notebook:
    """A parsed notebook: its cells, the virtual Python text and the maps."""

    def __init__(self, raw: str, bom: bool, cells: List[Cell], newline: str, ascii_only: bool):
        self.raw = raw
        self.bom = bom
        self.cells = cells
        self.newline = newline
        self.ascii_only = ascii_only
        self.code_cells = [c for c in cells if c.kind == "code" and c.skipped is None]
        parts: List[str] = []
        # virtual line (1-based, index 0 unused) -> (cell, line in cell); the
        # separator after a cell is that cell's line count + 1
        self.rows: List[Tuple[int, int]] = [(0, 0)]
        self.first_row: Dict[int, int] = {}
        for cell in self.code_cells:
            self.first_row[cell.number] = len(self.rows)
            n = cell.code.count("\n")
            self.rows.extend((cell.number, k) for k in range(1, n + 1))
            self.rows.append((cell.number, n + 1))
            parts.append(cell.code)
            parts.append(SEPARATOR % cell.number)
        self.text = "".join(parts)
        self.by_number: Dict[int, Cell] = {c.number: c for c in cells}
        self._newlines: Optional[List[int]] = None  # offsets of the raw text's newlines

    # -- positions -------------------------------------------------------------
    def locate(self, line: int) -> Tuple[int, int]:
        """(cell, line in cell) of a virtual line; (0, 0) outside."""
        if 0 < line < len(self.rows):
            return self.rows[line]
        if line >= len(self.rows) and self.code_cells:
            last = self.code_cells[-1]
            return last.number, self.rows[-1][1]
        return 0, 0

    def virtual_line(self, cell: int, line: int) -> int:
        return self.first_row.get(cell, 0) + line - 1 if cell in self.first_row else 0

    def cell_line_text(self, cell: int, line: int) -> str:
        c = self.by_number.get(cell)
        if c is None:
            return ""
        lines = c.text.split("\n")
        return lines[line - 1] if 0 < line <= len(lines) else ""

    def raw_position(self, cell: int, line: int, char_col: int) -> Tuple[int, int]:
        """(1-based line, 1-based column) in the ``.ipynb`` text of a
        character of a cell's source; (1, 1) when unknown."""
        c = self.by_number.get(cell)
        if c is None or c.span is None or not c.pieces:
            return 1, 1
        lines = c.text.split("\n")
        if line < 1 or line > len(lines):
            return 1, 1
        offset = sum(len(x) + 1 for x in lines[:line - 1]) + min(char_col, len(lines[line - 1]))
        start, raw_start = c.pieces[0]
        for text_at, raw_at in c.pieces:
            if text_at <= offset:
                start, raw_start = text_at, raw_at
        chars = _content_map(self.raw, raw_start - 1)
        at = chars[min(offset - start, len(chars) - 1)]
        if self._newlines is None:
            self._newlines = [m.start() for m in re.finditer("\n", self.raw)]
        from bisect import bisect_left

        row = bisect_left(self._newlines, at)  # newlines before `at`
        line_start = self._newlines[row - 1] + 1 if row else 0
        return row + 1, at - line_start + 1

    # -- writing back -----------------------------------------------------------
    def split(self, text: str) -> Dict[int, str]:
        """cell number -> source, from an edited virtual text (IPython lines
        restored). Raises NotebookError when the separators are not all
        there, in order (an edit crossed a cell)."""
        out: Dict[int, str] = {}
        pos = 0
        for cell in self.code_cells:
            sep = SEPARATOR % cell.number
            at = text.find(sep, pos)
            if at < 0 or (at > 0 and text[at - 1] != "\n"):
                raise NotebookError("an edit crossed the end of cell %d" % cell.number)
            body = text[pos:at]
            pos = at + len(sep)
            if cell.magic:
                lines = body.split("\n")
                for k, line in enumerate(lines):
                    m = _MARKED.match(line)
                    if m and int(m.group(2)) in cell.magic:
                        lines[k] = m.group(1) + cell.magic[int(m.group(2))].lstrip(" \t")
                        continue
                    m = _KEPT.match(line)
                    if m and int(m.group(4)) in cell.magic:
                        # the statement as it is now (a fix may have changed it), after its magic;
                        # what an edit appended after the marker (`# noqa: ...`) stays
                        lines[k] = m.group(1) + "%time" + m.group(2) + m.group(3) + m.group(5)
                body = "\n".join(lines)
            if not cell.ended and body.endswith("\n"):
                body = body[:-1]
            out[cell.number] = body
        if text[pos:].strip():
            raise NotebookError("an edit wrote after the last cell")
        return out

    def write(self, sources: Dict[int, str]) -> bytes:
        """The notebook's bytes with the given cell sources; every other byte
        as it was."""
        raw = self.raw
        pieces: List[str] = []
        pos = 0
        for cell in self.cells:
            if cell.number not in sources or cell.span is None or sources[cell.number] == cell.text:
                continue
            a, b = cell.span
            pieces.append(raw[pos:a])
            pieces.append(self._encode_source(cell, sources[cell.number]))
            pos = b
        pieces.append(raw[pos:])
        data = "".join(pieces).encode("utf-8", "surrogatepass")
        return (b"\xef\xbb\xbf" + data) if self.bom else data

    def rebuild(self, text: str) -> bytes:
        """``split`` then ``write``: an edited virtual text to notebook bytes."""
        return self.write(self.split(text))

    def _string(self, text: str) -> str:
        return json.dumps(text, ensure_ascii=self.ascii_only)

    def _encode_source(self, cell: Cell, text: str) -> str:
        assert cell.span is not None
        old = self.raw[cell.span[0]:cell.span[1]]
        if not cell.listed:
            return self._string(text)
        lines = [x + "\n" for x in text.split("\n")]
        lines[-1] = lines[-1][:-1]
        if not lines[-1]:
            lines.pop()
        if not lines:
            return "[]"
        items = [self._string(x) for x in lines]
        if "\n" not in old:
            return "[" + ", ".join(items) + "]"
        if old.strip("[] \t\r\n"):
            first = _ws(old, 1)
            item_indent = old[old.rfind("\n", 0, first) + 1:first]
            close = old.rstrip()
            close_at = len(close) - 1
            close_indent = old[old.rfind("\n", 0, close_at) + 1:close_at]
        else:  # an empty multi-line list: one level below the "source" key
            line_start = self.raw.rfind("\n", 0, cell.span[0]) + 1
            key_line = self.raw[line_start:cell.span[0]]
            close_indent = key_line[:len(key_line) - len(key_line.lstrip(" \t"))]
            item_indent = close_indent + (self._unit())
        nl = self.newline
        return "[" + nl + item_indent + ("," + nl + item_indent).join(items) + nl + close_indent + "]"

    def _unit(self) -> str:
        m = re.match(r"\{\r?\n([ \t]+)", self.raw)
        return m.group(1) if m else " "


def _neutralise(cell: Cell, counter: List[int]) -> None:
    """Fill ``cell.code`` (and ``cell.skipped`` for a non-Python cell magic)."""
    import ast

    text = cell.text
    lines = text.split("\n")
    first = lines[0].lstrip() if lines else ""
    if first.startswith("%%"):
        name = first[2:].split(None, 1)[0] if first[2:].strip() else ""
        if name not in PYTHON_CELL_MAGICS:
            cell.skipped = "the cell magic %%%%%s is not Python" % name
            return
    try:
        ast.parse(text)
        parses = True
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        parses = False
    if not parses:
        for k, line in enumerate(lines):
            stripped = line.lstrip(" \t")
            timed = _TIME_MAGIC.match(line)
            if timed and _one_simple_statement(timed.group(3)):
                counter[0] += 1
                cell.magic[counter[0]] = line
                lines[k] = timed.group(1) + "if 1:" + timed.group(2) + timed.group(3) + KEPT % counter[0] \
                    + timed.group(4)  # trailing blanks kept (after the marker) for the write-back
                continue
            if (stripped.startswith(("%", "!", "?")) or _ASSIGN_MAGIC.match(line)
                    or (stripped.endswith("?") and not stripped.startswith("#")
                        and re.match(r"^[\w.\[\]'\"()]+\?\??$", stripped.rstrip()))):
                counter[0] += 1
                cell.magic[counter[0]] = line
                lines[k] = line[:len(line) - len(stripped)] + MARKER % counter[0]
    code = "\n".join(lines)
    cell.code = code if code.endswith("\n") else code + "\n"


def _one_simple_statement(text: str) -> bool:
    """Whether ``text`` is one simple statement (`k = compile(...)`,
    `f(x)`), which ``if 1:`` can carry on its line."""
    import ast

    try:
        body = ast.parse(text).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    compound = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.FunctionDef,
                ast.AsyncFunctionDef, ast.ClassDef) + ((ast.Match,) if hasattr(ast, "Match") else ())
    return len(body) == 1 and not isinstance(body[0], compound)


def parse(data: bytes) -> Notebook:
    """The notebook in ``data``; NotebookError (with a message for the user)
    when it is not valid JSON, not nbformat 4, or too large a structure."""
    bom = data.startswith(b"\xef\xbb\xbf")
    try:
        raw = data[3:].decode("utf-8") if bom else data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise NotebookError("not a notebook: the file is not UTF-8 (%s)" % exc.reason, line)
    try:
        doc = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise NotebookError("not a notebook: invalid JSON: %s" % exc.msg, exc.lineno, exc.colno - 1)
    except (RecursionError, MemoryError, ValueError) as exc:
        raise NotebookError("not a notebook: cannot read the JSON (%s)" % type(exc).__name__)
    if not isinstance(doc, dict) or "nbformat" not in doc and not isinstance(doc.get("cells"), list):
        raise NotebookError("not a notebook: the JSON has no `cells` list (nbformat 4)", 1)
    version = doc.get("nbformat")
    if version == 4 and not isinstance(doc.get("cells"), list):
        raise NotebookError("not a notebook: the JSON has no `cells` list (nbformat 4)", 1)
    if version != 4:
        raise NotebookError("not analysed: nbformat %s; only nbformat 4 notebooks are read (convert it "
                            "with `jupyter nbconvert --to notebook`)" % (
                                version if isinstance(version, int) else "unknown"), 1)
    if len(doc["cells"]) > MAX_CELLS:
        raise NotebookError("not analysed: %d cells, above the %d-cell limit" % (len(doc["cells"]), MAX_CELLS), 1)
    cells: List[Cell] = []
    try:
        start = _ws(raw, 0)
        for key, a, _ in _members(raw, start):
            if key != "cells":
                continue
            cells = []
            for n, (ca, _) in enumerate(_elements(raw, a), 1):
                cells.append(_cell(raw, n, ca))
    except (ValueError, IndexError, RecursionError) as exc:  # cannot happen after json.loads
        raise NotebookError("not a notebook: cannot locate its cells (%s)" % type(exc).__name__)
    counter = [0]
    for cell in cells:
        if cell.kind == "code" and cell.skipped is None:
            _neutralise(cell, counter)
    newline = "\r\n" if "\r\n" in raw else "\n"
    ascii_only = raw.isascii() and bool(_UNICODE_ESCAPE.search(raw))
    return Notebook(raw, bom, cells, newline, ascii_only)


def _cell(raw: str, number: int, at: int) -> Cell:
    if raw[at] != "{":
        cell = Cell(number, "?")
        cell.skipped = "not a cell object"
        return cell
    kind = "?"
    span = None
    for key, a, b in _members(raw, at):
        if key == "cell_type":
            value = json.loads(raw[a:b])
            kind = value if isinstance(value, str) else "?"
        elif key == "source":
            span = (a, b)
    cell = Cell(number, kind)
    if kind != "code":
        return cell
    if span is None:
        cell.skipped = "a code cell without a source"
        return cell
    cell.span = span
    a, b = span
    if raw[a] == "[":
        cell.listed = True
        parts: List[str] = []
        offset = 0
        for ea, eb in _elements(raw, a):
            value = json.loads(raw[ea:eb])
            if not isinstance(value, str):
                cell.skipped = "its source is not text"
                return cell
            cell.pieces.append((offset, ea + 1))
            parts.append(value)
            offset += len(value)
        cell.text = "".join(parts)
    elif raw[a] == '"':
        cell.text = json.loads(raw[a:b])
        cell.pieces.append((0, a + 1))
    else:
        cell.skipped = "its source is not text"
        return cell
    if "\r" in cell.text:
        cell.skipped = "its source has carriage returns"  # never rewritten with other line ends
    cell.ended = cell.text.endswith("\n")
    return cell


# -- findings ------------------------------------------------------------------

def map_findings(nb: Notebook, findings: Iterable) -> List:
    """Virtual-line findings to cell-relative ones (``cell`` set, ``raw`` the
    place in the ``.ipynb`` file); their fix edits too."""
    from .diagnostic import Edit, Fix
    from .source import char_index

    out = []
    for f in findings:
        if f.line < 1:
            out.append(f)
            continue
        cell, line = nb.locate(f.line)
        end_cell, end_line = nb.locate(f.end_line)
        end_col = f.end_col
        last = nb.by_number[cell].code.count("\n")
        if end_cell != cell or end_line > last:  # ends on the separator: the end of the cell's last line
            end_line = max(line, last)
            end_col = len(nb.cell_line_text(cell, end_line).encode("utf-8", "surrogatepass"))
        src = nb.cell_line_text(cell, line)
        end_src = nb.cell_line_text(cell, end_line) if end_line != line else ""
        fix = f.fix
        if fix is not None:
            edits = []
            for e in fix.edits:
                (c1, l1), (c2, l2) = nb.locate(e.start[0]), nb.locate(e.end[0])
                if c2 != c1:
                    l2, end = l1 + 1, 0
                else:
                    end = e.end[1]
                edits.append(Edit((l1, e.start[1]), (l2, end), e.text, e.path, None if e.path else c1))
            fix = Fix(relabel(nb, fix.title), edits, fix.applicability)
        noqa = nb.locate(f.noqa_row)[1] if f.noqa_row else None
        start = nb.raw_position(cell, line, char_index(src, f.col))
        end = nb.raw_position(cell, end_line, char_index(end_src or src, end_col))
        out.append(f._replace(message=relabel(nb, f.message), help=relabel(nb, f.help),
                              line=line, end_line=end_line, end_col=end_col, source=src, end_source=end_src,
                              noqa_row=noqa, fix=fix, cell=cell, raw=(start[0], start[1], end[0], end[1])))
    return out


_LINE_REF = re.compile(r"\bline (\d+)\b")


def relabel(nb: Notebook, text):
    """``line 28`` in a message (a line of the linted file: other files are
    ``path:28``) becomes ``cell 6, line 1``."""
    if not text or "line " not in text:
        return text

    def cell_line(m: "re.Match[str]") -> str:
        cell, line = nb.locate(int(m.group(1)))
        return "cell %d, line %d" % (cell, line) if cell else m.group()

    return _LINE_REF.sub(cell_line, text)


def program(display: str, data: bytes):
    """(notebook, its joined code cells as a SourceFile, their tree, None), or
    Nones and the E902 / E999 finding (an E999 names its cell)."""
    from .pipeline import parse as parse_python
    from .source import SourceFile

    try:
        nb = parse(data)
    except NotebookError as exc:
        return None, None, None, error_finding(display, exc)
    source = SourceFile.from_text(nb.text)
    _, tree, error = parse_python(display, b"", source=source)
    if error is not None:
        cell, line = nb.locate(error.line)
        error = error._replace(message="cell %d, line %d: %s" % (cell, line, relabel(nb, error.message)))
        return None, None, None, error
    return nb, source, tree, None


def error_finding(display: str, exc: NotebookError):
    from .pipeline import simple
    from .settings import IO_ERROR

    return simple(display, exc.line, exc.col, IO_ERROR, exc.message)


def lint(display: str, data: bytes, settings, lint_virtual) -> "Tuple[List, bool]":
    """(findings, cacheable) of a notebook; ``lint_virtual(display, source)``
    is the pipeline run on the virtual Python text."""
    from .source import SourceFile

    try:
        nb = parse(data)
    except NotebookError as exc:
        return [error_finding(display, exc)], True
    if not nb.code_cells or "tilelang" not in nb.text:
        return [], True
    result = lint_virtual(display, SourceFile.from_text(nb.text))
    return map_findings(nb, result.findings), result.cacheable


def fix_notebook(display: str, data: bytes, settings, unsafe: bool):
    """``fixes.fix_file`` for a notebook: the same passes on the virtual
    text; the result is written back into the edited cells only. A result
    that cannot be split back into its cells is not applied."""
    from .fixes import MAX_ITERATIONS, Failed, FixResult, _gone, one_pass
    from .pipeline import lint_source
    from .source import SourceFile

    def run(source: SourceFile) -> List:
        return lint_source(display, b"", settings, source=source).findings

    try:
        nb = parse(data)
    except NotebookError as exc:
        return FixResult(data, [], [error_finding(display, exc)], [], 0)
    source = SourceFile.from_text(nb.text)
    findings = run(source) if "tilelang" in nb.text else []
    original = list(findings)
    fixed: List = []
    failed: List = []
    broken: set = set()
    iterations = 0
    while iterations < MAX_ITERATIONS:
        text, done, bad = one_pass(source, findings, unsafe, broken)
        failed.extend(bad)
        if text is None:
            break
        try:
            nb.split(text)
        except NotebookError as exc:
            failed.extend(Failed(f, str(exc)) for f in done)
            break
        iterations += 1
        fixed.extend(done)
        source = SourceFile.from_text(text)
        findings = run(source)
    if iterations > 1:
        fixed = _gone(original, findings)
    new = nb.rebuild(source.text) if iterations else data
    failed = [Failed(map_findings(nb, [x.finding])[0], x.reason) for x in failed]
    after = parse(new) if iterations else nb  # the remaining findings are on the new cells
    return FixResult(new, map_findings(nb, fixed), map_findings(after, findings), failed, iterations)


def virtual_findings(nb: Notebook, findings: Iterable) -> List:
    """The inverse of ``map_findings`` for the line only (``--add-noqa``)."""
    out = []
    for f in findings:
        cell = getattr(f, "cell", None)
        if cell and f.line > 0:
            line = nb.virtual_line(cell, f.line)
            if line:
                out.append(f._replace(line=line, end_line=line, cell=None))
    return out


def add_noqa_notebook(data: bytes, findings: Iterable) -> Tuple[Optional[bytes], int]:
    """``--add-noqa`` in a notebook: the comments go into the cells' sources
    (the lines flake8 would read, as in a file); (new bytes or None, count)."""
    from .noqa_add import add_noqa
    from .source import SourceFile

    nb = parse(data)
    text, n, _ = add_noqa(SourceFile.from_text(nb.text), virtual_findings(nb, findings))
    if text is None:
        return None, 0
    return nb.rebuild(text), n


def document_findings(findings: Iterable, document) -> List:
    """Notebook findings placed on the ``.ipynb`` text itself (an editor that
    opened the notebook as a JSON text document): line and byte columns of
    ``raw``, the cell and cell line in front of the message, no fix (its
    edits are cell source, not JSON). ``cell`` stays set, so no front end
    offers a ``# noqa`` edit on the JSON line."""
    from .source import byte_index

    out = []
    for f in findings:
        raw = getattr(f, "raw", None)
        if not getattr(f, "cell", None) or raw is None:
            out.append(f)
            continue
        start, end = document.line_text(raw[0]), document.line_text(raw[2])
        out.append(f._replace(
            line=raw[0], col=byte_index(start, raw[1] - 1), end_line=raw[2], end_col=byte_index(end, raw[3] - 1),
            message="cell %d, line %d: %s" % (f.cell, f.line, f.message), noqa_row=None, source=start,
            end_source=end if raw[2] != raw[0] else "", help=f.advice, fix=None))
    return out


def cell_diff(display: str, before: bytes, after: bytes) -> str:
    """``--diff`` of a notebook: a unified diff per changed code cell, with
    ``nb.ipynb:cell N`` as the file names (Ruff's way)."""
    import difflib

    try:
        old, new = parse(before), parse(after)
    except NotebookError:
        return ""
    newer = new.by_number
    out: List[str] = []
    for cell in old.cells:
        other = newer.get(cell.number)
        if cell.kind != "code" or other is None or other.text == cell.text:
            continue
        name = "%s:cell %d" % (display, cell.number)
        for line in difflib.unified_diff(cell.text.splitlines(keepends=True), other.text.splitlines(keepends=True),
                                         fromfile=name, tofile=name):
            out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def position_text(f) -> str:
    """``cell 3:5:9`` / ``5:9``: the place a text format prints."""
    cell = getattr(f, "cell", None)
    return ("cell %d:%d:%d" % (cell, f.line, f.char_col)) if cell else "%d:%d" % (f.line, f.char_col)


__all__ = ["Notebook", "NotebookError", "is_notebook", "parse", "map_findings", "lint", "cell_diff",
           "virtual_findings", "SUFFIX"]
