"""Output formats shared by the command line and the flake8 report plugins.

Every formatter takes ``Record``-like objects (path, line, char column, end,
code, message, severity) and returns the whole text; nothing is imported
until a format is asked for.
"""
from __future__ import annotations

import os
from typing import Dict, Iterable, List, Optional

FORMATS = ("full", "concise", "json", "json-lines", "sarif", "github", "gitlab")
HUMAN_FORMATS = ("full", "concise")

TOOL_NAME = "flake8-tilelang"
# No hosted documentation site yet: JSON "url" is null and SARIF rules carry
# their full help text instead of a helpUri. Set this to "<base>/{code}" when
# one exists; it must stay stable across releases.
DOCS_URL: Optional[str] = None
INFORMATION_URI = "https://pypi.org/project/flake8-tilelang/"


def rule_url(code: str) -> Optional[str]:
    return DOCS_URL.format(code=code) if DOCS_URL else None


def find_repo_root(start: str) -> Optional[str]:
    d = os.path.abspath(start)
    while True:
        if os.path.exists(os.path.join(d, ".git")):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def repo_relative(path: str, root: str) -> str:
    """``kernels/a.py`` (with ``/``) when under ``root``, else the absolute path."""
    full = os.path.abspath(path)
    try:
        rel = os.path.relpath(full, root)
    except ValueError:
        return full.replace(os.sep, "/")
    if rel == ".." or rel.startswith(".." + os.sep):
        return full.replace(os.sep, "/")
    return rel.replace(os.sep, "/")


def severity_counts(findings: Iterable) -> Dict[str, int]:
    counts: Dict[str, int] = {}
    for f in findings:
        counts[f.severity] = counts.get(f.severity, 0) + 1
    return counts


def plural(n: int, word: str) -> str:
    return "%d %s%s" % (n, word, "" if n == 1 else "s")


def summary_text(findings: List, files: int) -> str:
    """The one-line summary for humans (stderr)."""
    if not findings:
        return "All checks passed (%s checked)." % plural(files, "file")
    counts = severity_counts(findings)
    parts = [plural(counts[s], s) if s != "info" else "%d info" % counts[s]
             for s in ("error", "warning", "info") if counts.get(s)]
    nfiles = len({f.path for f in findings})
    return "Found %s (%s) in %s of %s checked." % (
        plural(len(findings), "diagnostic"), ", ".join(parts), plural(nfiles, "file"), files)
