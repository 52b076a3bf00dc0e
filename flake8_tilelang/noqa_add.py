"""``check --add-noqa``: a ``# noqa: CODE`` for every reported finding, so a
team can adopt the checker on old code in one commit (Ruff's ``--add-noqa``).

The comment goes where flake8 looks for it: flake8 searches the whole token
run of a statement (``suppress.NoqaIndex``), so an existing ``# noqa: X``
anywhere in that run gets the new codes merged in; otherwise the comment is
appended to the reported line, or, when that line ends inside a multi-line
string or with a backslash, to the first line of the statement that can end
with a comment (the last line always can). A blanket ``# noqa`` already
silences everything and is never touched.
"""
from __future__ import annotations

import io
import tokenize
from typing import Dict, Iterable, List, Optional, Set, Tuple

from . import suppress
from .source import SourceFile

# findings a line comment cannot silence: unreadable or unparsable files,
# internal errors, and the comment codes themselves (the pipeline reports
# them outside the noqa logic)
UNSILENCEABLE = frozenset({"E902", "E999", "TLA000", suppress.MALFORMED_NOQA, suppress.UNUSED_NOQA})


def _comment_lines(source: SourceFile) -> Set[int]:
    """Lines whose end is outside any string and not a backslash."""
    out: Set[int] = set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source.text).readline):
            if tok.type in (tokenize.NEWLINE, tokenize.NL, tokenize.COMMENT):
                out.add(tok.start[0])
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return set(range(1, len(source.lines) + 1))
    return out


def _merge(codes: Iterable[str]) -> str:
    return ", ".join(sorted(set(codes)))


def add_noqa(source: SourceFile, findings: Iterable) -> Tuple[Optional[str], int, List]:
    """(new text or None, number of comments added or extended, findings left
    alone). ``findings`` need ``line`` and ``code``."""
    lines = source.lines
    index = suppress.NoqaIndex(lines)
    comment_ok = None
    wanted: Dict[int, Set[str]] = {}  # line -> codes to add
    existing: Dict[int, suppress.Noqa] = {}
    skipped = []
    for f in findings:
        if f.code in UNSILENCEABLE or f.line < 1 or f.line > len(lines):
            skipped.append(f)
            continue
        noqa = index.noqa_for(f.line)
        if noqa is not None:
            if noqa.codes is None or noqa.suppresses(f.code):
                continue
            if not index.in_comment(noqa):
                # flake8 reads the first `# noqa` of the statement, here text in a string: a
                # comment added after it would not be read, and the string is never edited
                skipped.append(f)
                continue
            existing[noqa.line] = noqa
            wanted.setdefault(noqa.line, set()).add(f.code)
            continue
        if comment_ok is None:
            comment_ok = _comment_lines(source)
        first, last = index.range_of(f.line)
        order = [f.line] + list(range(first, last + 1))
        target = next((n for n in order if n in comment_ok), last)
        wanted.setdefault(target, set()).add(f.code)
    if not wanted:
        return None, 0, skipped
    out = list(lines)
    for n, codes in wanted.items():
        text = out[n - 1]
        body = text.rstrip("\n")
        end = text[len(body):]
        noqa = existing.get(n)
        if noqa is not None:
            m = suppress.NOQA_INLINE_REGEX.search(body, noqa.col)
            if m is None or m.group("codes") is None:
                continue
            old = suppress.parse_codes(m.group("codes"))
            merged = old + [c for c in sorted(codes) if c not in old]
            tail = m.group("codes")
            sep = tail[len(tail.rstrip()):]  # keep the space before a following comment
            body = body[:m.start("codes")] + ", ".join(merged) + sep + body[m.end("codes"):]
        else:
            body = body.rstrip(" \t") + "  # noqa: " + _merge(codes)
        out[n - 1] = body + end
    return "".join(out), len(wanted), skipped
