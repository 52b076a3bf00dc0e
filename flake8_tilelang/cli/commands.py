"""The sub-commands."""
from __future__ import annotations

import json
import os
import sys
from typing import Dict, List, Optional

from .. import __version__
from ..settings import (ALWAYS_REPORTED, CACHE_DIR_NAME, DEFAULT_EXCLUDE, ConfigError, Settings,
                        SettingsFinder, build_settings, known_rules)
from . import fail_code, is_human, silence_stdout


_PIPE_CLOSED = False  # stdout's reader went away (``| head``): print nothing more


def _emit(text: str, output_file: Optional[str] = None) -> None:
    """Write the output. A file that cannot be written (a folder, no
    permission, a full disk) or a closed stdout is a ConfigError (one line,
    exit 2); a reader that went away (broken pipe) silences the rest of the
    run, which keeps its exit status."""
    global _PIPE_CLOSED
    if output_file:
        from .fileio import NotWritten, write_output

        try:
            write_output(output_file, text.encode("utf-8", "backslashreplace"))
        except NotWritten as exc:
            raise ConfigError("cannot write the output to %s: %s" % (output_file, exc))
        except OSError as exc:
            raise ConfigError("cannot write the output to %s: %s" % (
                output_file, exc.strerror or type(exc).__name__))
        return
    if _PIPE_CLOSED or not text:  # nothing to write cannot fail
        return
    stream = sys.stdout
    if stream is None:
        raise ConfigError("cannot write the output: stdout is closed")
    try:
        try:
            stream.write(text)
        except UnicodeEncodeError:  # a legacy console encoding
            stream.write(text.encode(stream.encoding or "ascii", "replace").decode(
                stream.encoding or "ascii", "replace"))
        stream.flush()
    except BrokenPipeError:
        _PIPE_CLOSED = True
        silence_stdout()
    except (OSError, ValueError) as exc:  # EBADF, ENOSPC, a closed file object
        silence_stdout()
        raise ConfigError("cannot write the output to stdout: %s" % (
            getattr(exc, "strerror", None) or exc))


def _note(text: str) -> None:
    """A line for stderr (summary, warnings); never fails the run."""
    if _PIPE_CLOSED or sys.stderr is None:
        return
    try:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def _printable_lines(text: str) -> str:
    """The safety net for text built elsewhere (tables, TOML): every line
    escaped for a terminal, the line breaks kept."""
    from ..output import printable

    return "\n".join(printable(line) for line in text.split("\n"))


def _json_safe(value):
    from ..output import json_safe

    if isinstance(value, str):
        return json_safe(value)
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    if isinstance(value, dict):
        return {_json_safe(k) if isinstance(k, str) else k: _json_safe(v) for k, v in value.items()}
    return value


def _jobs(value) -> Optional[int]:
    if value is None or str(value).lower() == "auto":
        return None
    try:
        n = int(value)
    except ValueError:
        raise ConfigError("--jobs: expected a number or 'auto', got %r" % value)
    if n < 1:
        raise ConfigError("--jobs: expected at least 1, got %d" % n)
    return n


def _color(fmt: str, output_file: Optional[str]) -> bool:
    if fmt != "full" or output_file or os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return hasattr(sys.stdout, "isatty") and sys.stdout.isatty() and os.environ.get("TERM") != "dumb"


def _repo_root(settings: Settings) -> str:
    from ..output import find_repo_root

    return find_repo_root(os.getcwd()) or settings.project_root


def _stdin(args) -> Optional[bytes]:
    if "-" in args.paths or (args.stdin_filename and not args.paths):
        from .run import NotReadable, read_stdin

        try:
            return read_stdin()
        except NotReadable as exc:  # reported as E902 for the stdin file, like any other
            return exc  # type: ignore[return-value]
    return None


def _paths(args) -> List[str]:
    if args.stdin_filename and not args.paths:
        return ["-"]
    return list(args.paths) or ["."]


def _cache_dir(args, settings: Settings) -> Optional[str]:
    if args.no_cache or os.environ.get("FLAKE8_TILELANG_NO_CACHE"):
        return None
    return args.cache_dir or os.environ.get("FLAKE8_TILELANG_CACHE_DIR") or os.path.join(
        settings.project_root, CACHE_DIR_NAME)


def render(fmt: str, findings, settings: Settings, files: int, color: bool = False) -> str:
    if fmt == "concise":
        from ..output.text import concise

        return concise(findings)
    if fmt == "full":
        from ..output.text import full

        return full(findings, color)
    from ..output import repo_relative
    from ..output import machine

    if fmt == "json":
        return machine.to_json(findings, os.path.abspath, settings.docs_url)
    if fmt == "json-lines":
        return machine.to_json_lines(findings, os.path.abspath, settings.docs_url)
    root = _repo_root(settings)

    def rel(path: str) -> str:
        return repo_relative(path, root)

    if fmt == "sarif":
        return machine.to_sarif(findings, known_rules(), rel, __version__, machine.file_uri(root), root,
                                settings.docs_url)
    if fmt == "github":
        return machine.to_github(findings, rel, files)
    if fmt == "gitlab":
        return machine.to_gitlab(findings, rel)
    raise ConfigError("unknown output format %r" % fmt)


def _fixable(settings: Settings):
    """Would ``--fix`` (with this run's ``unsafe-fixes``) apply the finding's fix?"""
    from ..fixes import applicable

    return lambda f: applicable(f.fix, settings.unsafe_fixes)


def cmd_check(args) -> int:
    if getattr(args, "watch", False):
        from .watch import watch

        return watch(args)
    from .run import check

    finder = SettingsFinder(args)
    settings = finder.base
    fmt = args.output_format or settings.output_format
    jobs = _jobs(args.jobs)
    stdin_data = _stdin(args)
    outcome = check(_paths(args), settings, force_exclude=args.force_exclude,
                    stdin_filename=args.stdin_filename, stdin_data=stdin_data, jobs=jobs,
                    cache_dir=_cache_dir(args, settings), finder=finder)
    findings = outcome.findings
    from ..output import printable

    if not args.quiet:
        for note in outcome.notes:
            _note("flake8-tilelang: warning: %s" % printable(note))
    for path, why in outcome.skipped:
        _note("flake8-tilelang: warning: %s skipped: %s" % (printable(path), why))
    if getattr(args, "add_noqa", False):
        return _add_noqa(args, findings, outcome.stamps)
    diff = bool(getattr(args, "diff", False))
    fix_only = bool(getattr(args, "fix_only", False)) or diff
    fixrun = None
    from . import fixing

    stdin_name = fixing.stdin_display_name(args)
    if diff or fix_only or fixing.any_file_fixes(findings, finder, settings, stdin_name):
        fixrun = fixing.apply_fixes(findings, finder, settings, diff=diff, stdin_display=stdin_name,
                                    stdin_data=stdin_data, always=diff or fix_only,
                                    stamps=outcome.stamps, explicit=bool(getattr(args, "fix", None)))
        for line in fixrun.errors:
            _note("flake8-tilelang: error: %s" % printable(line))
        findings = fixrun.findings
        if diff or fix_only or fixrun.stdin_output is not None:
            return _fix_only_result(args, fixrun, settings, diff, fix_only)
    if args.statistics and fmt in ("full", "concise", "json", "json-lines"):
        from ..output.text import statistics_rows, statistics_text

        names = {r.code: r.name for r in known_rules()}
        rows = statistics_rows(findings, names, _fixable(settings))
        if fmt in ("json", "json-lines"):
            text = json.dumps([{"code": c, "name": n, "count": k, "severity": s, "fixable": bool(x),
                                "fixable_count": x}
                               for c, n, k, s, x in rows], indent=2) + "\n"
        else:
            text = statistics_text(rows)
    else:
        text = render(fmt, findings, settings, outcome.files, _color(fmt, args.output_file))
        if args.statistics:
            # a SARIF / GitHub / GitLab document stays one valid document: the
            # table goes to stderr
            from ..output.text import statistics_rows, statistics_text

            names = {r.code: r.name for r in known_rules()}
            _note(statistics_text(statistics_rows(findings, names, _fixable(settings))).rstrip("\n"))
    if fixrun is not None and settings.show_fixes and is_human(fmt):
        from .fixing import show_fixes_text

        text += _printable_lines(show_fixes_text(fixrun, {r.code: r.name for r in known_rules()}))
    status = fail_code(findings, args.fail_on, args.exit_zero)
    if fixrun is not None and fixrun.unwritten:
        status = 2  # a fix that could not be written is a failed run, whatever --exit-zero says
    _emit(text, args.output_file)
    if is_human(fmt) and not args.quiet:
        from ..output import summary_text
        from .fixing import fix_summary, fixable_note

        if fixrun is not None and fixrun.fixed:
            line = fix_summary(fixrun, settings.unsafe_fixes, False, False)
        else:
            line = summary_text(findings, outcome.files)
        if fixrun is not None and fixrun.fix_configs:
            # a pull request's `fix = true` rewrites the checkout: say so
            line = "%s Fixing was turned on by `fix = true` in %s." % (
                line.rstrip(), ", ".join(printable(c) for c in fixrun.fix_configs))
        _note(line)
        note = fixable_note(findings, settings.unsafe_fixes)
        if note:
            _note(note)
    return status


def _fix_only_result(args, fixrun, settings: Settings, diff: bool, fix_only: bool) -> int:
    """--diff, --fix-only, and --fix on stdin (the fixed source goes to stdout)."""
    from .fixing import fix_summary, show_fixes_text, write_stdout_bytes

    names = {r.code: r.name for r in known_rules()}
    if diff:
        _emit(_printable_lines("".join(fixrun.diffs)), args.output_file)
    elif fixrun.stdin_output is not None:
        write_stdout_bytes(fixrun.stdin_output)
    if settings.show_fixes and fixrun.fixed:
        _note(_printable_lines(show_fixes_text(fixrun, names, "Would fix" if diff else "Fixed").rstrip("\n")))
    if not args.quiet:
        _note(fix_summary(fixrun, settings.unsafe_fixes, diff, True))
    if fixrun.unwritten:
        return 2  # the findings of a file that was not written are not fixed
    if diff:
        return 1 if fixrun.fixed and not args.exit_zero else 0
    if fix_only:
        return 0
    return fail_code(fixrun.findings, args.fail_on, args.exit_zero)


def _add_noqa(args, findings, stamps=None) -> int:
    from .fixing import add_noqa_files, stdin_display_name

    added, files, errors = add_noqa_files(findings, stdin_display_name(args), stamps)
    from ..output import printable

    for line in errors:
        _note("flake8-tilelang: error: %s" % printable(line))
    if not args.quiet:
        _note("Added %d noqa directive%s%s." % (
            added, "" if added == 1 else "s", " in %d file%s" % (files, "" if files == 1 else "s")
            if files else ""))
    return 2 if errors else 0


# -- rules ----------------------------------------------------------------------

def _default_state(rule) -> str:
    if rule.code in ALWAYS_REPORTED:
        return "always"
    state = "on" if rule.default_enabled else "opt-in"
    return state + (", preview" if rule.preview else "")


def _find_rule(code: str):
    rules = {r.code: r for r in known_rules()}
    by_name = {r.name: r for r in rules.values()}
    found = rules.get(code.upper()) or by_name.get(code.lower())
    if found is None:
        import difflib

        close = difflib.get_close_matches(code.upper(), list(rules), n=3) + \
            difflib.get_close_matches(code.lower(), list(by_name), n=2)
        raise ConfigError("unknown rule %r%s; `flake8-tilelang rules` lists every code" % (
            code, " (did you mean %s?)" % ", ".join(close) if close else ""))
    return found


def _rule_json(rule, docs: bool = False) -> Dict[str, object]:
    out: Dict[str, object] = {
        "code": rule.code, "name": rule.name, "severity": rule.severity,
        "severities": list(rule.severities),
        "tiers": [{"severity": sev, "when": when} for sev, when in getattr(rule, "tiers", ())],
        "confidence": rule.confidence, "default_enabled": rule.default_enabled,
        "always_reported": rule.code in ALWAYS_REPORTED,
        "preview": rule.preview, "since": rule.since, "summary": " ".join(rule.summary.split()),
    }
    if docs:
        out["docs"] = rule.docs()
    return out


def cmd_rule(args) -> int:
    if args.all:
        rules = known_rules()
    elif args.code:
        rules = [_find_rule(args.code)]
    else:
        raise ConfigError("rule: give a code (e.g. `flake8-tilelang rule TLA001`) or --all")
    if args.output_format == "json":
        data = [_rule_json(r, docs=True) for r in rules]
        _emit(json.dumps(data if args.all else data[0], indent=2) + "\n")
    else:
        _emit("\n---\n\n".join(r.docs().rstrip("\n") + "\n" for r in rules))
    return 0


def cmd_rules(args) -> int:
    rules = known_rules()
    if args.output_format == "json":
        _emit(json.dumps([_rule_json(r) for r in rules], indent=2) + "\n")
        return 0
    rows = [("CODE", "NAME", "SEVERITY", "DEFAULT", "SUMMARY")]
    rows += [(r.code, r.name, "/".join(r.severities), _default_state(r), " ".join(r.summary.split()))
             for r in rules]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row[:4], widths)) + "  " + row[4] for row in rows]
    lines.append("")
    lines.append("Opt-in codes report only when selected by their code or a prefix longer than TLA "
                 "(--extend-select TLA052); ALL and TLA do not enable them. TLA096 is also enabled "
                 "by --report-unused-noqa. E902 and E999 are always reported.")
    tiered = [r for r in rules if r.tiers]
    if tiered:
        lines.append("Two severities (the default first): %s." % "; ".join(
            "%s is %s" % (r.code, r.severity_text()) for r in tiered))
    _emit("\n".join(lines) + "\n")
    return 0


# -- config ---------------------------------------------------------------------

def _toml_list(values) -> str:
    return "[" + ", ".join(json.dumps(v) for v in values) + "]"


def cmd_config(args) -> int:
    import argparse

    # `--output-format` here is this command's own format, not a setting
    settings = build_settings(argparse.Namespace(**dict(vars(args), output_format=None)))
    rules = known_rules()
    enabled = [r.code for r in rules if r.code in settings.enabled]
    disabled = [r.code for r in rules if r.code not in settings.enabled
                and r.code not in ALWAYS_REPORTED]
    pfi = {}
    for pattern, negated, codes in settings.per_file_ignores:
        pfi[("!" if negated else "") + pattern] = [c or "ALL" for c in codes]
    data = {
        "config-file": settings.config_path,
        "project-root": settings.project_root,
        "select": list(settings.select) if settings.select is not None else ["TLA"],
        "extend-select": list(settings.extend_select),
        "ignore": list(settings.ignore) if settings.ignore is not None else [],
        "extend-ignore": list(settings.extend_ignore),
        "per-file-ignores": pfi,
        "exclude": list(settings.exclude) if settings.exclude is not None else list(DEFAULT_EXCLUDE),
        "extend-exclude": list(settings.extend_exclude),
        "output-format": settings.output_format,
        "fix": settings.fix,
        "unsafe-fixes": settings.unsafe_fixes,
        "show-fixes": settings.show_fixes,
        "target-chip": settings.target_chip,
        "target": settings.target,  # null: not set
        "src": list(settings.src),
        "docs-url": settings.docs_url,
        "enabled": enabled,
        "not-enabled": disabled,
        "always-reported": list(ALWAYS_REPORTED),
    }
    if args.output_format == "json":
        _emit(json.dumps(_json_safe(data), indent=2) + "\n", args.output_file)
        return 0
    default = "  # default"
    lines = [
        "# %s %s: effective settings" % ("flake8-tilelang", __version__),
        "# config file: %s" % (settings.config_path or "none (defaults)"),
        "# project root: %s" % settings.project_root,
        "[tool.flake8-tilelang]",
        "select = %s%s" % (_toml_list(data["select"]), default if settings.select is None else ""),
        "extend-select = %s" % _toml_list(data["extend-select"]),
        "ignore = %s%s" % (_toml_list(data["ignore"]), default if settings.ignore is None else ""),
        "extend-ignore = %s" % _toml_list(data["extend-ignore"]),
        "per-file-ignores = {%s}" % ", ".join(
            "%s = %s" % (json.dumps(k), _toml_list(v)) for k, v in pfi.items()),
        "exclude = %s%s" % (_toml_list(data["exclude"]), default if settings.exclude is None else ""),
        "extend-exclude = %s" % _toml_list(data["extend-exclude"]),
        "output-format = %s" % json.dumps(settings.output_format),
        "fix = %s" % json.dumps(settings.fix),
        "unsafe-fixes = %s" % json.dumps(settings.unsafe_fixes),
        "show-fixes = %s" % json.dumps(settings.show_fixes),
        "target-chip = %s%s" % (json.dumps(settings.target_chip),
                                default if settings.target_chip == "A2/A3" else ""),
        "target = %s%s" % (json.dumps(settings.target or "ascendc"),
                           "  # default: Ascend C, unless a kernel with no target is written in the npuir "
                           "dialect" if settings.target is None else ""),
        "src = %s" % _toml_list(list(settings.src)),
        "docs-url = %s%s" % (json.dumps(settings.docs_url or ""),
                             "  # default: no link" if settings.docs_url is None else ""),
        "",
        "# enabled (%d): %s" % (len(enabled), ", ".join(enabled) or "none"),
        "# not enabled (%d): %s" % (len(disabled), ", ".join(disabled) or "none"),
        "# always reported: %s" % ", ".join(ALWAYS_REPORTED),
    ]
    _emit(_printable_lines("\n".join(lines) + "\n"), args.output_file)
    return 0


# -- kernels --------------------------------------------------------------------

def _table_width(output_file: Optional[str]) -> Optional[int]:
    """The columns a table may take: the terminal's (``COLUMNS`` when set),
    None (no limit) for a file or a pipe, whose reader wants every byte."""
    import shutil

    if output_file:
        return None
    if not os.environ.get("COLUMNS") and not (hasattr(sys.stdout, "isatty") and sys.stdout.isatty()):
        return None
    return max(40, shutil.get_terminal_size().columns)


def cmd_kernels(args) -> int:
    from ..inventory import inventory, summary, to_table
    from .discover import STDIN, discover
    from .run import check, read_inputs

    finder = SettingsFinder(args)
    settings = finder.base
    stdin_data = _stdin(args)
    paths = _paths(args)
    outcome = check(paths, settings, force_exclude=args.force_exclude,
                    stdin_filename=args.stdin_filename, stdin_data=stdin_data,
                    jobs=_jobs(args.jobs), cache_dir=None, finder=finder)
    by_path: Dict[str, list] = {}
    for f in outcome.findings:
        by_path.setdefault(f.path, []).append(f)
    files = discover(paths, settings, args.force_exclude)
    name = args.stdin_filename or "stdin"
    files = [(name if p == STDIN else d, p) for d, p in files]
    todo, _ = read_inputs(files, stdin_data, settings.project_root)
    entries, errors = inventory(todo, settings, by_path)
    for f in outcome.findings:
        if f.code == "E902" and not any(e["file"] == f.path for e in errors):
            errors.append({"file": f.path, "code": f.code, "message": f.message})
    if args.output_format == "json":
        text = json.dumps(_json_safe({"kernels": entries, "errors": errors,
                                      "summary": summary(entries)}), indent=2) + "\n"
    else:
        text = _printable_lines(to_table(entries, errors, _table_width(args.output_file)))
    _emit(text, args.output_file)
    return 2 if errors and not entries else 0


# -- migrate --------------------------------------------------------------------

def _notebook_program(display: str, data: bytes):
    """(notebook, its joined code cells as a SourceFile, their tree), or
    Nones for a notebook ``check`` reports as E902 / E999."""
    from ..notebook import program

    try:
        return program(display, data)[:3]
    except (ValueError, RecursionError, MemoryError):
        return None, None, None


def cmd_migrate(args) -> int:
    import difflib

    from .. import migrate as M
    from ..pipeline import lint_source, parse
    from .discover import STDIN, discover
    from .fileio import NotWritten, rewrite
    from .run import read_inputs

    finder = SettingsFinder(args)
    settings = finder.base
    paths = _paths(args)
    if STDIN in paths:
        raise ConfigError("migrate rewrites files: it does not read stdin")
    files = discover(paths, settings, args.force_exclude)
    stamps: Dict[str, object] = {}
    todo, errors = read_inputs(files, None, settings.project_root, stamps)
    plans = []
    diffs = []
    only = set(args.kernel or ()) or None
    for display, data in todo:
        nb, source, tree = _notebook_program(display, data) if display.lower().endswith(".ipynb") else (
            (None,) + parse(display, data)[:2])
        if tree is None or source is None:
            continue  # `check` reports it
        from ..model.dialect import DEFAULT as DIALECT

        token = DIALECT.set(getattr(finder.for_path(display), "target", None))  # None: not set (Ascend C)
        try:
            fp = M.plan_file(display, source, tree, only=only, annotate=args.annotate)
        finally:
            DIALECT.reset(token)
        fp.notebook = nb
        plans.append(fp)
        if fp.new_text is None:
            continue
        try:
            new_bytes = nb.rebuild(fp.new_text) if nb is not None else (
                fp.new_bytes if fp.new_bytes is not None else source.encode(fp.new_text))
        except ValueError as exc:  # notebook.NotebookError: an edit crossed a cell
            fp.error = "not written: %s" % exc
            fp.new_text = None
            continue
        result = lint_source(display, new_bytes, finder.for_path(display))
        fp.remaining = [(f.line, f.code) for f in result.findings]
        if args.diff and nb is not None:
            from ..notebook import cell_diff

            diffs.append(cell_diff(display, data, new_bytes))
            continue
        if args.diff:
            diffs.append("".join(difflib.unified_diff(
                source.text.splitlines(keepends=True), fp.new_text.splitlines(keepends=True),
                "a/" + display.lstrip("./"), "b/" + display.lstrip("./"))))
            continue
        try:
            rewrite(display, stamps[display], lambda current, new=new_bytes: new)  # type: ignore[arg-type]
        except NotWritten as exc:
            fp.error = "not written: %s" % exc
        except OSError as exc:
            fp.error = "cannot write, the file is unchanged: %s" % (exc.strerror or exc)
    totals = M.summary(plans)
    # a kernel of a file that could not be written is not migrated
    totals["migrated"] = sum(1 for fp in plans if not fp.error for k in fp.kernels
                             if k.status == "migrated" and fp.new_text is not None)
    if args.output_format == "json":
        report = json.dumps({
            "files": [{
                "file": fp.path, "written": fp.new_text is not None and not fp.error and not args.diff,
                "error": fp.error, "still_reported": [{"line": n, "code": c} for n, c in fp.remaining],
                "kernels": [{
                    "kernel": k.name, **fp.place(k.line), "mode": k.mode, "status": k.status, "reason": k.reason,
                    "actions": k.actions,
                    "target": k.target,
                    "manual_steps": [{**fp.place(s.line), "lines": [fp.place(n)["line"] for n in s.lines]
                                      if fp.notebook is not None else s.lines, "what": s.what,
                                      "section": s.section, "optional": s.optional} for s in k.steps],
                } for k in fp.kernels],
            } for fp in plans],
            "errors": [{"file": e.path, "code": e.code, "message": e.message} for e in errors],
            "summary": totals,
        }, indent=2) + "\n"
    else:
        report = M.report_text(plans, getattr(args, "show_optional", False))
        s = totals
        unwritten = s.get("not_written") or 0
        report += "%d kernel%s %s, %s%d skipped, %d manual step%s.\n" % (
            s["migrated"], "" if s["migrated"] == 1 else "s", "to migrate" if args.diff else "migrated",
            "%d file%s not written, " % (unwritten, "" if unwritten == 1 else "s") if unwritten else "",
            sum(s["skipped"].values()), sum(s["manual_steps"].values()),
            "" if sum(s["manual_steps"].values()) == 1 else "s")
    from ..output import printable

    if args.diff:
        _emit(_printable_lines("".join(diffs)))
        _note(_printable_lines(report.rstrip("\n")))
    else:
        _emit(_printable_lines(report) if args.output_format == "text" else report, args.output_file)
    for e in errors:
        _note("%s: %s %s" % (printable(e.path), e.code, printable(e.message)))
    if any(fp.error for fp in plans):
        return 2
    return 1 if args.diff and diffs else 0
