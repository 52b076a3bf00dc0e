"""Lint one file: gate, build the model once, run every selected rule on it.

Used by the flake8 plugin (and by the CLI later). An exception in the model
or in a rule becomes one TLA000 diagnostic for this file; the other rules
still run. Set ``FLAKE8_TILELANG_STRICT=1`` to re-raise instead (the tests do).
"""
from __future__ import annotations

import ast
import os
import re
from typing import Callable, Iterable, List, Optional, Sequence

from . import constants as C
from .registry import ERROR, Diagnostic, all_rules

STRICT_ENV = C.STRICT_ENV

# Called as ``observe(tree, model, filename)`` after a model is built: the
# language server's worker keeps the model for its switch hovers instead of
# building it twice.
MODEL_OBSERVERS: List[Callable] = []


# Compiled on first use (``re`` caches it): the flake8 process pays for a
# regular expression only when a line holds "noqa" (a compile costs ~0.1 ms).
_DIRECTIVE_HINT = r"tilelang\s*[:=]"  # cheap: the directive's parser is in suppress


_SETTLED: List[bool] = []


def settle() -> None:
    """Once per process, when the checker is about to lint its first
    TileLang file (``_check``; ``check`` calls it before its workers fork):
    load the model and every rule, collect the young garbage, then
    ``gc.freeze()`` what is alive (these ~40 modules, the host's own
    objects) into the permanent generation, as pre-fork servers do. Every
    later collection -- the rest of the run, the process's exit, the next
    saves in a long-lived host, forked workers' pages -- skips those objects.
    Objects stay freeable by their reference counts; only cyclic garbage that
    was already in the oldest generation at this moment is kept."""
    if _SETTLED:
        return
    _SETTLED.append(True)
    import gc

    from . import model  # noqa: F401 - check_tree imports it lazily: load it before freezing

    all_rules()
    gc.collect(1)
    gc.freeze()


def mentions_tilelang(lines: Iterable[str]) -> bool:
    """The marker gate: a file that never says "tilelang" cannot import it."""
    return any(C.MARKER in line for line in lines)


def imports_tilelang(lines: Sequence[str]) -> bool:
    """A second, still cheap gate: some line is an import naming tilelang
    (a file that only mentions it in a comment or a string is not walked)."""
    return any(C.MARKER in line and import_line_names_tilelang(line) for line in lines)


def import_line_names_tilelang(line: str) -> bool:
    """``re.match(r"^[ \\t]*(?:from|import)[ \\t].*\\btilelang\\b", line)``
    without compiling a regular expression in every flake8 process: the line
    starts (after blanks) with ``from``/``import`` and a blank, and the word
    ``tilelang`` follows before any newline."""
    rest = line.lstrip(" \t")
    if rest.startswith("from"):
        k = 4
    elif rest.startswith("import"):
        k = 6
    else:
        return False
    if rest[k:k + 1] not in (" ", "\t"):
        return False
    start = len(line) - len(rest) + k + 1
    end = line.find("\n", start)
    if end < 0:
        end = len(line)
    n = len(C.MARKER)
    at = line.find(C.MARKER, start, end)
    while at >= 0:
        before, after = line[at - 1], line[at + n:at + n + 1]  # at >= start >= 1: a blank before it at least
        if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
            return True
        at = line.find(C.MARKER, at + 1, end)
    return False


def check_tree(
    tree: Optional[ast.Module],
    lines: Sequence[str],
    filename: str,
    wanted: Optional[Callable[[str], bool]] = None,
    file_noqa: bool = True,
    chip: Optional[str] = None,
    target: Optional[str] = None,
    src: Optional[Sequence[str]] = None,
) -> List[Diagnostic]:
    """Diagnostics for one file, sorted and at most one per (line, code).

    ``tree`` may be None: the source is parsed from ``lines`` then.
    ``wanted(code)`` filters which rules run (None: all).
    ``file_noqa``: honour ``# flake8-tilelang: noqa[: codes]`` in the file.
    ``chip``: the ``target-chip`` setting the on-chip rules assume (None: A2/A3).
    ``target``: the ``target`` setting, the dialect of compile sites that name
    none ("ascendc" or "npuir"; None: ascendc).
    ``src``: the ``src`` setting, first-party roots (absolute folders).
    """
    if src:
        from .model.project import SRC

        token = SRC.set(tuple(src))
        try:
            return check_tree(tree, lines, filename, wanted, file_noqa, chip, target)
        finally:
            SRC.reset(token)
    if target is not None:
        from .model.dialect import DEFAULT

        token = DEFAULT.set(target)
        try:
            return check_tree(tree, lines, filename, wanted, file_noqa, chip)
        finally:
            DEFAULT.reset(token)
    if chip is not None:
        from .model.chip import TARGET

        token = TARGET.set(chip)
        try:
            return check_tree(tree, lines, filename, wanted, file_noqa)
        finally:
            TARGET.reset(token)
    if not mentions_tilelang(lines) or not imports_tilelang(lines):
        return []
    if file_noqa and any("noqa" in line.lower() and re.search(_DIRECTIVE_HINT, line, re.I) for line in lines):
        from .suppress import file_directive, suppressed_by_file_directive

        directive = file_directive(lines)
        if directive == "all":
            return []
        if directive is not None:
            found = _check(tree, lines, filename, wanted)
            return [d for d in found if not suppressed_by_file_directive(directive, d.code)]
    return _check(tree, lines, filename, wanted)


def _check(tree, lines, filename, wanted) -> List[Diagnostic]:
    strict = os.environ.get(STRICT_ENV) == "1"
    try:
        if tree is None:
            tree = ast.parse("".join(lines), filename)
        from .model import build_model  # deferred: files without tilelang never pay for it
        settle()  # the first TileLang file of the process: freeze what is alive from here on
        model = build_model(tree, filename)
    except SyntaxError:
        return []  # flake8 reports E999 itself
    except (Exception, RecursionError) as exc:  # noqa: B902 - never crash the host
        if strict:
            raise
        return [_internal_error("building the kernel model", exc)]
    for observe in MODEL_OBSERVERS:
        observe(tree, model, filename)
    if not model.imports_tilelang:
        return []
    found: List[Diagnostic] = []
    from .rules._fix import context

    with context(tree, lines, filename):  # the rules build their fixes' edits from it
        for rule in all_rules().checks():
            if wanted is not None and not wanted(rule.code):
                continue
            try:
                found.extend(rule.run(model))
            except (Exception, RecursionError) as exc:  # noqa: B902
                if strict:
                    raise
                found.append(_internal_error("rule %s (%s)" % (rule.code, rule.name), exc))
    for kernel in getattr(model, "foreign", ()):
        try:
            found.extend(_foreign_findings(model, kernel, wanted))
        except (Exception, RecursionError) as exc:  # noqa: B902
            if strict:
                raise
            found.append(_internal_error("judging `%s` compiled at line %d" % (
                kernel.display_name, kernel.compiled_at.lineno), exc))
    return dedupe(found)


def _foreign_findings(model, kernel, wanted) -> List[Diagnostic]:
    """The findings in a kernel that another module of the project defines
    and a compile call of this file compiles (its own file does not see this
    config). They are reported on the compile call, one per code, naming the
    kernel's file and line; no fix (the edits would be in the other file). A
    ``# noqa`` for the code on the kernel's own line in its file silences it
    here too."""
    view = model.foreign_view(kernel)
    raw: List[Diagnostic] = []
    for rule in all_rules().checks():  # outside the fix context: no edits to build
        if wanted is None or wanted(rule.code):
            raw.extend(rule.run(view))
    node = kernel.compiled_at
    from .model.config import shown_path

    where = shown_path(kernel.func.filename, model.filename)  # as other modules' configs are named
    index = getattr(kernel.resolver.b, "noqa_index", None)  # the kernel's file's, read as flake8 reads it
    by_code: dict = {}
    for d in dedupe(raw):  # as its own file would show them (a rule yielding to another, per line)
        noqa = index.noqa_for(d.line) if index is not None else None
        if noqa is not None and noqa.suppresses(d.code):
            continue  # `# noqa` / `# noqa: TLA002` on that statement of the kernel's file
        by_code.setdefault(d.code, []).append(d)
    out = []
    for code, found in by_code.items():
        first = found[0]
        more = "" if len(found) == 1 else " (and %d more there: line%s %s)" % (
            len(found) - 1, "s" if len(found) > 2 else "", ", ".join(str(d.line) for d in found[1:4]) +
            (", ..." if len(found) > 4 else ""))
        out.append(Diagnostic(
            code, node.lineno, node.col_offset,
            "in `%s` (%s:%d), compiled here: %s%s" % (kernel.display_name, where, first.line, first.message, more),
            first.severity, getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None),
            help=first.help))
    return out


def dedupe(diagnostics: Iterable[Diagnostic]) -> List[Diagnostic]:
    """One diagnostic per (line, code): the first by column wins, and a rule
    that yields to another code is dropped on lines where that code fired."""
    registry = all_rules()
    best = {}
    for d in sorted(diagnostics, key=lambda d: (d.line, d.col, d.code)):
        best.setdefault((d.line, d.code), d)
    kept = []
    for (line, code), d in best.items():
        rule = registry.get(code)
        if rule is not None and any((line, other) in best for other in rule.yields_to):
            continue
        kept.append(d)
    return sorted(kept, key=lambda d: (d.line, d.col, d.code))


def _internal_error(step: str, exc: BaseException) -> Diagnostic:
    from .output import printable as _printable  # the detail may echo user source
    detail = str(exc).splitlines()[0][:120] if str(exc) else ""
    return Diagnostic(
        "TLA000", 1, 0,
        "flake8-tilelang internal error while %s: %s%s; the rest of this file was not fully checked" % (
            step, type(exc).__name__, ": " + _printable(detail) if detail else ""),
        ERROR, help="Please report it with this file",
    )
