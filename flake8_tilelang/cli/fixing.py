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
from .run import write_in_place


def _plural(n: int, word: str) -> str:
    return "%d %s%s" % (n, word, "" if n == 1 else "s")


class FixRun:
    def __init__(self) -> None:
        self.results: Dict[str, FixResult] = {}
        self.diffs: List[str] = []
        self.stdin_output: Optional[bytes] = None
        self.findings: List[Finding] = []
        self.errors: List[str] = []

    @property
    def fixed(self) -> List[Finding]:
        return [f for r in self.results.values() for f in r.fixed]


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


def apply_fixes(findings: List[Finding], finder, base, *, diff: bool, stdin_display: Optional[str],
                stdin_data: Optional[bytes], always: bool = True) -> FixRun:
    """Fix every file whose settings ask for it (``always``: --diff and
    --fix-only fix every file), each with its own ``unsafe-fixes``."""
    run = FixRun()
    for path, mine in _by_path(findings).items():
        settings = _settings(finder, base, path, stdin_display)
        unsafe = settings.unsafe_fixes
        if not (always or settings.fix):
            run.findings.extend(mine)
            continue
        if path == stdin_display and stdin_data is not None:
            data = stdin_data
        else:
            data = None
        if not any(applicable(f.fix, unsafe) for f in mine):
            run.findings.extend(mine)
            if data is not None:
                run.stdin_output = data
            continue
        if data is None:
            try:
                with open(path, "rb") as fh:
                    data = fh.read()
            except OSError as exc:
                run.errors.append("%s: cannot read for fixing: %s" % (path, exc))
                run.findings.extend(mine)
                continue
        result = fix_file(path, data, settings, unsafe, mine)
        run.results[path] = result
        run.findings.extend(result.remaining)
        if not result.converged:
            run.errors.append("%s: the fixes did not settle after %d passes; the last result is kept "
                              "(please report it with this file)" % (path, result.iterations))
        for failed in result.failed:
            f = failed.finding
            run.errors.append("%s:%d:%d: %s fix not applied: %s (please report it with this file)" % (
                path, f.line, f.col + 1, f.code, failed.reason))
        if diff:
            if result.changed:
                run.diffs.append(unified_diff(path, data, result.data))
            if path == stdin_display:
                run.stdin_output = data
            continue
        if path == stdin_display and stdin_data is not None:
            run.stdin_output = result.data
        elif result.changed and result.data != data:
            try:
                write_in_place(path, result.data)
            except OSError as exc:
                run.errors.append("%s: cannot write the fixes: %s" % (path, exc))
    if stdin_display is not None and run.stdin_output is None and stdin_data is not None:
        run.stdin_output = stdin_data
    run.findings.sort(key=lambda f: (f.path, f.line, f.col, f.code))
    return run


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
    for path in sorted(run.results):
        fixed = run.results[path].fixed
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
    fixed = len(run.fixed)
    if diff:
        head = "Would fix %s" % _plural(fixed, "diagnostic") if fixed else "No diagnostics would be fixed"
    elif fix_only:
        head = "Fixed %s" % _plural(fixed, "diagnostic") if fixed else "No diagnostics fixed"
    else:
        remaining = len(run.findings)
        if not fixed and not remaining:
            return ""
        head = "Found %s (%d fixed, %d remaining)" % (_plural(fixed + remaining, "diagnostic"), fixed, remaining)
    hidden = 0 if unsafe else sum(1 for f in run.findings if hidden_unsafe(f.fix))
    if hidden:
        head += " (%d additional fix%s available with `--unsafe-fixes`)" % (hidden, "" if hidden == 1 else "es")
    return head + "."


def add_noqa_files(findings: List[Finding], stdin_display: Optional[str]) -> Tuple[int, int, List[str]]:
    """(comments added, files changed, errors)."""
    from ..noqa_add import add_noqa
    from ..source import DecodeError, SourceFile, decode

    added = files = 0
    errors: List[str] = []
    for path, mine in _by_path(findings).items():
        if path == stdin_display:
            errors.append("%s: --add-noqa does not edit stdin" % path)
            continue
        try:
            with open(path, "rb") as fh:
                data = fh.read()
            source = decode(data)
        except (OSError, DecodeError) as exc:
            if any(f.code not in ("E902",) for f in mine):
                errors.append("%s: cannot add noqa: %s" % (path, exc))
            continue
        text, n, _ = add_noqa(source, mine)
        if text is None:
            continue
        new = SourceFile.encode(source, text)
        if new != data:
            try:
                write_in_place(path, new)
            except OSError as exc:
                errors.append("%s: cannot add noqa: %s" % (path, exc))
                continue
            added += n
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
