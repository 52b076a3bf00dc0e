"""``check``: discover, read, gate, (cache), analyse serially or in a process
pool, and return every finding sorted by path, line, column and code."""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from ..pipeline import MARKER, FileResult, Finding, lint_source, simple
from ..settings import IO_ERROR, Settings, SettingsFinder
from .discover import STDIN, discover

# Below these (about half a second of analysis) the pool's start-up (fork,
# per-worker caches) costs more than it saves; -j N forces a pool.
PARALLEL_MIN_FILES = 16
PARALLEL_MIN_BYTES = 400_000


@dataclass
class Outcome:
    findings: List[Finding] = field(default_factory=list)
    files: int = 0  # files looked at
    analysed: int = 0  # files that mention tilelang
    cached: int = 0
    jobs: int = 1
    notes: List[str] = field(default_factory=list)  # one-line warnings for stderr
    skipped: List[Tuple[str, str]] = field(default_factory=list)  # (path, why)
    # display path -> what was linted (root, device, inode, hash): the writes check it
    stamps: Dict[str, "Stamp"] = field(default_factory=dict)


# A file above this is reported as E902 instead of being read (a source file
# that large is generated data, and parsing it would take minutes and GBs).
MAX_FILE_BYTES = 32 << 20

# Reading and writing linted files: one guarded open (cli/fileio.py)
from .fileio import NotReadable, Stamp, read_linted, size_text as _size  # noqa: E402


def read_file(path: str, limit: Optional[int] = None, root: Optional[str] = None) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes whose real
    path is inside the project (see ``fileio.read_linted``)."""
    return read_linted(path, MAX_FILE_BYTES if limit is None else limit, root)[0]


def write_in_place(path: str, data: bytes, root: Optional[str] = None) -> None:
    """Replace a file's content with the guarantees of ``fileio.rewrite``
    (atomic, never through a link, keeps mode and line endings); for a
    caller that has no stamp of its own, the file as it is now is the one
    replaced. Raises OSError (``fileio.NotWritten`` when refused)."""
    from .fileio import rewrite

    _, stamp = read_linted(path, MAX_FILE_BYTES, root)
    rewrite(path, stamp, lambda current: data)


def read_stdin(limit: Optional[int] = None) -> bytes:
    limit = MAX_FILE_BYTES if limit is None else limit
    data = sys.stdin.buffer.read(limit + 1)
    if len(data) > limit:
        raise NotReadable("not checked: stdin is above the %s limit for one file" % _size(limit))
    return data


def read_inputs(files: List[Tuple[str, str]], stdin_data: Optional[bytes], root: Optional[str] = None,
                stamps: Optional[Dict[str, Stamp]] = None):
    """(display, bytes) for files to analyse, and E902 findings (the run
    goes on). ``root``: the configured project root (a file must stay
    inside its project); ``stamps`` collects what was read per display
    path, for the writes. One file reached by two names (hard links, a
    symlink inside the project) is read once, preferably by a name that
    is not a symlink."""
    todo: List[Tuple[str, bytes]] = []
    errors: List[Finding] = []
    seen: Dict[Tuple[int, int], int] = {}  # (device, inode) -> index in todo, or -1
    for display, path in files:
        stamp = None
        try:
            if path == STDIN:
                if isinstance(stdin_data, NotReadable):  # read (and refused) once by the caller
                    raise stdin_data
                data = stdin_data if stdin_data is not None else read_stdin()
            else:
                data, stamp = read_linted(path, MAX_FILE_BYTES, root)
        except NotReadable as exc:
            errors.append(simple(display, 0, 0, IO_ERROR, str(exc)))
            continue
        except OSError as exc:
            # flake8's spelling: E902 at 0:1 with the exception
            errors.append(simple(display, 0, 0, IO_ERROR, "%s: %s" % (type(exc).__name__, exc)))
            continue
        if stamp is not None:
            ident = (stamp.dev, stamp.ino)
            before = seen.get(ident)
            if before is not None:
                if before >= 0 and os.path.islink(todo[before][0]) and not os.path.islink(path):
                    old = todo[before][0]
                    todo[before] = (display, data)
                    if stamps is not None:
                        stamps.pop(old, None)
                        stamps[display] = stamp
                continue
            seen[ident] = len(todo) if MARKER in data else -1
        if MARKER in data:
            todo.append((display, data))
            if stamps is not None and stamp is not None:
                stamps[display] = stamp
    return todo, errors


def check(paths: List[str], settings: Settings, *, force_exclude: bool = False,
          stdin_filename: Optional[str] = None, stdin_data: Optional[bytes] = None,
          jobs: Optional[int] = None, cache_dir: Optional[str] = None,
          finder: Optional[SettingsFinder] = None) -> Outcome:
    """``settings`` are the working directory's (discovery); ``finder``
    gives each file its own (the closest configured pyproject.toml)."""
    files = discover(paths, settings, force_exclude)
    if stdin_filename is not None:
        files = [(stdin_filename if p == STDIN else d, p) for d, p in files]
        if force_exclude and any(p == STDIN for _, p in files):
            from .discover import Excluder

            if Excluder(settings).path(stdin_filename):
                files = [(d, p) for d, p in files if p != STDIN]
    elif any(p == STDIN for _, p in files):
        files = [("stdin" if p == STDIN else d, p) for d, p in files]
    skipped: List[Tuple[str, str]] = []
    own = {}  # display -> Settings, when a nested config decides for that file
    if finder is not None:
        named = {os.path.normcase(os.path.abspath(p)) for p in paths or () if p != STDIN}
        kept = []
        for display, path in files:
            mine = finder.for_path(display)
            if mine is not settings:
                own[display] = mine
                from .discover import Excluder

                # a nested config's excludes apply below it, like Ruff's
                if (force_exclude or os.path.normcase(os.path.abspath(display)) not in named) \
                        and path != STDIN and Excluder(mine).path(display):
                    continue
            kept.append((display, path))
        files = kept
    outcome = Outcome(files=len(files), skipped=skipped)
    todo, errors = read_inputs(files, stdin_data, settings.project_root, outcome.stamps)
    outcome.findings.extend(errors)
    outcome.analysed = len(todo)

    table: List[Settings] = [settings]  # every distinct Settings, for the workers
    index = {id(settings): 0}
    for mine in own.values():
        if id(mine) not in index:
            index[id(mine)] = len(table)
            table.append(mine)
    cache = None
    if cache_dir and todo:
        from .cache import Cache

        # the settings are part of each entry's key, so one cache serves every config
        cache = Cache(cache_dir, settings.fingerprint())
    from_stdin = {d for d, p in files if p == STDIN}
    keys = {}
    pending: List[Tuple[str, bytes, int]] = []
    for display, data in todo:
        which = index[id(own.get(display, settings))]
        if cache is not None and display not in from_stdin:
            key = cache.key(display, data + b"\0" + table[which].fingerprint().encode("utf-8", "surrogateescape"))
            hit = cache.get(key, display)
            if hit is not None:
                outcome.findings.extend(hit)
                continue
            keys[display] = key
        pending.append((display, data, which))
    outcome.cached = cache.hits if cache is not None else 0

    results, outcome.jobs = _run(pending, table, jobs)
    for (display, _, _), result in zip(pending, results):
        outcome.findings.extend(result.findings)
        if cache is not None and result.cacheable and display in keys:
            cache.put(keys[display], result.findings)
    if cache is not None:
        cache.close()
        if cache.problem:
            outcome.notes.append("not using the cache: %s" % cache.problem)
    outcome.findings.sort(key=lambda f: (f.path, f.line, f.col, f.code))
    return outcome


def _auto_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))  # type: ignore[attr-defined]
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def _run(pending: List[Tuple[str, bytes, int]], table: List[Settings], jobs: Optional[int]):
    n = _auto_jobs() if not jobs else jobs
    n = min(n, len(pending))
    total = sum(len(item[1]) for item in pending)
    if n <= 1 or (jobs is None and (len(pending) < PARALLEL_MIN_FILES or total < PARALLEL_MIN_BYTES)):
        return [lint_source(d, data, table[i]) for d, data, i in pending], 1
    try:
        return _parallel(pending, table, n), n
    except (OSError, ImportError, NotImplementedError):  # no working multiprocessing here
        return [lint_source(d, data, table[i]) for d, data, i in pending], 1


_SETTINGS: List[Settings] = []
# A worker whose parent is gone exits (no orphans left computing or blocked on
# a queue nobody will ever close): on Linux the kernel kills it
# (PR_SET_PDEATHSIG), everywhere a daemon thread polls the parent's pid.
PARENT_POLL_SECONDS = 0.5
_PR_SET_PDEATHSIG = 1


def _init_worker(table: List[Settings], parent: int = 0, workers: int = 1) -> None:
    _SETTINGS[:] = table
    if workers > 1:  # the run's module budget is shared by its workers
        from ..model import crossmod

        crossmod.MAX_PARSED_BYTES = max(crossmod.MAX_FILE_MODULE_BYTES, crossmod.MAX_PARSED_BYTES // workers)
        crossmod.MAX_KEPT_BYTES = max(crossmod.MAX_FILE_MODULE_BYTES, crossmod.MAX_KEPT_BYTES // workers)
    if parent:
        _exit_with_parent(parent)


def _set_pdeathsig() -> bool:
    """Ask Linux to SIGKILL this process when its parent dies."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except Exception:  # no ctypes, no libc, a sandbox that refuses prctl
        return False


def _exit_with_parent(parent: int) -> None:
    import threading

    _set_pdeathsig()
    if os.getppid() != parent:  # the parent died before the line above
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), name="flake8-tilelang-parent-watch",
                     daemon=True).start()


def _watch_parent(parent: int) -> None:
    import time

    while True:
        time.sleep(PARENT_POLL_SECONDS)
        if os.getppid() != parent:  # re-parented: the parent is gone
            os._exit(1)


def _work(item: Tuple[str, bytes, int]) -> FileResult:
    return lint_source(item[0], item[1], _SETTINGS[item[2]])


def _parallel(pending: List[Tuple[str, bytes, int]], table: List[Settings], n: int) -> List[FileResult]:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    # Load the engine before forking so workers inherit it instead of importing it,
    # frozen: no worker's collections walk (and copy) those pages.
    from ..engine import settle
    from ..settings import known_rules

    known_rules()
    settle()
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods and sys.platform != "darwin" else None)
    # Biggest files first so one large file does not finish last; order is restored below.
    order = sorted(range(len(pending)), key=lambda i: -len(pending[i][1]))
    chunk = max(1, len(pending) // (n * 4))
    results: List[Optional[FileResult]] = [None] * len(pending)
    try:
        with ProcessPoolExecutor(max_workers=n, mp_context=ctx, initializer=_init_worker,
                                 initargs=(table, os.getpid(), n)) as pool:
            for i, result in zip(order, pool.map(_work, [pending[i] for i in order], chunksize=chunk)):
                results[i] = result
    except BrokenProcessPool:
        pass  # a worker died (killed, out of memory): finish the rest here
    return [r if r is not None else lint_source(pending[i][0], pending[i][1], table[pending[i][2]])
            for i, r in enumerate(results)]
