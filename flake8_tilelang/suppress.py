"""Suppression comments, read exactly as flake8 7.x reads them.

- ``# noqa`` / ``# noqa: TLA001,TLA00``: flake8's own regex and matching (a
  code is suppressed by equality or by prefix), looked up in the text of the
  token run around the reported line, as flake8's ``FileProcessor`` builds it
  (a multi-line string or a backslash continuation shares one comment; lines
  inside brackets do not).
- ``# flake8: noqa``: flake8 skips the whole file (also with codes after it).
- ``# flake8-tilelang: noqa`` / ``# flake8-tilelang: noqa: TLA001,TLA002``:
  this checker's own file-level directive, honoured by the flake8 plugin and
  the command line alike (:func:`file_directive`, :func:`apply_file_directive`).

The command line also lints these comments: TLA095 (a TLA noqa flake8 reads
differently from what it says) and TLA096 (a TLA code in a noqa that silences
nothing). Importing this module costs only ``re``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple, Union

# flake8/defaults.py NOQA_INLINE_REGEXP and NOQA_FILE, verbatim.
NOQA_INLINE_REGEX = re.compile(
    r"# noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?",
    re.IGNORECASE,
)
NOQA_FILE = re.compile(r"\s*# flake8[:=]\s*noqa", re.I)
_SEPARATOR = re.compile(r"[,\s]")  # flake8.utils.parse_comma_separated_list

MALFORMED_NOQA = "TLA095"
UNUSED_NOQA = "TLA096"

# ``# flake8-tilelang: noqa`` (own line), optionally ``: TLA001, TLA00``,
# optionally followed by another comment.
_FILE_DIRECTIVE_ANY = re.compile(r"#\s*flake8[-_]tilelang\s*[:=]?\s*noqa", re.I)
_FILE_DIRECTIVE = re.compile(
    r"^\s*#\s*flake8-tilelang:\s*noqa"
    r"(?:\s*:\s*(?P<codes>TLA[0-9]{0,3}(?:\s*[,\s]\s*TLA[0-9]{0,3})*))?"
    r"\s*,?\s*(?:#.*)?$",
    re.I,
)
_TLA_CODE = re.compile(r"^TLA[0-9]{0,3}$")

FileDirective = Union[None, str, FrozenSet[str]]
ALL = "all"


def parse_codes(codes: str) -> List[str]:
    """flake8's ``parse_comma_separated_list``."""
    return [c.strip() for c in _SEPARATOR.split(codes) if c.strip()]


# -- the file-level directive -------------------------------------------------

def file_directive(lines: Sequence[str]) -> FileDirective:
    """The ``# flake8-tilelang: noqa`` directive of a file.

    None: no directive; ``"all"``: every TLA code is off for the file; else the
    frozenset of codes and prefixes (``TLA001``, ``TLA00``) it turns off.
    The directive must be a comment on its own line; several directives add
    up. A malformed one (``# flake8-tilelang: noqa: tla001``, ``: TLA-1``,
    after code on the same line) is ignored here and reported as TLA095 by the
    command line.
    """
    codes: set = set()
    for line in lines:
        if "noqa" not in line.lower() or not _FILE_DIRECTIVE_ANY.search(line):
            continue
        m = _FILE_DIRECTIVE.match(line)
        if m is None:
            continue
        if m.group("codes") is None:
            return ALL
        listed = parse_codes(m.group("codes"))
        if not all(c.isupper() for c in listed):  # codes are case-sensitive
            continue
        if "TLA" in listed:
            return ALL
        codes.update(listed)
    return frozenset(codes) if codes else None


def suppressed_by_file_directive(directive: FileDirective, code: str) -> bool:
    if directive is None or not code.startswith("TLA"):
        return False
    if directive == ALL:
        return True
    return code.startswith(tuple(directive))


def apply_file_directive(diagnostics: Iterable, lines: Sequence[str]) -> list:
    """Drop the diagnostics (anything with ``.code``) the file directive turns
    off. This is the one call the engine / flake8 plugin needs."""
    diagnostics = list(diagnostics)
    if not diagnostics:
        return diagnostics
    directive = file_directive(lines)
    if directive is None:
        return diagnostics
    return [d for d in diagnostics if not suppressed_by_file_directive(directive, d.code)]


def flake8_skips_file(lines: Sequence[str]) -> bool:
    """``# flake8: noqa`` at the start of a line: flake8 checks nothing in the
    file (codes after it do not narrow it)."""
    return any(NOQA_FILE.match(line) for line in lines if "noqa" in line.lower())


# -- inline noqa --------------------------------------------------------------

@dataclass(frozen=True)
class Noqa:
    """The ``# noqa`` comment flake8 finds for a range of lines."""

    line: int  # physical line of the comment
    col: int  # 0-based character column of its ``#``
    codes: Optional[Tuple[str, ...]]  # None: blanket

    def suppresses(self, code: str) -> bool:
        # violation.Violation.is_inline_ignored
        return self.codes is None or code in self.codes or code.startswith(self.codes)


def logical_ranges(lines: Sequence[str]) -> Dict[int, Tuple[int, int]]:
    """line -> (first, last) of the token run flake8 searches for its noqa
    (``FileProcessor._noqa_line_mapping``); {} when the file does not tokenize,
    as in flake8 (each line then stands alone)."""
    import tokenize

    line_iter = iter(lines)
    try:
        tokens = list(tokenize.generate_tokens(lambda: next(line_iter)))
    except (tokenize.TokenError, SyntaxError):
        return {}
    ret: Dict[int, Tuple[int, int]] = {}
    sentinel = len(lines) + 2
    min_line, max_line = sentinel, -1
    for tok in tokens:
        tp = tok.type
        if tok.start[0] > len(lines):
            break
        if tp == tokenize.ENDMARKER or tp == tokenize.DEDENT:
            continue
        min_line = min(min_line, tok.start[0])
        max_line = max(max_line, tok.end[0])
        if tp in (tokenize.NL, tokenize.NEWLINE):
            for n in range(min_line, max_line + 1):
                ret[n] = (min_line, max_line)
            min_line, max_line = sentinel, -1
    return ret


def has_noqa(lines: Sequence[str]) -> bool:
    return any("noqa" in line.lower() for line in lines)


def comment_columns(lines: Sequence[str]) -> Dict[int, int]:
    """Line -> the column where its comment token starts. Only these are
    ever edited or judged (a `# noqa` inside a string or docstring is text;
    Ruff's RUF100 works on comment tokens too). A file that does not
    tokenize has no comments we trust. Read-only: the last file's answer is
    kept (the malformed-noqa check, each of its repairs and the unused-noqa
    check ask for the same file: it is tokenized once)."""
    global _LAST_COMMENTS
    key = tuple(lines)
    last = _LAST_COMMENTS  # one read: another thread may replace it
    if last is not None and last[0] == key:
        return last[1]
    import io
    import tokenize

    out: Dict[int, int] = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO("".join(lines)).readline):
            if tok.type == tokenize.COMMENT:
                out[tok.start[0]] = tok.start[1]
    except (tokenize.TokenError, SyntaxError, IndentationError, ValueError):
        out = {}
    _LAST_COMMENTS = (key, out)
    return out


_LAST_COMMENTS: Optional[Tuple[Tuple[str, ...], Dict[int, int]]] = None  # the last file's lines, its answer


def comment_part(line: str, col: Optional[int]) -> Optional[str]:
    """``line`` with everything before the comment at ``col`` masked (same
    columns, no ``#`` left in code or strings), or None without a comment."""
    if col is None:
        return None
    return re.sub(r"\S", "x", line[:col]) + line[col:]


class NoqaIndex:
    """Where flake8 looks for the noqa of each line, built lazily."""

    def __init__(self, lines: Sequence[str]):
        self.lines = lines
        self._ranges: Optional[Dict[int, Tuple[int, int]]] = None
        self._cache: Dict[Tuple[int, int], Optional[Noqa]] = {}
        self._comments: Optional[Dict[int, int]] = None

    def in_comment(self, noqa: Noqa) -> bool:
        """The noqa is written in a comment token (not in a string)."""
        if self._comments is None:
            self._comments = comment_columns(self.lines)
        col = self._comments.get(noqa.line)
        return col is not None and noqa.col >= col

    @property
    def ranges(self) -> Dict[int, Tuple[int, int]]:
        if self._ranges is None:
            self._ranges = logical_ranges(self.lines)
        return self._ranges

    def range_of(self, line: int) -> Tuple[int, int]:
        return self.ranges.get(line, (line, line))

    def noqa_for(self, line: int) -> Optional[Noqa]:
        span = self.range_of(line)
        if span not in self._cache:
            self._cache[span] = self._find(span)
        return self._cache[span]

    def _find(self, span: Tuple[int, int]) -> Optional[Noqa]:
        first, last = span
        if first < 1 or first > len(self.lines):
            return None
        text = "".join(self.lines[first - 1:last])
        m = NOQA_INLINE_REGEX.search(text)
        if m is None:
            return None
        before = text[:m.start()]
        line = first + before.count("\n")
        col = m.start() - (before.rfind("\n") + 1)
        codes = m.group("codes")
        return Noqa(line, col, None if codes is None else tuple(parse_codes(codes)))

    def directives(self) -> List[Noqa]:
        """Every effective noqa of the file (the first one of each range)."""
        out = []
        seen = set()
        for n, line in enumerate(self.lines, 1):
            if "noqa" not in line.lower():
                continue
            span = self.range_of(n)
            if span in seen:
                continue
            seen.add(span)
            found = self.noqa_for(n)
            if found is not None:
                out.append(found)
        return out


# -- linting the comments themselves (TLA095) ---------------------------------

_LOOSE_NOQA = re.compile(r"#\s*noqa\b", re.I)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")


def _tla_word(text: str) -> Optional[str]:
    m = re.match(r"[\s:,]*([A-Za-z][A-Za-z0-9_-]*)", text)
    if m and m.group(1).upper().startswith("TLA"):
        return m.group(1)
    return None


def _suggest(word: str) -> str:
    digits = re.sub(r"[^0-9]", "", word)
    return "TLA" + digits if digits else "TLA001"


def malformed_noqa(lines: Sequence[str], known_codes: Iterable[str]) -> List[Tuple[int, int, str, str]]:
    """(line, 0-based char column, message, help) for each TLA suppression
    comment that flake8 reads differently from what it says."""
    known = tuple(known_codes)
    out: List[Tuple[int, int, str, str]] = []
    comments: Optional[Dict[int, int]] = None
    for n, line in enumerate(lines, 1):
        low = line.lower()
        if "noqa" not in low or ("tla" not in low and "tilelang" not in low):
            continue
        if comments is None:
            comments = comment_columns(lines)
        line = comment_part(line, comments.get(n))  # type: ignore[assignment]
        if line is None:
            continue  # `# noqa` inside a string or a docstring: text, not a comment
        problem = _file_level_problem(line, known) or _inline_problem(line, known)
        if problem is not None:
            col, rest = problem[0], problem[1:]
            if len(rest) == 1:  # (col, (message, help))
                rest = rest[0]
            out.append((n, col, rest[0], rest[1]))
    return out


def _file_level_problem(line: str, known: Tuple[str, ...]) -> Optional[Tuple[int, str, str]]:
    m = _FILE_DIRECTIVE_ANY.search(line)
    if m is not None:
        full = _FILE_DIRECTIVE.match(line)
        if full is not None:
            codes = parse_codes(full.group("codes") or "")
            if not all(c.isupper() for c in codes):
                return m.start(), (
                    "`%s` is ignored: codes are case-sensitive" % line[m.start():].strip(),
                    "Write the codes in upper case, e.g. `# flake8-tilelang: noqa: TLA001`")
            unknown = [c for c in codes if not any(k.startswith(c) for k in known)]
            if unknown:
                return m.start(), (
                    "`%s` names %s, which matches no flake8-tilelang code" % (
                        line[m.start():].strip(), ", ".join("`%s`" % c for c in unknown)),
                    "See `flake8-tilelang rules` for the codes")
            return None
        if line[:m.start()].strip():
            why, advice = "it must be a comment on its own line", "Move it to a line of its own"
        else:
            why = "it is malformed"
            advice = "Write `# flake8-tilelang: noqa` or `# flake8-tilelang: noqa: TLA001,TLA002`"
        return m.start(), "`%s` is not a valid file-level directive and is ignored: %s" % (
            line[m.start():].strip(), why), advice
    m = NOQA_FILE.match(line)
    if m is not None:
        rest = line[m.end():]
        if _tla_word(rest):
            return line.index("#"), (
                "`%s` makes flake8 skip the whole file, every code: flake8 does not read codes "
                "after `# flake8: noqa`" % line.strip(),
                "To turn off only TLA codes for this file, write `# flake8-tilelang: noqa: %s`" % ",".join(
                    w.upper() for w in _WORD.findall(rest) if w.upper().startswith("TLA")))
    return None


def _inline_problem(line: str, known: Tuple[str, ...]) -> Optional[Tuple[int, str, str]]:
    m = NOQA_INLINE_REGEX.search(line)
    if m is None:
        loose = _LOOSE_NOQA.search(line)
        if loose is None or NOQA_FILE.match(line):
            return None
        word = _tla_word(line[loose.end():])
        if word is None:
            return None
        return loose.start(), (
            "`%s` is not a noqa comment for flake8 (it needs exactly `# noqa`) and silences "
            "nothing" % line[loose.start():].strip(), "Write `# noqa: %s`" % _suggest(word))
    text = line[m.start():].rstrip("\r\n")
    if m.group("codes") is None:
        tail = line[m.start() + len("# noqa"):]
        word = _tla_word(tail)
        if word is None:
            return None
        stripped = tail.lstrip(" \t")
        if stripped.startswith(":") and tail[:1] in (" ", "\t"):
            why = "there is a space before the colon"
        elif not stripped.startswith(":"):
            why = "the colon is missing"
        elif re.match(r":\s\s", tail):
            why = "there is more than one space after the colon"
        elif not re.search(r"[0-9]", word):
            why = "`%s` has no digits, so it is not a code" % word
        else:
            why = "`%s` is not a code: codes are letters then digits" % word
        if re.search(r"[0-9]", word):
            advice = "Write `# noqa: %s`" % _suggest(word)
        else:
            advice = "Name the codes, e.g. `# noqa: TLA001,TLA002`"
        return m.start(), (
            "`%s` is a blanket noqa for flake8 (%s): it silences every code on the line, "
            "not only %s" % (text.strip(), why, word), advice)
    codes = parse_codes(m.group("codes"))
    for code in codes:
        if code.upper().startswith("TLA") and code != code.upper():
            return m.start(), (
                "`%s` silences nothing: flake8 compares codes case-sensitively, so `%s` never "
                "matches" % (text.strip(), code), "Write `%s`" % code.upper())
    for code in codes:
        if code.startswith("TLA") and not any(k.startswith(code) for k in known):
            return m.start(), (
                "`%s` names `%s`, which matches no flake8-tilelang code, so it silences "
                "nothing" % (text.strip(), code), "See `flake8-tilelang rules` for the codes")
    word = _tla_word(line[m.end():])
    if word is not None:
        return m.start(), (
            "`%s`: flake8 stops reading codes before `%s`, so it does not silence it" % (
                text.strip(), word),
            "Write codes as letters then digits separated by commas, e.g. `# noqa: %s`" % _suggest(word))
    return None


def unused_codes(directive: Noqa, used: Iterable[str]) -> List[str]:
    """The TLA codes of a noqa that matched none of the ``used`` codes."""
    if directive.codes is None:
        return []
    used = tuple(used)
    return [c for c in directive.codes
            if c.startswith("TLA") and c == c.upper() and not any(u.startswith(c) for u in used)]


# -- repairing the comments (the fixes of TLA095 and TLA096) -------------------

_CODE_WORD = re.compile(r"[A-Za-z]+[0-9]+")


def _codes_after(text: str, start: int) -> Tuple[List[str], int]:
    """The TLA codes written from ``start`` (after `noqa`), upper-cased, and
    where they end: ``[:\\s]*`` then codes separated by commas or spaces."""
    pos = start
    while pos < len(text) and text[pos] in " \t:":
        pos += 1
    codes: List[str] = []
    end = start
    while True:
        m = _CODE_WORD.match(text, pos)
        if m is None or not m.group().upper().startswith("TLA"):
            break
        codes.append(m.group().upper())
        end = m.end()
        pos = end
        while pos < len(text) and text[pos] in " \t,":
            pos += 1
    return codes, end


def repair_noqa(line: str, known_codes: Iterable[str]) -> Optional[Tuple[int, int, str, bool]]:
    """How to write a malformed TLA noqa (TLA095) so flake8 reads what it
    says: (start, end, replacement, safe) in characters of ``line``, or None
    when there is no single right spelling (an unknown code, a word that is
    not a code). Turning ``# flake8: noqa: TLA001`` (flake8 skips the file)
    into ``# flake8-tilelang: noqa: TLA001`` is not safe: other plugins'
    codes are reported again."""
    known = tuple(known_codes)
    text = line.rstrip("\r\n")

    def all_known(codes: List[str]) -> bool:
        return bool(codes) and all(any(k.startswith(c) for k in known) for c in codes)

    m = _FILE_DIRECTIVE_ANY.search(text)
    if m is not None:
        if text[:m.start()].strip():
            return None
        codes, end = _codes_after(text, m.end())
        if not all_known(codes) or text[end:].strip(" \t,") and not text[end:].strip(" \t,").startswith("#"):
            return None
        return m.start(), end, "# flake8-tilelang: noqa: %s" % ",".join(codes), True
    m = NOQA_FILE.match(text)
    if m is not None:
        hash_at = text.index("#")
        codes, end = _codes_after(text, m.end())
        if not all_known(codes):
            return None
        return hash_at, end, "# flake8-tilelang: noqa: %s" % ",".join(codes), False
    loose = _LOOSE_NOQA.search(text)
    if loose is None:
        return None
    codes, end = _codes_after(text, loose.end())
    if not all_known(codes):
        return None
    new = "# noqa: %s" % ",".join(codes)
    fixed = text[:loose.start()] + new + text[end:]
    if _inline_problem(fixed, known) is not None:
        return None
    return loose.start(), end, new, True


def remove_noqa_codes(line: str, directive: Noqa, drop: Iterable[str]) -> Optional[Tuple[int, int, str]]:
    """The edit (start, end, replacement; characters of ``line``) that takes
    ``drop`` out of the noqa at ``directive.col``; the whole comment when no
    code is left (a reason after it stays a comment)."""
    text = line.rstrip("\r\n")
    m = NOQA_INLINE_REGEX.match(text, directive.col)
    if m is None or m.group("codes") is None:
        return None
    drop = set(drop)
    codes = parse_codes(m.group("codes"))
    left = [c for c in codes if c not in drop]
    if len(left) == len(codes):
        return None
    if left:
        raw = m.group("codes")
        tail = raw[len(raw.rstrip(" \t,")):]
        sep = ", " if ", " in raw else ","
        return m.start("codes"), m.end("codes"), sep.join(left) + tail
    after = text[m.end():].strip()
    if after:
        # `# noqa: TLA001 - why`: the reason stays a comment
        return m.start(), m.end(), "# " if not after.startswith("#") else ""
    start = m.start()
    while start > 0 and text[start - 1] in " \t":
        start -= 1
    return start, len(text), ""
