"""Applying fixes (``check --fix``, ``--diff``, ``--fix-only``), Ruff's way.

One pass applies every applicable fix whose edits overlap no edit already
taken (a fix is all or nothing); the result must parse, else the fixes are
tried one at a time and a fix that breaks the file on its own is never
applied and is reported. The file is then linted again and the loop repeats
until nothing applicable is left (at most ``MAX_ITERATIONS`` passes): a
nested ``with T.Scope`` or the second of two syncs in a block is fixed on a
later pass. Bytes outside the edits are kept exactly (encoding, BOM, line
endings: ``SourceFile.encode``).
"""
from __future__ import annotations

import ast
import difflib
from typing import Dict, List, NamedTuple, Optional, Sequence, Set, Tuple

from .diagnostic import DISPLAY_ONLY, SAFE, UNSAFE, Fix
from .pipeline import Finding, lint_source
from .settings import Settings
from .source import DecodeError, SourceFile, decode

MAX_ITERATIONS = 100


def applicable(fix: Optional[Fix], unsafe: bool) -> bool:
    """Would this run apply the fix?"""
    if fix is None or not fix.edits or any(e.path is not None for e in fix.edits):
        return False
    return fix.applicability == SAFE or (unsafe and fix.applicability == UNSAFE)


def hidden_unsafe(fix: Optional[Fix]) -> bool:
    """A fix only ``--unsafe-fixes`` applies."""
    return fix is not None and bool(fix.edits) and fix.applicability == UNSAFE


class Failed(NamedTuple):
    finding: Finding
    reason: str


class FixResult(NamedTuple):
    data: bytes  # the fixed file (== the input when nothing applied)
    fixed: List[Finding]  # the findings whose fix was applied, as first reported
    remaining: List[Finding]  # the findings of the fixed file
    failed: List[Failed]  # fixes not applied because the result would not parse
    iterations: int

    @property
    def changed(self) -> bool:
        return bool(self.fixed)

    @property
    def converged(self) -> bool:
        """False when fixes kept producing new fixes for MAX_ITERATIONS passes."""
        return self.iterations < MAX_ITERATIONS


def _span(source: SourceFile, fix: Fix) -> List[Tuple[int, int, str]]:
    return sorted((source.offset(*e.start), source.offset(*e.end), e.text) for e in fix.edits)


def _overlaps(taken: List[Tuple[int, int, str]], span: List[Tuple[int, int, str]]) -> bool:
    """Edits conflict when their ranges share a character, or when an
    insertion lands at the start or inside of another edit (the order of the
    two texts would be a guess). Edits that only touch are fine."""
    for start, end, _ in span:
        for a, b, _ in taken:
            if start < b and a < end:
                return True
            if start == end and a <= start < max(b, a + 1):
                return True
            if a == b and start <= a < max(end, start + 1):
                return True
    return False


def apply_edits(text: str, spans: Sequence[Tuple[int, int, str]]) -> str:
    out = []
    pos = 0
    for start, end, new in sorted(spans, key=lambda s: (s[0], s[1])):
        out.append(text[pos:start])
        out.append(new)
        pos = max(pos, end)
    out.append(text[pos:])
    return "".join(out)


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _key(source: SourceFile, f: Finding) -> Tuple:
    """A fix's identity across passes: code, title and the text it edits."""
    assert f.fix is not None
    return (f.code, f.fix.title, tuple((source.text[a:b], t) for a, b, t in _span(source, f.fix)))


def one_pass(source: SourceFile, findings: Sequence[Finding], unsafe: bool,
             broken: Set[Tuple]) -> Tuple[Optional[str], List[Finding], List[Failed]]:
    """(new text or None, findings fixed, fixes that break the file)."""
    todo = [f for f in findings if applicable(f.fix, unsafe) and _key(source, f) not in broken]
    # safe fixes first (a repaired noqa wins over deleting the line it
    # silences), then in file order
    todo.sort(key=lambda f: (f.fix.applicability != SAFE,  # type: ignore[union-attr]
                             _span(source, f.fix)[0][0], f.code))  # type: ignore[arg-type]
    taken: List[Tuple[int, int, str]] = []
    chosen: List[Tuple[Finding, List[Tuple[int, int, str]]]] = []
    seen: Dict[Tuple, bool] = {}
    fixed: List[Finding] = []
    for f in todo:
        span = _span(source, f.fix)  # type: ignore[arg-type]
        ident = tuple(span)
        if ident in seen:  # the same edits for another finding (a kernel compiled twice)
            fixed.append(f)
            continue
        if _overlaps(taken, span):
            continue  # the next pass
        seen[ident] = True
        taken.extend(span)
        chosen.append((f, span))
    if not chosen:
        return None, [], []
    text = apply_edits(source.text, taken)
    if text == source.text:  # edits that change nothing: done (never loop on them)
        return None, [], []
    if _parses(text):
        return text, [f for f, _ in chosen] + fixed, []
    # one at a time: keep what parses together; a fix that breaks the file
    # alone is reported and never tried again
    failed: List[Failed] = []
    accepted: List[Tuple[int, int, str]] = []
    good: List[Finding] = []
    for f, span in chosen:
        if not _parses(apply_edits(source.text, span)):
            broken.add(_key(source, f))
            failed.append(Failed(f, "the fixed file would not parse"))
            continue
        trial = accepted + span
        if _parses(apply_edits(source.text, trial)):
            accepted = trial
            good.append(f)
    good_ids = {id(f) for f in good}
    fixed = [f for f in fixed if any(_span(source, f.fix) == s for g, s in chosen  # type: ignore[arg-type]
                                     if id(g) in good_ids)]
    if not accepted or apply_edits(source.text, accepted) == source.text:
        return None, [], failed
    return apply_edits(source.text, accepted), good + fixed, failed


def fix_file(display: str, data: bytes, settings: Settings, unsafe: bool,
             findings: Optional[List[Finding]] = None) -> FixResult:
    """Apply fixes to one file until none applies; ``findings`` are the
    file's findings when already known."""
    if display.lower().endswith(".ipynb"):
        from .notebook import fix_notebook

        return fix_notebook(display, data, settings, unsafe)
    if findings is None:
        findings = lint_source(display, data, settings).findings
    try:
        source = decode(data)
    except DecodeError:
        return FixResult(data, [], findings, [], 0)
    broken: Set[Tuple] = set()
    fixed: List[Finding] = []
    failed: List[Failed] = []
    iterations = 0
    current = data
    original = list(findings)
    while iterations < MAX_ITERATIONS:
        text, done, bad = one_pass(source, findings, unsafe, broken)
        failed.extend(bad)
        if text is None:
            break
        iterations += 1
        fixed.extend(done)
        current = source.encode(text)
        source = SourceFile(current, text, source.encoding, source.bom, source.newline)
        findings = lint_source(display, current, settings).findings
    if iterations > 1:
        fixed = _gone(original, findings)
    return FixResult(current, fixed, findings, failed, iterations)


def _gone(before: List[Finding], after: List[Finding]) -> List[Finding]:
    """The findings of the first pass that no longer exist: what was fixed,
    counted once each. A later pass re-reports what one pass could not
    finish (a macro's second sync, reported again at the same calls), so
    counting each pass's fixes would count one finding several times."""
    import re

    def key(f: Finding) -> Tuple[str, str]:
        return f.code, re.sub(r"\d+", "#", f.message)

    left: Dict[Tuple[str, str], int] = {}
    for f in after:
        left[key(f)] = left.get(key(f), 0) + 1
    out = []
    for f in before:
        k = key(f)
        if left.get(k):
            left[k] -= 1
        elif f.fix is not None:
            out.append(f)
    return out


def unified_diff(display: str, before: bytes, after: bytes) -> str:
    """A unified diff of the decoded texts, like ``ruff check --diff``."""
    if display.lower().endswith(".ipynb"):
        from .notebook import cell_diff

        return cell_diff(display, before, after)
    def lines(data: bytes) -> List[str]:
        try:
            text = decode(data).text
        except DecodeError:
            text = data.decode("utf-8", "replace")
        return text.splitlines(keepends=True)

    old, new = lines(before), lines(after)
    out = []
    for line in difflib.unified_diff(old, new, fromfile=display, tofile=display):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


__all__ = ["DISPLAY_ONLY", "SAFE", "UNSAFE", "MAX_ITERATIONS", "FixResult", "Failed", "applicable",
           "fix_file", "hidden_unsafe", "one_pass", "unified_diff"]
