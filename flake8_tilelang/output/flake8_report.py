"""SARIF and GitHub output for pure-flake8 users: ``--format=tla-sarif`` and
``--format=tla-github`` (``flake8.report`` entry points). They format every
violation flake8 reports, from any plugin, with the same code as
``flake8-tilelang check --output-format sarif|github``.

flake8 imports this module on every run, so it imports nothing heavy at
module level.
"""
from __future__ import annotations

import os
from typing import List, Optional

from flake8.formatting.base import BaseFormatter


class _Record:
    """One flake8 violation as the shared formatters read it (a plain class:
    a NamedTuple costs a class build on every flake8 run, which imports this
    module whatever the format)."""

    __slots__ = ("path", "line", "char_col", "end_line", "char_end_col", "code", "message", "severity",
                 "noqa_row", "source")

    def __init__(self, path: str, line: int, char_col: int, end_line: int, char_end_col: int, code: str,
                 message: str, severity: str, noqa_row: Optional[int], source: str):
        self.path = path
        self.line = line
        self.char_col = char_col
        self.end_line = end_line
        self.char_end_col = char_end_col
        self.code = code
        self.message = message
        self.severity = severity
        self.noqa_row = noqa_row
        self.source = source


def _severity(code: str) -> str:
    if code.startswith("TLA"):
        from ..settings import known_rules

        for rule in known_rules():
            if rule.code == code:
                return rule.severity
        return "error"
    return "error" if code.startswith(("E9", "F")) else "warning"


def _record(error) -> _Record:
    col = max(int(error.column_number or 1), 1)
    line = int(error.line_number or 0)
    source = (error.physical_line or "").split("\n", 1)[0]
    text = error.text
    severity = None
    if error.code.startswith("TLA"):
        from ..diagnostic import read_severity_tag

        # the plugin tags a finding whose tier differs from its rule's default
        severity, text = read_severity_tag(text)
    return _Record(error.filename, line, col, line, col + 1, error.code, text,
                   severity or _severity(error.code), line or None, source)


class _Base(BaseFormatter):
    def _root(self) -> str:
        from . import find_repo_root

        return find_repo_root(os.getcwd()) or os.getcwd()

    def _relpath(self, root: str):
        from . import repo_relative

        return lambda path: repo_relative(path, root)


class SarifFormatter(_Base):
    """``flake8 --format=tla-sarif --output-file=flake8.sarif``"""

    def after_init(self) -> None:
        self._records: List[_Record] = []

    def handle(self, error) -> None:
        self._records.append(_record(error))

    def format(self, error) -> Optional[str]:
        return None

    def show_statistics(self, statistics) -> None:
        pass  # the output must stay one JSON document

    def show_benchmarks(self, benchmarks) -> None:
        pass

    def stop(self) -> None:
        from .. import __version__
        from ..settings import known_rules
        from .machine import file_uri, to_sarif

        root = self._root()
        rules = [r for r in known_rules() if r.code.startswith("TLA")]
        records = sorted(self._records, key=lambda r: (r.path, r.line, r.char_col, r.code))
        text = to_sarif(records, rules, self._relpath(root), __version__, file_uri(root), root)
        self._write(text.rstrip("\n"))
        super().stop()


class GithubFormatter(_Base):
    """``flake8 --format=tla-github``: one workflow annotation per violation
    and a summary line (GitHub shows only 10 annotations of each type)."""

    def after_init(self) -> None:
        self._records: List[_Record] = []
        self._relpath_fn = None

    def format(self, error) -> Optional[str]:
        from .machine import github_line

        if self._relpath_fn is None:
            self._relpath_fn = self._relpath(self._root())
        record = _record(error)
        self._records.append(record)
        return github_line(record, self._relpath_fn)

    def show_source(self, error) -> Optional[str]:
        return None  # an annotation is one line

    def stop(self) -> None:
        from .machine import github_summary

        # name flake8's own flag, not the command line's --output-format
        self._write(github_summary(self._records, sarif_option="--format=tla-sarif"))
        super().stop()
