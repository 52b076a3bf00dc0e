"""``check --watch``: check, then check again whenever a file changes, like
``ruff check --watch``.

Changes are found by polling with the standard library (no new dependency):
each poll lists the files ``check`` would look at (the same discovery, so
excludes apply and an added or removed file is seen) plus the configuration
files that decide them, with their modification time and size. A change
starts a quiet period (``DEBOUNCE_SECONDS``): an editor that writes a file
in several steps, or a ``git checkout`` touching many files, gives one new
run, not one per write. Each run is a normal ``check`` (the cache is used as
usual, so unchanged files cost a cache look-up). The screen is cleared
before each run when stdout is a terminal. Ctrl-C exits 0.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Callable, Dict, List, Optional, Tuple

POLL_SECONDS = 0.5
DEBOUNCE_SECONDS = 0.3
CONFIG_NAMES = ("pyproject.toml",)
CLEAR = "\033[2J\033[3J\033[H"

Snapshot = Dict[str, Tuple[int, int]]


def snapshot(args) -> Snapshot:
    """(mtime in ns, size) of every file ``check`` would look at, and of the
    configuration files above and in the checked folders."""
    from ..settings import SettingsFinder
    from .commands import _paths
    from .discover import STDIN, discover

    finder = SettingsFinder(args)
    paths = _paths(args)
    out: Snapshot = {}
    try:
        files = discover(paths, finder.base, args.force_exclude)
    except Exception:  # noqa: B902 - a path that vanished: the next run reports it
        files = []
    folders = set()
    for display, path in files:
        if path == STDIN:
            continue
        _stat(path, out)
        folders.add(os.path.dirname(os.path.abspath(path)))
    for p in paths:
        if p != STDIN:
            folders.add(os.path.abspath(p) if os.path.isdir(p) else os.path.dirname(os.path.abspath(p)))
            if not os.path.exists(p):
                out[os.path.abspath(p)] = (-1, -1)  # a named path that is missing: see it come back
    if getattr(args, "config", None):
        _stat(args.config, out)
    seen = set()
    for folder in folders:
        while folder not in seen:  # the configs that may apply: up to the root
            seen.add(folder)
            for name in CONFIG_NAMES:
                _stat(os.path.join(folder, name), out)
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
    return out


def _stat(path: str, out: Snapshot) -> None:
    try:
        st = os.stat(path)
    except OSError:
        return
    out[os.path.abspath(path)] = (st.st_mtime_ns, st.st_size)


def changes(before: Snapshot, after: Snapshot) -> List[str]:
    """The paths added, removed or modified between two snapshots."""
    return sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))


def watch(args, run: Optional[Callable[[argparse.Namespace], int]] = None, *,
          clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep,
          poll: float = POLL_SECONDS, debounce: float = DEBOUNCE_SECONDS,
          max_runs: Optional[int] = None, take: Callable = snapshot) -> int:
    """Run ``check`` now and after every change until Ctrl-C (exit 0), or
    ``max_runs`` runs (tests inject ``clock``, ``sleep`` and ``max_runs``)."""
    from .commands import _note

    if "-" in (args.paths or ()) or getattr(args, "stdin_filename", None) and not args.paths:
        from ..settings import ConfigError

        raise ConfigError("--watch: cannot watch stdin; name files or folders")
    if run is None:
        from .commands import cmd_check

        run = cmd_check
    once = argparse.Namespace(**dict(vars(args), watch=False))
    runs = 0
    try:
        while True:
            _clear()
            _note("[%s] %s" % (time.strftime("%H:%M:%S"), "Checking..." if not runs else
                               "File change detected, checking again..."))
            run(once)
            runs += 1
            # after the run: a --fix that wrote files is not a change to react to
            seen = take(once)
            _note("[%s] Watching for file changes (Ctrl-C to exit)." % time.strftime("%H:%M:%S"))
            if max_runs is not None and runs >= max_runs:
                return 0
            while True:
                sleep(poll)
                now = take(once)
                if changes(seen, now):
                    break
            # debounce: wait until nothing has changed for `debounce` seconds
            quiet_since = clock()
            while clock() - quiet_since < debounce:
                sleep(min(poll, debounce))
                later = take(once)
                if changes(now, later):
                    now, quiet_since = later, clock()
    except KeyboardInterrupt:
        _note("")
        return 0


def _clear() -> None:
    out = sys.stdout
    if out is not None and hasattr(out, "isatty") and out.isatty() and os.environ.get("TERM") != "dumb":
        try:
            out.write(CLEAR)
            out.flush()
        except (OSError, ValueError):
            pass
