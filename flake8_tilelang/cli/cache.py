"""An optional content-hash cache for ``check``.

An entry is found under a key made of:

- the checker itself: a hash of the source of every module of the
  ``flake8_tilelang`` package (so a changed rule, even without a new version
  number, never reuses an old result), its version and the Python version;
- the settings that change what a file reports (enabled codes, per-file
  ignores, noqa handling, project root);
- the file's path and a hash of its bytes.

Only files whose result depends on their own content are stored: a file that
imports one of the user's own modules (whose configs or macros the model may
follow) is always checked again. The directory carries a ``CACHEDIR.TAG``
and a ``.gitignore``; entries of an older checker or other settings are
removed when a new set is started.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from typing import List, Optional

from ..pipeline import Finding

TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by flake8-tilelang.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)
FORMAT = "1"

_TOOL_HASH: Optional[str] = None


def tool_fingerprint() -> str:
    global _TOOL_HASH
    if _TOOL_HASH is None:
        from .. import __version__

        package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        h = hashlib.sha256()
        h.update(("%s|%s|%s|%s" % (FORMAT, __version__, sys.version, sys.implementation.name)).encode())
        for root, dirs, files in os.walk(package):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                if name.endswith(".py"):
                    path = os.path.join(root, name)
                    h.update(os.path.relpath(path, package).encode() + b"\0")
                    with open(path, "rb") as f:
                        h.update(f.read())
        _TOOL_HASH = h.hexdigest()
    return _TOOL_HASH


class Cache:
    def __init__(self, directory: str, settings_fingerprint: str):
        self.root = directory
        salt = hashlib.sha256((tool_fingerprint() + "|" + settings_fingerprint + "|" +
                               os.environ.get("FLAKE8_TILELANG_STRICT", "")).encode())
        self.dir = os.path.join(directory, salt.hexdigest()[:20])
        self._ready = False
        self.hits = 0

    @staticmethod
    def key(display: str, data: bytes) -> str:
        h = hashlib.sha256(os.path.abspath(display).encode() + b"\0" + display.encode() + b"\0")
        h.update(data)
        return h.hexdigest()

    def get(self, key: str) -> Optional[List[Finding]]:
        try:
            with open(os.path.join(self.dir, key), "r", encoding="utf-8") as f:
                rows = json.load(f)
            if not isinstance(rows, list):
                return None
            found = [Finding.from_row(row) for row in rows]
        except (OSError, ValueError, TypeError, RecursionError):
            return None
        self.hits += 1
        return found

    def put(self, key: str, findings: List[Finding]) -> None:
        try:
            self._prepare()
            path = os.path.join(self.dir, key)
            tmp = "%s.%d.tmp" % (path, os.getpid())
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump([x.to_row() for x in findings], f)
            os.replace(tmp, path)
        except OSError:
            pass  # a read-only tree still gets its results, just not cached

    def _prepare(self) -> None:
        if self._ready:
            return
        if not os.path.isdir(self.dir):
            os.makedirs(self.dir, exist_ok=True)
            for name in os.listdir(self.root):  # results of an older checker or other settings
                full = os.path.join(self.root, name)
                if full != self.dir and os.path.isdir(full) and len(name) == 20 and all(
                        c in "0123456789abcdef" for c in name):
                    shutil.rmtree(full, ignore_errors=True)
        for name, text in (("CACHEDIR.TAG", TAG), (".gitignore", "# created by flake8-tilelang\n*\n")):
            path = os.path.join(self.root, name)
            if not os.path.exists(path):
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
        self._ready = True
