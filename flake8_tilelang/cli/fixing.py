"""``check --fix / --diff / --fix-only / --show-fixes / --add-noqa``: what
the command line does with the findings of a run, Ruff's semantics:

- ``--fix`` applies the safe fixes (``--unsafe-fixes`` also the unsafe ones),
  writes the files and reports what is left;
- ``--fix-only`` applies them and reports nothing (exit 0);
- ``--diff`` writes nothing and prints a unified diff (exit 1 when there is
  something to fix);
- ``--show-fixes`` lists what was fixed;
- ``--add-noqa`` appends ``# noqa: CODE`` for every finding.
"""
from __future__ import annotations

import sys
from typing import Dict, List, Optional, Tuple

from ..fixes import FixResult, applicable, fix_file, hidden_unsafe, unified_diff
from ..pipeline import Finding
from .fileio import NotReadable, NotWritten, Stamp, keep_line_endings, read_linted, rewrite
from .run import MAX_FILE_BYTES


def _plural(n: int, word: str) -> str:
    return "%d %s%s" % (n, word, "" if n == 1 else "s")


class Tally:
    """What became of each finding of a fixed file, so that the counts add up
    (``check`` found ``total``; ``--fix`` reports ``fixed + resolved +
    remaining == total`` and prints ``remaining + new`` findings):

    - fixed: a finding whose fix this run applies and that is gone;
    - resolved: a finding without an applicable fix that is gone all the
      same (the key a TLA005 fix removes was also TLA004's finding);
    - remaining: a finding still reported after the fixes;
    - new: a finding of the fixed file that was not reported before (a
      renamed key that now takes effect)."""

    def __init__(self) -> None:
        self.fixed: List[Finding] = []
        self.resolved: List[Finding] = []
        self.remaining: List[Finding] = []
        self.new: List[Finding] = []

    def add(self, other: "Tally") -> None:
        for name in ("fixed", "resolved", "remaining", "new"):
            getattr(self, name).extend(getattr(other, name))

    @property
    def total(self) -> int:
        """The findings before the fixes."""
        return len(self.fixed) + len(self.resolved) + len(self.remaining)


def _match_key(f: Finding) -> Tuple[str, str]:
    """A finding's identity across an edit: its code and message with the
    numbers blanked (the fixes move lines: "set at line 14")."""
    import re

    return f.code, re.sub(r"\d+", "#", f.message)


def tally(before: List[Finding], after: List[Finding], unsafe: bool) -> Tally:
    """Match the findings before and after fixing one file (see ``Tally``):
    first by code, message and the text of the reported line (two launches
    with the same finding differ there once one is fixed), then a finding
    without an applicable fix by code and message alone (a fix elsewhere on
    its line edited that line)."""
    out = Tally()
    exact: Dict[Tuple, List[int]] = {}
    loose: Dict[Tuple, List[int]] = {}
    for i, f in enumerate(after):
        exact.setdefault(_match_key(f) + (f.source.strip(),), []).append(i)
        loose.setdefault(_match_key(f), []).append(i)
    taken = set()

    def take(table, key) -> bool:
        for i in table.get(key, ()):
            if i not in taken:
                taken.add(i)
                return True
        return False

    unmatched = []
    # a finding without an applicable fix claims its match first: of two
    # launches with the same line, the one that had no fix is what is left
    for f in sorted(before, key=lambda f: applicable(f.fix, unsafe)):
        if take(exact, _match_key(f) + (f.source.strip(),)):
            out.remaining.append(f)
        else:
            unmatched.append(f)
    for f in unmatched:
        if applicable(f.fix, unsafe):
            out.fixed.append(f)
        elif take(loose, _match_key(f)):
            out.remaining.append(f)
        else:
            out.resolved.append(f)
    out.new = [f for i, f in enumerate(after) if i not in taken]
    return out


class FixRun:
    def __init__(self) -> None:
        self.tally = Tally()
        self.results: Dict[str, FixResult] = {}
        self.diffs: List[str] = []
        self.stdin_output: Optional[bytes] = None
        self.findings: List[Finding] = []
        self.errors: List[str] = []
        # files that should have been written and were not (their findings stay reported)
        self.unwritten: List[str] = []
        # the configuration files whose ``fix = true`` turned fixing on
        self.fix_configs: List[str] = []
        # display path -> the findings fixed in that file
        self.fixed_in: Dict[str, List[Finding]] = {}

    @property
    def fixed(self) -> List[Finding]:
        return self.tally.fixed


def _by_path(findings: List[Finding]) -> Dict[str, List[Finding]]:
    out: Dict[str, List[Finding]] = {}
    for f in findings:
        out.setdefault(f.path, []).append(f)
    return out


def _settings(finder, base, path: str, stdin_display: Optional[str]):
    return finder.for_path(path) if finder is not None and path != stdin_display else base


def any_file_fixes(findings: List[Finding], finder, base, stdin_display: Optional[str]) -> bool:
    """Does some file's configuration (``fix = true``, or ``--fix``) ask for fixes?"""
    if base.fix:
        return True
    return any(_settings(finder, base, path, stdin_display).fix for path in _by_path(findings))


def _reread(path: str, stamp: Optional[Stamp]) -> bytes:
    """The bytes of ``path`` now, read with the guards of the first read;
    NotWritten when they are not the bytes that were linted."""
    if stamp is None:
        raise NotWritten("%s was not read by this run" % path)
    data, now = read_linted(path, MAX_FILE_BYTES, stamp.root)
    if (now.dev, now.ino, now.digest) != (stamp.dev, stamp.ino, stamp.digest):
        raise NotWritten("%s changed since it was checked (run again)" % path)
    return data


def apply_fixes(findings: List[Finding], finder, base, *, diff: bool, stdin_display: Optional[str],
                stdin_data: Optional[bytes], always: bool = True,
                stamps: Optional[Dict[str, Stamp]] = None, explicit: bool = True) -> FixRun:
    """Fix every file whose settings ask for it (``always``: --diff and
    --fix-only fix every file), each with its own ``unsafe-fixes``. Edits
    are applied only to the bytes that were linted (``stamps``); a file
    that changed since, or cannot be written, keeps its findings and is
    listed in ``unwritten``. ``explicit``: --fix was given (else the
    configurations that asked for it are collected in ``fix_configs``)."""
    run = FixRun()
    stamps = stamps or {}
    for path, mine in _by_path(findings).items():
        settings = _settings(finder, base, path, stdin_display)
        unsafe = settings.unsafe_fixes
        if not (always or settings.fix):
            run.findings.extend(mine)
            run.tally.remaining.extend(mine)
            continue
        is_stdin = path == stdin_display and stdin_data is not None
        if not any(applicable(f.fix, unsafe) for f in mine):
            run.findings.extend(mine)
            run.tally.remaining.extend(mine)
            if is_stdin:
                run.stdin_output = stdin_data
            continue
        if not explicit and not always and settings.config_path and settings.config_path not in run.fix_configs:
            run.fix_configs.append(settings.config_path)
        held: List[FixResult] = []

        def make(data: bytes, path=path, settings=settings, unsafe=unsafe, mine=mine) -> Optional[bytes]:
            result = fix_file(path, data, settings, unsafe, mine)
            held.append(result)
            return result.data if result.changed and result.data != data else None

        data: Optional[bytes] = None
        try:
            if is_stdin:
                data = stdin_data
                make(data)
            elif diff:
                data = _reread(path, stamps.get(path))
                make(data)
            else:
                rewrite(path, stamps[path] if path in stamps else _missing(path), make)
        except NotReadable as exc:
            run.errors.append("%s: not fixed: %s" % (path, exc))
            run.unwritten.append(path)
            run.findings.extend(mine)
            run.tally.remaining.extend(mine)
            continue
        except NotWritten as exc:
            run.errors.append("%s: not fixed: %s" % (path, exc))
            run.unwritten.append(path)
            run.findings.extend(mine)
            run.tally.remaining.extend(mine)
            continue
        except OSError as exc:
            run.errors.append("%s: cannot write the fixes, the file is unchanged: %s" % (
                path, exc.strerror or exc))
            run.unwritten.append(path)
            run.findings.extend(mine)
            run.tally.remaining.extend(mine)
            continue
        if not held:  # re-read, and nothing to fix any more
            run.findings.extend(mine)
            run.tally.remaining.extend(mine)
            continue
        result = held[-1]
        run.results[path] = result
        run.findings.extend(result.remaining)
        mine_tally = tally(mine, result.remaining, unsafe)
        run.tally.add(mine_tally)
        run.fixed_in[path] = mine_tally.fixed
        if not result.converged:
            run.errors.append("%s: the fixes did not settle after %d passes; the last result is kept "
                              "(please report it with this file)" % (path, result.iterations))
        for failed in result.failed:
            f = failed.finding
            run.errors.append("%s:%d:%d: %s fix not applied: %s (please report it with this file)" % (
                path, f.line, f.col + 1, f.code, failed.reason))
        if diff:
            if result.changed and data is not None:
                run.diffs.append(unified_diff(path, data, result.data))
            if path == stdin_display:
                run.stdin_output = data
            continue
        if is_stdin and data is not None:
            run.stdin_output = keep_line_endings(data, result.data)
    if stdin_display is not None and run.stdin_output is None and stdin_data is not None:
        run.stdin_output = stdin_data
    run.findings.sort(key=lambda f: (f.path, f.line, f.col, f.code))
    return run


def _missing(path: str) -> Stamp:
    raise NotWritten("%s was not read by this run" % path)


def fixable_note(findings: List[Finding], unsafe: bool) -> Optional[str]:
    """``[*] 3 fixable with the `--fix` option (2 hidden fixes can be enabled
    with the `--unsafe-fixes` option).``"""
    n = sum(1 for f in findings if applicable(f.fix, unsafe))
    hidden = 0 if unsafe else sum(1 for f in findings if hidden_unsafe(f.fix))
    if not n and not hidden:
        return None
    option = "`--fix --unsafe-fixes`" if unsafe else "`--fix`"
    text = ""
    if n:
        text = "[*] %d fixable with the %s option" % (n, option)
    if hidden:
        more = "%s can be enabled with the `--unsafe-fixes` option" % _plural(hidden, "hidden fix").replace(
            "fixs", "fixes")
        text = "%s (%s)" % (text, more) if text else "No fixes available (%s)" % more
    return text + "."


def show_fixes_text(run: FixRun, names: Dict[str, str], verb: str = "Fixed") -> str:
    """Ruff's ``--show-fixes`` list: per file, per code, how many."""
    if not run.fixed:
        return ""
    lines = ["%s %s:" % (verb, _plural(len(run.fixed), "diagnostic"))]
    for path in sorted(run.fixed_in):
        fixed = run.fixed_in[path]
        if not fixed:
            continue
        lines.append("- %s:" % path)
        counts: Dict[str, int] = {}
        for f in fixed:
            counts[f.code] = counts.get(f.code, 0) + 1
        for code in sorted(counts):
            lines.append("    %d \u00d7 %s (%s)" % (counts[code], code, names.get(code, "")))
    return "\n".join(lines) + "\n"


def fix_summary(run: FixRun, unsafe: bool, diff: bool, fix_only: bool) -> str:
    """Ruff's lines: ``Would fix N diagnostics``, ``Fixed N diagnostics``,
    ``Found N diagnostics (M fixed, K remaining).``; N is what ``check``
    found, every one of them counted once (``Tally``)."""
    t = run.tally
    fixed = len(t.fixed)
    if diff or fix_only:
        if diff:
            head = "Would fix %s" % _plural(fixed, "diagnostic") if fixed else "No diagnostics would be fixed"
        else:
            head = "Fixed %s" % _plural(fixed, "diagnostic") if fixed else "No diagnostics fixed"
        hidden = 0 if unsafe else sum(1 for f in run.findings if hidden_unsafe(f.fix))
        if hidden:
            head += " (%d additional fix%s available with `--unsafe-fixes`)" % (
                hidden, "" if hidden == 1 else "es")
        return head + "."
    if not t.total and not t.new:
        return ""
    parts = ["%d fixed" % fixed]
    if t.resolved:
        parts.append("%d resolved by the fixes" % len(t.resolved))
    parts.append("%d remaining" % len(t.remaining))
    head = "Found %s (%s)." % (_plural(t.total, "diagnostic"), ", ".join(parts))
    if t.new:
        head += " The fixed code has %s (listed above)." % _plural(len(t.new), "new diagnostic")
    return head


def add_noqa_files(findings: List[Finding], stdin_display: Optional[str],
                   stamps: Optional[Dict[str, Stamp]] = None) -> Tuple[int, int, List[str]]:
    """(comments added, files changed, errors); each file is edited only if
    it still holds the bytes that were linted."""
    from ..noqa_add import add_noqa
    from ..source import DecodeError, SourceFile, decode

    added = files = 0
    errors: List[str] = []
    stamps = stamps or {}
    for path, mine in _by_path(findings).items():
        if path == stdin_display:
            errors.append("%s: --add-noqa does not edit stdin" % path)
            continue
        stamp = stamps.get(path)
        if stamp is None:  # never read (E902): nothing to edit
            if any(f.code not in ("E902",) for f in mine):
                errors.append("%s: cannot add noqa: it was not read by this run" % path)
            continue
        count: List[int] = []

        def make(data: bytes, mine=mine, path=path) -> Optional[bytes]:
            if path.lower().endswith(".ipynb"):
                from ..notebook import NotebookError, add_noqa_notebook

                try:
                    new, n = add_noqa_notebook(data, mine)
                except NotebookError as exc:
                    raise NotWritten(str(exc))
                if new is not None:
                    count.append(n)
                return new
            try:
                source = decode(data)
            except DecodeError as exc:
                raise NotWritten(str(exc))
            text, n, _ = add_noqa(source, mine)
            if text is None:
                return None
            count.append(n)
            return SourceFile.encode(source, text)

        try:
            written = rewrite(path, stamp, make)
        except NotWritten as exc:
            errors.append("%s: cannot add noqa: %s" % (path, exc))
            continue
        except OSError as exc:
            errors.append("%s: cannot add noqa, the file is unchanged: %s" % (path, exc.strerror or exc))
            continue
        if written:
            added += count[-1]
            files += 1
    return added, files, errors


def stdin_display_name(args) -> Optional[str]:
    if "-" in args.paths or (args.stdin_filename and not args.paths):
        return args.stdin_filename or "stdin"
    return None


def write_stdout_bytes(data: bytes) -> None:
    stream = getattr(sys.stdout, "buffer", None)
    if stream is None:
        sys.stdout.write(data.decode("utf-8", "replace"))
    else:
        stream.write(data)
    sys.stdout.flush()


__all__ = ["FixRun", "apply_fixes", "add_noqa_files", "fix_summary", "fixable_note", "show_fixes_text",
           "stdin_display_name", "write_stdout_bytes"]
