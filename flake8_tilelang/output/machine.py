"""Formats for tools: ``json`` / ``json-lines`` (Ruff's schema plus
``severity``), ``sarif`` (2.1.0, what GitHub code scanning accepts),
``github`` (workflow annotations) and ``gitlab`` (code quality report).

The inputs are finding-like objects with ``path``, ``line``, ``char_col``,
``end_line``, ``char_end_col``, ``code``, ``message``, ``severity``,
``noqa_row`` and ``source``; ``abspath``/``relpath`` are passed in as
functions so the flake8 report plugins can use the same code.

Paths and messages come from the linted tree: JSON escapes control characters
itself, undecodable bytes of a file name become ``\\xff`` escapes (URIs:
``%FF``) so every document is strict UTF-8, and the ``github`` lines (read by
a terminal-like log viewer) get the text formats' escaping.
"""
from __future__ import annotations

import hashlib
import json
import os
from typing import Callable, Dict, Iterable, List, Optional, Sequence

from ..source import char_index
from . import INFORMATION_URI, TOOL_NAME, json_safe, plural, printable, rule_url, severity_counts

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
GITHUB_COMMAND = {"error": "error", "warning": "warning", "info": "notice"}
GITLAB_SEVERITY = {"error": "major", "warning": "minor", "info": "info"}
GITHUB_SHOWN_PER_TYPE = 10  # annotations GitHub displays per type and step


# -- json ---------------------------------------------------------------------

def json_object(f, abspath: Callable[[str], str], docs_url: Optional[str] = None) -> Dict[str, object]:
    line = max(f.line, 1)
    return {
        "cell": getattr(f, "cell", None),
        "code": f.code,
        "end_location": {"column": f.char_end_col if f.line > 0 else 1,
                         "row": max(f.end_line, 1)},
        "filename": json_safe(abspath(f.path)),
        "fix": _json_fix(f),
        "help": json_safe(f.help) if f.help else None,
        "location": {"column": f.char_col, "row": line},
        "message": json_safe(f.message),
        "noqa_row": f.noqa_row,
        "severity": f.severity,
        "url": rule_url(f.code, docs_url),
    }


def _json_fix(f) -> Optional[Dict[str, object]]:
    """Ruff's ``fix`` object; edit columns are 1-based characters on the
    finding's own lines, bytes elsewhere (fixes span one statement)."""
    fix = getattr(f, "fix", None)
    if fix is None:
        return None

    return {
        "applicability": fix.applicability,
        "message": fix.title,
        "edits": [_json_edit(f, e) for e in fix.edits],
    }


def _json_edit(f, e) -> Dict[str, object]:
    out: Dict[str, object] = {"content": e.text}
    if getattr(f, "cell", None) and getattr(e, "cell", None):
        out["cell"] = e.cell  # a notebook: rows are that cell's
        if e.cell != f.cell:  # another cell's lines: byte columns + 1
            out["location"] = {"row": e.start[0], "column": e.start[1] + 1}
            out["end_location"] = {"row": e.end[0], "column": e.end[1] + 1}
            return out
    out["location"] = _edit_loc(f, *e.start)
    out["end_location"] = _edit_loc(f, *e.end)
    return out


def _edit_loc(f, line: int, col: int) -> Dict[str, int]:
    """1-based character column on the finding's own lines, bytes + 1
    elsewhere (an edit's other lines are indentation, ASCII)."""
    if line == f.line:
        return {"row": line, "column": char_index(f.source, col) + 1}
    if line == f.end_line and f.end_source:
        return {"row": line, "column": char_index(f.end_source, col) + 1}
    return {"row": line, "column": col + 1}


def to_json(findings: Iterable, abspath: Callable[[str], str], docs_url: Optional[str] = None) -> str:
    return json.dumps([json_object(f, abspath, docs_url) for f in findings], indent=2, sort_keys=True) + "\n"


def to_json_lines(findings: Iterable, abspath: Callable[[str], str], docs_url: Optional[str] = None) -> str:
    return "".join(json.dumps(json_object(f, abspath, docs_url), sort_keys=True) + "\n" for f in findings)


def _one_line(f) -> str:
    return getattr(f, "one_line", None) or f.message


# -- notebooks: the structured formats point into the .ipynb file itself ------

def _raw(f):
    """(line, column, end line, end column) in the ``.ipynb`` text of a
    finding in a notebook, else None."""
    return getattr(f, "raw", None) if getattr(f, "cell", None) else None


def _cell_prefix(f) -> str:
    cell = getattr(f, "cell", None)
    return "cell %d, line %d: " % (cell, f.line) if cell else ""


# -- sarif --------------------------------------------------------------------

def _sarif_rule(rule, docs_url: Optional[str] = None) -> Dict[str, object]:
    docs = rule.docs()
    entry: Dict[str, object] = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary.strip()},
        "fullDescription": {"text": " ".join(rule.what.split())},
        "help": {
            "text": "%s\n\nFix: %s" % (" ".join(rule.what.split()), " ".join(rule.fix.split())),
            "markdown": docs,
        },
        "defaultConfiguration": {
            "level": SARIF_LEVEL.get(rule.severity, "warning"),
            "enabled": bool(rule.default_enabled),
        },
        "properties": {
            "tags": ["tilelang", "ascend"] + (["preview"] if rule.preview else []),
            "precision": "high" if rule.confidence == "high" else "medium",
            "problem.severity": {"info": "recommendation"}.get(rule.severity, rule.severity),
        },
    }
    url = rule_url(rule.code, docs_url)
    if url:
        entry["helpUri"] = url
    return entry


def _external_rule(code: str, severity: str) -> Dict[str, object]:
    """A code from another flake8 plugin (only in the flake8 report plugin)."""
    text = "%s, reported by another flake8 plugin; see that plugin's documentation" % code
    return {
        "id": code,
        "name": code,
        "shortDescription": {"text": text},
        "fullDescription": {"text": text},
        "help": {"text": text, "markdown": text},
        "defaultConfiguration": {"level": SARIF_LEVEL.get(severity, "warning")},
    }


def uri_path(path: str) -> str:
    """A path as the path part of a URI: ``/`` separators, everything else
    percent-encoded (spaces, ``%``, ``:`` so ``c:d.py`` is no scheme,
    non-ASCII as UTF-8, undecodable file-name bytes as they are on disk)."""
    from urllib.parse import quote

    return quote(os.fsencode(path.replace(os.sep, "/")), safe="/")


def artifact_location(path: str, root: str) -> Dict[str, str]:
    """SARIF 2.1.0 ``artifactLocation``: relative to ``%SRCROOT%`` for a file
    under ``root``, an absolute ``file://`` URI (and no base) for any other."""
    full = os.path.abspath(path)
    try:
        rel = os.path.relpath(full, root)
    except ValueError:  # another drive
        rel = None
    if rel is None or rel == ".." or rel.startswith(".." + os.sep) or os.path.isabs(rel):
        return {"uri": file_uri(full, directory=False)}
    return {"uri": uri_path(rel), "uriBaseId": "%SRCROOT%"}


def to_sarif(findings: Sequence, rules: Sequence, relpath: Callable[[str], str], version: str,
             root_uri: Optional[str] = None, root: Optional[str] = None,
             docs_url: Optional[str] = None) -> str:
    table = [_sarif_rule(r, docs_url) for r in rules]
    index = {r.code: i for i, r in enumerate(rules)}
    for f in findings:
        if f.code not in index:
            index[f.code] = len(table)
            table.append(_external_rule(f.code, f.severity))
    results = []
    for f in findings:
        line = max(f.line, 1)
        region: Dict[str, object] = {"startLine": line}
        raw = _raw(f)
        if raw is not None:
            region = {"startLine": raw[0], "startColumn": raw[1], "endLine": raw[2], "endColumn": raw[3]}
        elif f.line > 0:
            region["startColumn"] = f.char_col
            region["endLine"] = max(f.end_line, line)
            region["endColumn"] = max(f.char_end_col, f.char_col + 1) if f.end_line == f.line \
                else f.char_end_col
        location = {"physicalLocation": {
            "artifactLocation": artifact_location(f.path, root) if root else {"uri": uri_path(relpath(f.path))},
            "region": region,
        }}
        result: Dict[str, object] = {
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": SARIF_LEVEL.get(f.severity, "warning"),
            "message": {"text": json_safe(_cell_prefix(f) + _one_line(f))},
            "locations": [location],
        }
        fixes = _sarif_fixes(f, location["physicalLocation"]["artifactLocation"]) if raw is None else []
        if fixes:
            result["fixes"] = fixes
        results.append(result)
    driver: Dict[str, object] = {"name": TOOL_NAME, "version": version, "semanticVersion": version}
    if INFORMATION_URI:
        driver["informationUri"] = INFORMATION_URI
    driver["rules"] = table
    run: Dict[str, object] = {
        "tool": {"driver": driver},
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    if root_uri:
        run["originalUriBaseIds"] = {"%SRCROOT%": {"uri": root_uri}}
    doc = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(doc, indent=2) + "\n"


def _sarif_fixes(f, artifact: Dict[str, str]) -> List[Dict[str, object]]:
    """SARIF 2.1.0 ``fix`` objects (§3.55): one per fix with edits (safe or
    unsafe; a display-only fix has nothing to apply), each edit a
    ``replacement`` of a ``deletedRegion`` by ``insertedContent``."""
    fix = getattr(f, "fix", None)
    if fix is None or not fix.edits:
        return []
    replacements = []
    for e in fix.edits:
        start, end = _edit_loc(f, *e.start), _edit_loc(f, *e.end)
        replacements.append({
            "deletedRegion": {"startLine": start["row"], "startColumn": start["column"],
                              "endLine": end["row"], "endColumn": end["column"]},
            "insertedContent": {"text": e.text},
        })
    return [{
        "description": {"text": "%s (%s fix)" % (fix.title, fix.applicability)},
        "artifactChanges": [{"artifactLocation": dict(artifact), "replacements": replacements}],
    }]


def file_uri(path: str, directory: bool = True) -> str:
    """``file:///abs/path/`` (a directory ends with ``/``), percent-encoded."""
    full = os.path.abspath(path).replace(os.sep, "/")
    if not full.startswith("/"):
        full = "/" + full  # c:/x -> /c:/x
    encoded = uri_path(full)
    return "file://" + encoded + ("/" if directory and not encoded.endswith("/") else "")


# -- github -------------------------------------------------------------------

def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_line(f, relpath: Callable[[str], str]) -> str:
    path = printable(relpath(f.path))
    props = ["file=%s" % escape_property(path), "line=%d" % max(f.line, 1)]
    raw = _raw(f)
    if raw is not None:
        props = ["file=%s" % escape_property(path), "line=%d" % raw[0], "col=%d" % raw[1],
                 "endLine=%d" % raw[2], "endColumn=%d" % raw[3]]
    elif f.line > 0:
        props.append("col=%d" % f.char_col)
        props.append("endLine=%d" % max(f.end_line, f.line))
        props.append("endColumn=%d" % f.char_end_col)
    props.append("title=%s" % escape_property("%s (%s)" % (TOOL_NAME, f.code)))
    cell = getattr(f, "cell", None)
    message = "%s:%s%d:%d: %s %s" % (path, "cell %d:" % cell if cell else "", max(f.line, 1),
                                     f.char_col if f.line > 0 else 1,
                                   f.code, printable(_one_line(f), keep="\r\n"))  # %0D, %0A
    return "::%s %s::%s" % (GITHUB_COMMAND.get(f.severity, "error"), ",".join(props),
                            escape_data(message))


def github_summary(findings: Sequence, files: Optional[int] = None,
                   sarif_option: str = "--output-format sarif") -> str:
    """A plain log line after the annotations: GitHub shows only the first
    10 annotations of each type per step, the log keeps every one.
    ``sarif_option``: how the front end asks for SARIF (flake8's reporter
    passes ``--format=tla-sarif``)."""
    counts = severity_counts(findings)
    where = " (%s checked)" % plural(files, "file") if files is not None else ""
    if not findings:
        return "%s: no diagnostics%s." % (TOOL_NAME, where)
    parts = []
    hidden = False
    for sev in ("error", "warning", "info"):
        n = counts.get(sev, 0)
        if n:
            parts.append(plural(n, GITHUB_COMMAND[sev]))
            hidden = hidden or n > GITHUB_SHOWN_PER_TYPE
    text = "%s: %s: %s%s." % (TOOL_NAME, plural(len(findings), "diagnostic"), ", ".join(parts), where)
    if hidden:
        text += (" GitHub shows only the first %d annotations of each type per step; all of them "
                 "are in this log, and %s uploads every one to code scanning."
                 % (GITHUB_SHOWN_PER_TYPE, sarif_option))
    return text


def to_github(findings: Sequence, relpath: Callable[[str], str], files: Optional[int] = None) -> str:
    lines = [github_line(f, relpath) for f in findings]
    lines.append(github_summary(findings, files))
    return "\n".join(lines) + "\n"


# -- gitlab -------------------------------------------------------------------

def to_gitlab(findings: Sequence, relpath: Callable[[str], str]) -> str:
    """GitLab code quality: fingerprints stay the same when lines move (code,
    path, the reported line's text and its occurrence number)."""
    seen: Dict[str, int] = {}
    out: List[Dict[str, object]] = []
    for f in findings:
        path = relpath(f.path)
        raw = _raw(f)
        base = "\0".join((f.code, path, f.source.strip(), f.message if not f.source else ""))
        n = seen.get(base, 0)
        seen[base] = n + 1
        fingerprint = hashlib.sha256(("%s\0%d" % (base, n)).encode("utf-8", "surrogatepass")
                                     ).hexdigest()[:32]
        path = json_safe(path)
        out.append({
            "check_name": f.code,
            "description": json_safe("%s %s%s" % (f.code, _cell_prefix(f), _one_line(f))),
            "fingerprint": fingerprint,
            "severity": GITLAB_SEVERITY.get(f.severity, "major"),
            "location": {"path": path, "lines": {"begin": raw[0], "end": raw[2]} if raw is not None else {
                "begin": max(f.line, 1), "end": max(f.end_line, f.line, 1)}},
        })
    return json.dumps(out, indent=2) + "\n"
