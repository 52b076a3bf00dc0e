"""The ``flake8-tilelang`` command line.

    flake8-tilelang check [PATH ...]      lint (default: .)
    flake8-tilelang rule TLA001           one rule's documentation
    flake8-tilelang rules                 every code, its severity and default state
    flake8-tilelang config                the effective settings
    flake8-tilelang kernels [PATH ...]    inventory of kernels and their modes
    flake8-tilelang server                language server (LSP over stdio)
    flake8-tilelang version

Exit codes: 0 nothing to report (at or above ``--fail-on``), 1 diagnostics,
2 usage, configuration or internal error. Imports stay lazy: a run over files
that never mention tilelang loads neither the model nor astroid.
"""
from __future__ import annotations

import os
import sys
from typing import List, Optional

from ..constants import STRICT_ENV
from ..settings import (CACHE_DIR_NAME, FAIL_ON, FORMATS, HUMAN_FORMATS, ConfigError,
                        build_settings)

PROG = "flake8-tilelang"
SEVERITY_RANK = {"info": 0, "warning": 1, "error": 2}


class _Exit(Exception):
    def __init__(self, code: int):
        super().__init__(code)
        self.code = code


def _parser():
    import argparse

    class Formatter(argparse.HelpFormatter):
        """Fills in the opt-in codes only when help is printed (the registry
        is not loaded for anything else that only parses arguments)."""

        def _get_help_string(self, action):
            text = action.help or ""
            if "{opt_in}" in text:
                from ..settings import known_rules

                text = text.replace("{opt_in}", ", ".join(
                    r.code for r in known_rules() if not r.default_enabled))
            return text

    class Parser(argparse.ArgumentParser):
        def __init__(self, *args, **kwargs):
            kwargs.setdefault("formatter_class", Formatter)
            super().__init__(*args, **kwargs)

        def exit(self, status=0, message=None):  # noqa: A003 - argparse API
            if message:
                sys.stderr.write(message)
            raise _Exit(status)

    commands = {}  # name -> its parser: a usage error after a command prints that command's usage
    top = Parser(prog=PROG, description="Static checks for TileLang-Ascend kernels.",
                 epilog="Run '%s COMMAND --help' for a command's options." % PROG)
    top.add_argument("--version", action="store_true", help="print versions and exit")
    sub = top.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    def selection(p, formats=FORMATS, default_help="full", docs=False):
        g = p.add_argument_group("rule selection")
        g.add_argument("--select", action="append", metavar="CODES",
                       help="comma-separated codes or prefixes to enable instead of the default "
                            "(TLA), or ALL; replaces `select` from pyproject.toml")
        g.add_argument("--extend-select", action="append", metavar="CODES",
                       help="codes or prefixes to enable on top of the selection. Opt-in codes "
                            "({opt_in}) report only when named by their code or a prefix longer "
                            "than TLA (TLA05); ALL and TLA do not enable them")
        g.add_argument("--ignore", action="append", metavar="CODES",
                       help="codes or prefixes to disable; replaces `ignore` from the config")
        g.add_argument("--extend-ignore", action="append", metavar="CODES",
                       help="codes or prefixes to disable on top of `ignore`")
        g.add_argument("--per-file-ignores", action="append", metavar="PATTERN:CODES",
                       help="flake8 syntax, e.g. 'tests/*:TLA002 legacy/*.py:TLA'; replaces "
                            "`per-file-ignores` from the config; always wins over any select")
        g = p.add_argument_group("configuration")
        g.add_argument("--config", metavar="PYPROJECT",
                       help="read [tool.flake8-tilelang] from this file instead of the nearest "
                            "pyproject.toml that has one")
        g.add_argument("--isolated", action="store_true", help="ignore every configuration file")
        g.add_argument("--target-chip", dest="target_chip", metavar="CHIP",
                       help="the chip the on-chip rules (TLA101, TLA120, TLA130) and the kernels "
                            "footprint assume: A2, A3 or A5 (default A2/A3, or `target-chip`)")
        g.add_argument("--target", dest="target", metavar="DIALECT",
                       help="the dialect of kernels whose compile site names no target: ascendc "
                            "(Ascend C / PTO, the default) or npuir (AscendNPU IR: the Ascend C "
                            "rules do not apply); or `target`")
        if docs:
            g.add_argument("--docs-url", dest="docs_url", metavar="TEMPLATE",
                           help="link each rule's page in the JSON `url`, SARIF `helpUri` (and "
                                "the language server's code links): an http, https or file URL "
                                "with {code} for the code, e.g. 'https://example.org/rules/{code}.md'; "
                                "'' for none (default: none, or `docs-url`)")
        p.add_argument("--output-format", "--format", dest="output_format", choices=formats,
                       help="output format (default: %s, or `output-format` from the config)"
                       % default_help)
        p.add_argument("-o", "--output-file", metavar="FILE", help="write the output to FILE")

    def files(p):
        g = p.add_argument_group("files")
        g.add_argument("paths", nargs="*", metavar="PATH",
                       help="files or directories to check (default: .); - reads stdin")
        g.add_argument("--exclude", action="append", metavar="PATTERNS",
                       help="comma-separated globs replacing the default excludes (.git, venvs, "
                            "build, dist, caches, ...) and `exclude` from the config")
        g.add_argument("--extend-exclude", action="append", metavar="PATTERNS",
                       help="globs to exclude on top of the excludes")
        g.add_argument("--force-exclude", action="store_true",
                       help="apply excludes to files named on the command line too (pre-commit)")
        g.add_argument("--stdin-filename", "--stdin-display-name", dest="stdin_filename",
                       metavar="PATH", help="the name of the file read from stdin (-)")
        g.add_argument("-j", "--jobs", metavar="N", default=None,
                       help="worker processes (default: auto; serial for small inputs)")

    check = sub.add_parser("check", help="check files (default: .)",
                           description="Check TileLang-Ascend kernels. Exit 0: nothing at or above "
                                       "--fail-on; 1: diagnostics; 2: usage, config or internal error.")
    files(check)
    selection(check, docs=True)
    g = check.add_argument_group("suppression")
    g.add_argument("--report-unused-noqa", action="store_true",
                   help="report TLA codes in `# noqa` comments that silence nothing (TLA096)")
    g.add_argument("--disable-noqa", action="store_true",
                   help="ignore every `# noqa`, `# flake8: noqa` and `# flake8-tilelang: noqa`")
    g = check.add_argument_group("fixes")
    g.add_argument("--fix", dest="fix", action="store_true", default=None,
                   help="apply the safe fixes and write the files (config: `fix`)")
    g.add_argument("--no-fix", dest="fix", action="store_false", default=None,
                   help="apply no fix, even when a configuration says `fix = true`")
    g.add_argument("--unsafe-fixes", dest="unsafe_fixes", action="store_true", default=None,
                   help="also apply (or count as fixable) the fixes that may change what a kernel "
                        "does (config: `unsafe-fixes`)")
    g.add_argument("--no-unsafe-fixes", dest="unsafe_fixes", action="store_false", default=None,
                   help="neither apply nor count the unsafe fixes, even when a configuration says "
                        "`unsafe-fixes = true`")
    g.add_argument("--fix-only", dest="fix_only", action="store_true", default=None,
                   help="apply the fixes and report nothing else (exit 0)")
    g.add_argument("--no-fix-only", dest="fix_only", action="store_false", default=None,
                   help=argparse_suppress())
    g.add_argument("--diff", action="store_true",
                   help="print a unified diff of the fixes and write nothing (exit 1 when there "
                        "is something to fix); implies --fix-only")
    g.add_argument("--show-fixes", dest="show_fixes", action="store_true", default=None,
                   help="list the fixes applied (config: `show-fixes`)")
    g.add_argument("--no-show-fixes", dest="show_fixes", action="store_false", default=None,
                   help="do not list the fixes applied (overrides `show-fixes = true`)")
    g.add_argument("--add-noqa", action="store_true",
                   help="append `# noqa: CODE` to every reported line (merging with an existing "
                        "noqa) and report nothing else")
    g = check.add_argument_group("results")
    g.add_argument("--statistics", action="store_true",
                   help="print code, name and count per code instead of the diagnostics")
    g.add_argument("--exit-zero", action="store_true", help="exit 0 even with diagnostics")
    g.add_argument("-w", "--watch", action="store_true",
                   help="check again whenever a checked file (or a pyproject.toml) is added, changed or "
                        "removed, clearing the screen; Ctrl-C exits 0")
    g.add_argument("--fail-on", choices=FAIL_ON[::-1], default=None,
                   help="lowest severity that makes the exit code 1 (default: warning; info "
                        "diagnostics never fail unless --fail-on info)")
    g.add_argument("-q", "--quiet", action="store_true", help="no summary line on stderr")
    g.add_argument("--no-cache", action="store_true", help="do not read or write the cache")
    g.add_argument("--cache-dir", metavar="DIR",
                   help="cache directory (default: %s in the project root; env "
                        "FLAKE8_TILELANG_CACHE_DIR); in a folder the tool did not create, "
                        "only a flake8-tilelang/ subfolder is used" % CACHE_DIR_NAME)

    rule = sub.add_parser("rule", help="print a rule's documentation")
    rule.add_argument("code", nargs="?", help="e.g. TLA001")
    rule.add_argument("--all", action="store_true", help="every rule")
    rule.add_argument("--output-format", "--format", dest="output_format",
                      choices=("text", "markdown", "json"), default="text")

    rules = sub.add_parser("rules", help="list every code with its name, severity and default state")
    rules.add_argument("--output-format", "--format", dest="output_format",
                       choices=("text", "full", "concise", "json"), default="text")

    config = sub.add_parser("config", help="print the effective settings")
    selection(config, formats=("text", "toml", "json"), default_help="toml", docs=True)
    config.add_argument("--exclude", action="append", metavar="PATTERNS")
    config.add_argument("--extend-exclude", action="append", metavar="PATTERNS")
    config.add_argument("--report-unused-noqa", action="store_true")

    kernels = sub.add_parser("kernels", help="inventory of every kernel: mode, switches, hand-written "
                                             "primitives and diagnostics")
    files(kernels)
    selection(kernels, formats=("full", "text", "table", "json"), default_help="table")

    migrate = sub.add_parser(
        "migrate", help="rewrite Expert-mode kernels into Developer mode (the mode guide's §3.1)",
        description="Rewrite each Expert or Mixed kernel into Developer mode: the four switches on, "
                    "Developer allocations, no T.Scope, no hand-written syncs or annotate_address; "
                    "steps that need a human are listed, not guessed. Exit 0: done (or nothing to "
                    "do); 1: with --diff, there are changes; 2: usage, config or internal error.")
    files(migrate)
    migrate.add_argument("--to", choices=("developer",), default="developer",
                         help="target mode (only developer)")
    migrate.add_argument("--diff", action="store_true", help="print a unified diff and write nothing")
    migrate.add_argument("--kernel", action="append", metavar="NAME",
                         help="only this kernel (prim_func name or factory.name); repeatable")
    migrate.add_argument("--show-optional", action="store_true",
                         help="also list the optional `T.tile.*` rewrites (§3.1 step 5), counted otherwise")
    migrate.add_argument("--annotate", action="store_true",
                         help="also write a `# TODO(migrate, ...)` comment above each manual step")
    migrate.add_argument("--output-format", "--format", dest="output_format", choices=("text", "json"),
                         default="text", help="the report's format")
    migrate.add_argument("-o", "--output-file", metavar="FILE", help="write the report to FILE")
    migrate.add_argument("--config", metavar="PYPROJECT", help=argparse.SUPPRESS)
    migrate.add_argument("--isolated", action="store_true", help=argparse.SUPPRESS)

    server = sub.add_parser("server", help="run the language server over stdio (needs the [server] extra)",
                            description="A language server (LSP over stdio): diagnostics as you type, "
                                        "hover docs, quick fixes. Needs pygls (the `server` extra): "
                                        "pip install 'pygls>=2,<3'.")
    server.add_argument("--stdio", action="store_true",
                        help="accepted for clients that pass it; stdio is the only transport")
    sub.add_parser("version", help="print versions")
    commands.update(sub.choices)
    top.commands = commands  # type: ignore[attr-defined]
    return top


def argparse_suppress():
    import argparse

    return argparse.SUPPRESS


def main(argv: Optional[List[str]] = None) -> int:
    """Run the command line; returns the exit code."""
    try:
        return _main(list(sys.argv[1:] if argv is None else argv))
    except _Exit as exc:
        return exc.code
    except ConfigError as exc:
        from ..output import printable

        _stderr("%s: error: %s\n" % (PROG, printable(str(exc))))
        return 2
    except KeyboardInterrupt:
        _stderr("%s: interrupted\n" % PROG)
        return 130
    except BrokenPipeError:  # the reader of --help or --version went away
        silence_stdout()
        return 0
    except Exception:  # noqa: B902 - report, never a bare traceback and exit 1
        if os.environ.get(STRICT_ENV) == "1":
            raise
        import traceback

        from ..output import printable

        text = "\n".join(printable(line) for line in traceback.format_exc().split("\n"))
        _stderr("%s: internal error (please report it with this output):\n%s" % (PROG, text))
        return 2


def _stderr(text: str) -> None:
    try:
        sys.stderr.write(text)
    except (OSError, ValueError, AttributeError):  # no stderr left to complain to
        pass


def silence_stdout() -> None:
    """Point stdout at the null device, so that the interpreter's last flush
    of what is still buffered cannot fail (no "Exception ignored" message,
    no exit status 120)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def _main(argv: List[str]) -> int:
    parser = _parser()
    args, extra = parser.parse_known_args(argv)
    if extra:
        # argparse hands a command's unknown options back to the top-level
        # parser, which would print the top-level usage: print the command's
        command = parser.commands.get(getattr(args, "command", None) or "")
        (command or parser).error("unrecognized arguments: %s" % " ".join(extra))
    if args.version or args.command == "version":
        from .commands import _emit

        _emit(version_text())
        return 0
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    if args.command == "server":
        from ..server import main as serve

        return serve()
    from . import commands

    commands._PIPE_CLOSED = False
    return getattr(commands, "cmd_" + args.command)(args)


def version_text() -> str:
    import platform

    from .. import __version__

    try:
        from importlib.metadata import PackageNotFoundError, version
    except ImportError:  # pragma: no cover - Python < 3.8
        return "%s %s\nPython %s\n" % (PROG, __version__, platform.python_version())

    def ver(name: str) -> str:
        try:
            return "%s %s" % (name, version(name))  # metadata only: never imports the package
        except PackageNotFoundError:
            return "%s (not installed)" % name

    return "%s %s\n%s\n%s\nPython %s (%s, %s)\n" % (
        PROG, __version__, ver("flake8"), ver("astroid"), platform.python_version(),
        platform.python_implementation(), platform.system() or sys.platform)


def fail_code(findings, fail_on: Optional[str], exit_zero: bool) -> int:
    if exit_zero:
        return 0
    threshold = SEVERITY_RANK[fail_on or "warning"]
    return 1 if any(SEVERITY_RANK.get(f.severity, 2) >= threshold for f in findings) else 0


def is_human(fmt: str) -> bool:
    return fmt in HUMAN_FORMATS


__all__ = ["main", "build_settings"]
