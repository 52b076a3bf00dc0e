"""A linted file's text as the front ends need it: the original bytes, the
decoded text, the encoding, BOM and line endings, and every conversion
between the column units in use, in one place:

- byte columns: 0-based UTF-8 byte offsets into a line (``ast``, flake8,
  ``Diagnostic``);
- character columns: code points (our JSON, SARIF ``unicodeCodePoints``,
  GitHub annotations, ``full`` output);
- UTF-16 code units (the Language Server Protocol's default).
"""
from __future__ import annotations

from typing import List, Sequence

BOM = b"\xef\xbb\xbf"


class DecodeError(Exception):
    """The bytes are not text in the declared encoding: ``line``, ``col``
    (byte column) and a message for E902."""

    def __init__(self, line: int, col: int, message: str):
        super().__init__(message)
        self.line = line
        self.col = col
        self.message = message


class SourceFile:
    """``text`` has ``\\n`` line ends; ``newline`` is the file's first line
    ending (what an edit should write), ``lines`` keep their ``\\n``."""

    __slots__ = ("raw", "text", "encoding", "bom", "newline", "lines")

    def __init__(self, raw: bytes, text: str, encoding: str, bom: bool, newline: str):
        self.raw = raw
        self.text = text
        self.encoding = encoding
        self.bom = bom
        self.newline = newline
        self.lines = split_lines(text)

    @classmethod
    def from_text(cls, text: str) -> "SourceFile":
        """An editor buffer or a test string (UTF-8, no BOM)."""
        newline = _first_newline(text)
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        return cls(text.encode("utf-8", "surrogatepass"), text, "utf-8", False, newline)

    # -- lines and columns -------------------------------------------------
    def line_text(self, line: int) -> str:
        """The physical line without its newline ("" outside the file)."""
        return self.lines[line - 1].rstrip("\n") if 0 < line <= len(self.lines) else ""

    def char_col(self, line: int, byte_col: int) -> int:
        return char_index(self.line_text(line), byte_col)

    def byte_col(self, line: int, char_col: int) -> int:
        return byte_index(self.line_text(line), char_col)

    def utf16_col(self, line: int, byte_col: int) -> int:
        text = self.line_text(line)
        chars = char_index(text, byte_col)
        if text.isascii():
            return chars
        return len(text[:chars].encode("utf-16-le")) // 2

    def byte_col_from_utf16(self, line: int, units: int) -> int:
        text = self.line_text(line)
        if text.isascii():
            return min(units, len(text))
        encoded = text.encode("utf-16-le", "surrogatepass")[:2 * units]
        return len(encoded.decode("utf-16-le", "ignore").encode("utf-8", "surrogatepass"))

    def offset(self, line: int, byte_col: int) -> int:
        """Index into ``text`` of a (line, byte column) position; a position
        past the end of the file is its end."""
        if line > len(self.lines):
            return len(self.text)
        start = sum(len(x) for x in self.lines[:line - 1])
        return start + self.char_col(line, byte_col)

    def encode(self, text: str) -> bytes:
        """``text`` (``\\n`` line ends) back to bytes with this file's
        encoding, BOM and line ending (what --fix writes)."""
        if self.newline != "\n":
            text = text.replace("\n", self.newline)
        data = text.encode(self.encoding if self.encoding != "utf-8-sig" else "utf-8", "surrogateescape")
        return (BOM + data) if self.bom else data


def char_index(text: str, byte_col: int) -> int:
    if byte_col <= 0:
        return 0
    if text.isascii():
        return byte_col
    return len(text.encode("utf-8", "surrogatepass")[:byte_col].decode("utf-8", "ignore"))


def byte_index(text: str, char_col: int) -> int:
    return char_col if text.isascii() else len(text[:char_col].encode("utf-8", "surrogatepass"))


def split_lines(text: str) -> List[str]:
    lines = text.split("\n")
    out = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out


def _first_newline(text: str) -> str:
    at = text.find("\n")
    cr = text.find("\r")
    if cr >= 0 and (at < 0 or cr < at):
        return "\r\n" if text[cr + 1:cr + 2] == "\n" else "\r"
    return "\n"


def decode(data: bytes) -> SourceFile:
    """The file's text, like Python reads a source file: a BOM or a PEP 263
    cookie decides the encoding (UTF-8 otherwise). Raises DecodeError."""
    head = data[:400]
    encoding = "utf-8"
    bom = data.startswith(BOM)
    if bom:
        encoding = "utf-8-sig"
    elif b"coding" in head:
        import io
        import tokenize

        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        except SyntaxError as exc:  # an unknown or inconsistent coding cookie
            raise DecodeError(1, 0, "SyntaxError: %s" % exc)
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        start = getattr(exc, "start", 0)
        line = data.count(b"\n", 0, start) + 1
        col = start - (data.rfind(b"\n", 0, start) + 1)
        raise DecodeError(line, col, "%s: %s (the file is not valid %s; convert it or declare its "
                                     "encoding in a `# -*- coding: ... -*-` line)" % (
                                         type(exc).__name__, exc, encoding))
    newline = _first_newline(text)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return SourceFile(data, text, encoding, bom, newline)


def from_lines(lines: Sequence[str]) -> SourceFile:
    """What flake8 hands a plugin (already decoded lines)."""
    return SourceFile.from_text("".join(lines))
