"""Output formats shared by the command line and the flake8 report plugins.

Every formatter takes ``Record``-like objects (path, line, char column, end,
code, message, severity) and returns the whole text; nothing is imported
until a format is asked for.
"""
from __future__ import annotations

import os
import re
from typing import Dict, Iterable, List, Optional

FORMATS = ("full", "concise", "json", "json-lines", "sarif", "github", "gitlab")
HUMAN_FORMATS = ("full", "concise")

TOOL_NAME = "flake8-tilelang"
# The rule-page URL when no ``docs-url`` is configured: none. There is no
# hosted documentation site, SARIF carries every rule's full page as
# ``help.markdown`` anyway, and a file:// URI into the installed package would
# be a dead link wherever the report is read (code scanning, a CI artifact, a
# colleague's machine). ``docs-url`` (``{code}`` template) sets one.
DOCS_URL: Optional[str] = None
# SARIF's optional tool.driver.informationUri: none until the project has a
# public home (it is not on PyPI; a PyPI link would be dead, or point at
# whoever registers the name first)
INFORMATION_URI: Optional[str] = None


# What a terminal, a CI log or an editor may act on instead of showing: C0 and
# C1 control characters (ESC starts colour and title sequences, CSI is U+009B),
# DEL, line and paragraph separators, bidirectional overrides and isolates,
# and lone surrogates (the undecodable bytes of a file name, via
# ``surrogateescape``). A tab is left alone.
# Compiled on first use: flake8 imports this package on every run (the report
# plugins), most of which never print through it.
_UNSAFE_CLASS = ("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029"
                 "\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_SURROGATE_CLASS = "[\ud800-\udfff]"
_compiled: Dict[str, "re.Pattern[str]"] = {}


def _pattern(source: str) -> "re.Pattern[str]":
    found = _compiled.get(source)
    if found is None:
        found = _compiled[source] = re.compile(source)
    return found
_NAMED = {"\n": "\\n", "\r": "\\r"}


def _escape(match: "re.Match[str]") -> str:
    c = match.group()
    code = ord(c)
    if 0xDC80 <= code <= 0xDCFF:  # a byte of a name that is not UTF-8
        return "\\x%02x" % (code - 0xDC00)
    if c in _NAMED:
        return _NAMED[c]
    return "\\x%02x" % code if code < 0x100 else "\\u%04x" % code


def printable(text: str, keep: str = "") -> str:
    """``text`` safe to print: every character a terminal or a log viewer
    could act on (escape sequences, control characters, bidi controls) and
    every undecodable byte of a file name becomes a visible escape
    (``\\x1b``, ``\\n``, ``\\u202e``, ``\\xff``). Text without them is
    returned as is. Characters in ``keep`` are left for the caller to encode."""
    unsafe = _pattern(_UNSAFE_CLASS)
    if not unsafe.search(text):
        return text
    if keep:
        return unsafe.sub(lambda m: m.group() if m.group() in keep else _escape(m), text)
    return unsafe.sub(_escape, text)


def json_safe(text: str) -> str:
    """``text`` encodable as strict UTF-8 (JSON escapes control characters
    itself): undecodable file-name bytes become ``\\xff`` escapes."""
    surrogate = _pattern(_SURROGATE_CLASS)
    if not surrogate.search(text):
        return text
    return surrogate.sub(_escape, text)


def uri_safe(text: str) -> str:
    """A relative URI with each undecodable file-name byte percent-encoded
    (what the byte is in a URI); nothing else is changed."""
    surrogate = _pattern(_SURROGATE_CLASS)
    if not surrogate.search(text):
        return text
    return surrogate.sub(lambda m: "%%%02X" % (ord(m.group()) - 0xDC00)
                          if 0xDC80 <= ord(m.group()) <= 0xDCFF else _escape(m), text)


def rule_url(code: str, template: Optional[str] = None) -> Optional[str]:
    """The page of rule ``code`` from a ``docs-url`` template (validated by
    settings.docs_url_setting; ``{code}`` is the only field), else
    ``DOCS_URL``; None for codes without a page of ours (E902, E999, other
    plugins' codes)."""
    template = template or DOCS_URL
    if not template or not code.startswith("TLA"):
        return None
    return template.replace("{code}", code)


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
