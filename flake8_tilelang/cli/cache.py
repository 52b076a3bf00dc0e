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
follow) is always checked again.

The cache touches only what it created (see SECURITY.md):

- Entries live in a folder the tool created and marked with a ``MARKER`` file
  (mode 0600, owned by the user): the cache directory itself when the tool
  created it (the default ``.flake8_tilelang_cache``), else a
  ``flake8-tilelang`` subfolder of it (``--cache-dir .``, ``/tmp``,
  ``~/.cache``). ``CACHEDIR.TAG`` and ``.gitignore`` are written only there,
  never over an existing name.
- Below that folder, one ``v<format>-<checker hash>`` folder per checker; the
  settings are part of each entry's key, so two settings used alternately
  share the folder without wiping each other. Folders of another checker
  are emptied of entries (only names the tool writes) and removed.
- No symlink is ever followed for the cache directory or anything in it
  (``O_NOFOLLOW`` and directory file descriptors on POSIX, ``lstat`` checks
  elsewhere). A symlinked cache directory, or a subfolder the tool did not
  create, turns the cache off for the run with a note.
- An entry is data: read only if it is a regular file under a size cap, valid
  JSON of the exact shape and types, for its own key; anything else is a
  miss that is rewritten. Writes go to an ``O_EXCL`` temporary file and are
  renamed into place; temporary files left by a killed run are removed by
  the next run that writes, once they are an hour old.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import stat
import sys
import time
from typing import List, Optional, Tuple

from ..constants import STRICT_ENV
from ..pipeline import Finding

TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by flake8-tilelang.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)
GITIGNORE = "# created by flake8-tilelang\n*\n"
FORMAT = "5"  # 5: an edit row carries its notebook cell
SUBDIR = "flake8-tilelang"  # inside a cache directory the tool did not create
MARKER = ".flake8-tilelang-cache"
MARKER_TEXT = ("This folder was created by flake8-tilelang for its cache; "
               "it can be deleted at any time.\n")
MAX_ENTRY_BYTES = 8 << 20
STALE_TMP_SECONDS = 3600
SEVERITIES = ("error", "warning", "info")

_ENTRY = re.compile(r"^[0-9a-f]{64}$")
_TMP = re.compile(r"^[0-9a-f]{64}\.[0-9]+\.[0-9a-f]{8}\.tmp$")
_CHECKER_DIR = re.compile(r"^v[0-9]+-[0-9a-f]{16}$")
_CODE = re.compile(r"^[A-Z]+[0-9]+$")

from .fileio import _BINARY, _CLOEXEC, _DIRECTORY, _NOFOLLOW, _NONBLOCK, _read_fd  # noqa: E402 - one set of flags
# Directory file descriptors: every name is resolved inside a folder that was
# opened without following a symlink, so nothing can be redirected midway.
_FD = bool(_NOFOLLOW and _DIRECTORY and all(
    f in os.supports_dir_fd for f in (os.open, os.mkdir, os.stat, os.unlink, os.rmdir, os.rename))
    and os.scandir in os.supports_fd)
_POSIX = hasattr(os, "geteuid")

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


class _Folder:
    """A directory opened without following symlinks; every operation names
    a direct child and never follows a symlink either."""

    def __init__(self, path: str, fd: Optional[int]):
        self.path = path
        self.fd = fd

    @classmethod
    def open_followed(cls, path: str) -> Optional["_Folder"]:
        """A folder of the user's own path (the project root, ``~/.cache``):
        a symlink to it is fine, only what is below is guarded."""
        try:
            if not os.path.isdir(path):
                return None
            if not _FD:
                return cls(path, None)
            fd = os.open(path, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
        except OSError:
            return None
        return cls(path, fd)

    @classmethod
    def open(cls, path: str) -> Optional["_Folder"]:
        try:
            st = os.lstat(path)
            if not stat.S_ISDIR(st.st_mode):
                return None  # a symlink (even to a folder), a file, ...
            if not _FD:
                return cls(path, None)
            fd = os.open(path, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC)
        except OSError:
            return None
        return cls(path, fd)

    def close(self) -> None:
        if self.fd is not None:
            try:
                os.close(self.fd)
            except OSError:
                pass
            self.fd = None

    def _at(self, name: str) -> str:
        return name if self.fd is not None else os.path.join(self.path, name)

    def lstat(self, name: str) -> Optional[os.stat_result]:
        try:
            return os.stat(self._at(name), dir_fd=self.fd, follow_symlinks=False)
        except (OSError, ValueError):
            return None

    def child(self, name: str, create: bool) -> Tuple[Optional["_Folder"], bool]:
        """(the sub-folder, whether this call created it); None when it is
        missing (and not created) or not a real folder."""
        created = False
        if create:
            try:
                os.mkdir(self._at(name), 0o700, dir_fd=self.fd)
                created = True
            except FileExistsError:
                pass
            except OSError:
                return None, False
        st = self.lstat(name)
        if st is None or not stat.S_ISDIR(st.st_mode):
            return None, False
        if self.fd is None:
            return _Folder(os.path.join(self.path, name), None), created
        try:
            fd = os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=self.fd)
        except OSError:
            return None, False
        return _Folder(os.path.join(self.path, name), fd), created

    def read(self, name: str, limit: int) -> Optional[bytes]:
        """The bytes of a regular file of at most ``limit`` bytes, else None
        (a symlink, FIFO, device, folder or a bigger file is never read)."""
        if self.fd is None:
            st = self.lstat(name)
            if st is None or not stat.S_ISREG(st.st_mode):
                return None
        try:
            fd = os.open(self._at(name), os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC | _BINARY,
                         dir_fd=self.fd)
        except OSError:
            return None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
                return None
            data = _read_fd(fd, limit)
            return data if len(data) <= limit else None
        except OSError:
            return None
        finally:
            os.close(fd)

    def create(self, name: str, data: bytes, mode: int = 0o600) -> bool:
        """Write a new file; False if the name exists (whatever it is: a
        dangling symlink is never followed) or on an error."""
        try:
            fd = os.open(self._at(name), os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
                         | _BINARY, mode, dir_fd=self.fd)
        except OSError:
            return False
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        except OSError:
            os.close(fd)
            self.remove(name)
            return False
        os.close(fd)
        return True

    def replace_with(self, name: str, data: bytes) -> bool:
        """Atomically (re)write ``name`` through a fresh temporary file."""
        tmp = "%s.%d.%s.tmp" % (name, os.getpid(), os.urandom(4).hex())
        if not self.create(tmp, data):
            return False
        try:
            os.replace(self._at(tmp), self._at(name), src_dir_fd=self.fd, dst_dir_fd=self.fd)
        except OSError:  # e.g. a folder squats the entry's name: leave it alone
            self.remove(tmp)
            return False
        return True

    def names(self) -> List[Tuple[str, os.stat_result]]:
        out = []
        try:
            with os.scandir(self.fd if self.fd is not None else self.path) as it:
                for entry in it:
                    try:
                        out.append((entry.name, entry.stat(follow_symlinks=False)))
                    except OSError:
                        pass
        except OSError:
            pass
        return out

    def remove(self, name: str) -> None:
        try:
            os.unlink(self._at(name), dir_fd=self.fd)
        except OSError:
            pass

    def rmdir(self, name: str) -> None:
        try:
            os.rmdir(self._at(name), dir_fd=self.fd)
        except OSError:  # not empty: something the tool did not write stays
            pass


def _make_marked(parent: _Folder, name: str) -> bool:
    """Create ``parent/name`` already carrying the marker: a temporary folder
    gets it, then is renamed to ``name``, so a concurrent run sees either no
    folder or a marked one, never an unmarked one it would take for someone
    else's (and nest a second cache in). False when ``name`` exists."""
    tmp = "%s.%d.%s.tmp" % (name, os.getpid(), os.urandom(4).hex())
    sub, made = parent.child(tmp, create=True)
    if sub is None or not made:
        if sub is not None:
            sub.close()
        return False
    done = False
    try:
        if sub.create(MARKER, MARKER_TEXT.encode()) and parent.lstat(name) is None:
            # a folder made meanwhile by another run is not empty: the rename fails
            os.rename(parent._at(tmp), parent._at(name), src_dir_fd=parent.fd, dst_dir_fd=parent.fd)
            done = True
    except OSError:
        pass
    finally:
        if not done:
            sub.remove(MARKER)
        sub.close()
        if not done:
            parent.rmdir(tmp)
    return done


def _marked(folder: _Folder) -> bool:
    """The folder carries the marker this tool writes: a regular file, and on
    POSIX both owned by the user, the folder writable by nobody else and the
    marker mode 0600 (a marker checked out of a repository never is; one in
    a shared folder such as /tmp belongs to its creator)."""
    dst = os.fstat(folder.fd) if folder.fd is not None else folder.lstat(".")
    st = folder.lstat(MARKER)
    if dst is None or st is None or not stat.S_ISREG(st.st_mode):
        return False
    if _POSIX:
        if dst.st_uid != os.geteuid() or st.st_uid != os.geteuid():
            return False
        no_modes = stat.S_IMODE(dst.st_mode) == 0o777 and stat.S_IMODE(st.st_mode) in (0o777, 0o666)
        if not no_modes and (dst.st_mode & 0o022 or st.st_mode & 0o077):
            return False  # (no_modes: a file system without permissions, e.g. FAT, drvfs)
    return folder.read(MARKER, 4096) == MARKER_TEXT.encode()


KEY_NAME = "cache-key"  # in the user's cache folder, never in the project
KEY_BYTES = 32
_SECRET: Optional[bytes] = None


def user_cache_home() -> str:
    """``$XDG_CACHE_HOME`` when it is an absolute path, else ``~/.cache``
    (``%LOCALAPPDATA%`` on Windows)."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if xdg and os.path.isabs(xdg):
        return xdg
    if os.name == "nt" and os.environ.get("LOCALAPPDATA"):
        return os.environ["LOCALAPPDATA"]
    return os.path.join(os.path.expanduser("~"), ".cache")


def key_folder() -> str:
    return os.path.join(user_cache_home(), SUBDIR)


def secret() -> Optional[bytes]:
    """This user's key for the entries' MACs: 32 random bytes in
    ``<user cache>/flake8-tilelang/cache-key`` (a marked folder of the
    user's, mode 0600), created once, atomically (a hard link that fails
    if another run made it first). None when it cannot be kept: then the
    cache is off (an entry nobody can authenticate is never used)."""
    global _SECRET
    if _SECRET is not None:
        return _SECRET
    home = user_cache_home()
    try:
        os.makedirs(home, 0o700, exist_ok=True)
    except OSError:
        return None
    parent = _Folder.open_followed(home)
    if parent is None:
        return None
    if parent.lstat(SUBDIR) is None:
        _make_marked(parent, SUBDIR)
    folder, _ = parent.child(SUBDIR, False)
    parent.close()
    if folder is None:
        return None
    try:
        if not _marked(folder):
            return None
        found = _read_key(folder)
        if found is None and folder.lstat(KEY_NAME) is None:
            tmp = "%s.%d.%s.tmp" % (KEY_NAME, os.getpid(), os.urandom(4).hex())
            if folder.create(tmp, os.urandom(KEY_BYTES)):
                try:
                    if folder.fd is not None and os.link in os.supports_dir_fd:
                        os.link(tmp, KEY_NAME, src_dir_fd=folder.fd, dst_dir_fd=folder.fd,
                                follow_symlinks=False)
                    else:
                        os.rename(folder._at(tmp), folder._at(KEY_NAME))
                except OSError:  # another run made it first: use theirs
                    pass
                folder.remove(tmp)
            found = _read_key(folder)
        _SECRET = found
        return found
    finally:
        folder.close()


def _read_key(folder: _Folder) -> Optional[bytes]:
    st = folder.lstat(KEY_NAME)
    if st is None or not stat.S_ISREG(st.st_mode):
        return None
    if _POSIX and (st.st_uid != os.geteuid() or st.st_mode & 0o077):
        return None
    data = folder.read(KEY_NAME, KEY_BYTES)
    return data if data is not None and len(data) == KEY_BYTES else None


class Cache:
    def __init__(self, directory: str, settings_fingerprint: str):
        self.root = directory
        salt = "|".join((tool_fingerprint(), settings_fingerprint,
                         os.environ.get(STRICT_ENV, "")))
        self._salt = hashlib.sha256(salt.encode("utf-8", "surrogatepass")).digest()
        self.checker_dir = "v%s-%s" % (FORMAT, tool_fingerprint()[:16])
        self.hits = 0
        self.problem: Optional[str] = None  # why the cache was not used, for a note
        self._folder: Optional[_Folder] = None
        self._state = "closed"  # closed, absent (nothing to read yet), open, off
        self._swept = False
        self._secret: Optional[bytes] = None

    def key(self, display: str, data: bytes) -> str:
        h = hashlib.sha256(self._salt)
        h.update(os.fsencode(os.path.abspath(display)) + b"\0")
        h.update(display.encode("utf-8", "surrogatepass") + b"\0")
        h.update(data)
        return h.hexdigest()

    # -- entries -------------------------------------------------------------
    def get(self, key: str, display: str) -> Optional[List[Finding]]:
        folder = self._open(create=False)
        if folder is None or not _ENTRY.match(key):
            return None
        raw = folder.read(key, MAX_ENTRY_BYTES)
        if raw is None or self._secret is None:
            return None
        mac, _, payload = raw.partition(b"\n")
        if not hmac.compare_digest(mac, self._mac(key, payload)):
            return None  # not written by this user's tool (a committed cache): a miss
        found = _decode(payload, key, display)
        if found is not None:
            self.hits += 1
        return found

    def put(self, key: str, findings: List[Finding]) -> None:
        folder = self._open(create=True)
        if folder is None or not _ENTRY.match(key):
            return
        rows = [f.to_row()[1:] for f in findings]  # the path is the key's, not stored
        if self._secret is None:
            return
        payload = json.dumps({"key": key, "findings": rows}, ensure_ascii=True).encode("ascii")
        data = self._mac(key, payload) + b"\n" + payload
        if not self._swept:  # once per run that writes: temporary files of killed runs
            self._swept = True
            _sweep(folder, everything=False)
        folder.replace_with(key, data)  # a read-only tree still gets its results, uncached

    def _mac(self, key: str, payload: bytes) -> bytes:
        assert self._secret is not None
        return hmac.new(self._secret, key.encode("ascii") + b"\0" + payload, hashlib.sha256).hexdigest().encode()

    def close(self) -> None:
        if self._folder is not None:
            self._folder.close()
            self._folder = None
        self._state = "closed"

    # -- the folders ---------------------------------------------------------
    def _off(self, why: Optional[str] = None) -> None:
        self._state = "off"
        if why and self.problem is None:
            self.problem = why

    def _open(self, create: bool) -> Optional[_Folder]:
        if self._state == "open":
            return self._folder
        if self._state == "off" or (self._state == "absent" and not create):
            return None
        if self._secret is None:
            self._secret = secret()
            if self._secret is None:
                self._off("cannot keep the cache's key in %s (the key proves that this user's "
                          "tool wrote an entry)" % key_folder())
                return None
        try:
            folder = self._open_folders(create)
        except OSError:
            folder = None
            if self._state != "absent":
                self._off()
        if folder is not None:
            self._folder = folder
            self._state = "open"
        return folder

    def _open_folders(self, create: bool) -> Optional[_Folder]:
        root_path = self.root
        st = _lstat(root_path)
        if st is None:
            if not create:
                self._state = "absent"
                return None
            parent_path = os.path.dirname(os.path.abspath(root_path))
            os.makedirs(parent_path, exist_ok=True)  # the user's own path up to the cache directory
            parent = _Folder.open_followed(parent_path)
            if parent is not None:
                _make_marked(parent, os.path.basename(os.path.abspath(root_path)))
                parent.close()
            st = _lstat(root_path)
        if st is None or stat.S_ISLNK(st.st_mode):
            self._off("the cache directory %s is a symlink; pass its real path with --cache-dir"
                      % root_path)
            return None
        root = _Folder.open(root_path)
        if root is None:
            self._off("the cache directory %s is not a folder" % root_path)
            return None
        if _marked(root):
            base = root
        else:  # a folder the tool did not create: only ever touch its own subfolder
            if create and root.lstat(SUBDIR) is None:
                _make_marked(root, SUBDIR)
            base, _ = root.child(SUBDIR, False)
            missing = base is None and root.lstat(SUBDIR) is None
            root.close()
            if base is None:
                if not create and missing:
                    self._state = "absent"
                    return None
                self._off("%s is not a folder created by flake8-tilelang"
                          % os.path.join(root_path, SUBDIR))
                return None
            if not _marked(base):
                base.close()
                self._off("%s was not created by flake8-tilelang (or is writable by others)"
                          % os.path.join(root_path, SUBDIR))
                return None
        if create:
            base.create("CACHEDIR.TAG", TAG.encode(), 0o644)
            base.create(".gitignore", GITIGNORE.encode(), 0o644)
        folder, made = base.child(self.checker_dir, create)
        if folder is None:
            if not create and base.lstat(self.checker_dir) is None:
                base.close()
                self._state = "absent"
                return None
            base.close()
            self._off()
            return None
        if made:  # a new checker: entries of older ones are dead
            for name, st in base.names():
                if name != self.checker_dir and _CHECKER_DIR.match(name) and stat.S_ISDIR(st.st_mode):
                    old, _ = base.child(name, False)
                    if old is not None:
                        _sweep(old, everything=True)
                        old.close()
                        base.rmdir(name)
        base.close()
        return folder


def _lstat(path: str) -> Optional[os.stat_result]:
    try:
        return os.lstat(path)
    except (OSError, ValueError):
        return None


def _sweep(folder: _Folder, everything: bool) -> None:
    """Remove entries (all of them, or only stale temporary files) by the
    names the tool writes; anything else in the folder stays."""
    limit = time.time() - STALE_TMP_SECONDS
    for name, st in folder.names():
        if stat.S_ISDIR(st.st_mode):
            continue
        if _TMP.match(name) and (everything or st.st_mtime < limit):
            folder.remove(name)
        elif everything and _ENTRY.match(name):
            folder.remove(name)


def _decode(raw: bytes, key: str, display: str) -> Optional[List[Finding]]:
    """The findings of a well-formed entry for ``key``, else None."""
    try:
        data = json.loads(raw.decode("ascii"))
    except (ValueError, RecursionError, MemoryError):
        return None
    if type(data) is not dict or set(data) != {"key", "findings"} or data["key"] != key:
        return None
    rows = data["findings"]
    if type(rows) is not list:
        return None
    out = []
    for row in rows:
        if type(row) is not list or len(row) != len(Finding._fields) - 1:
            return None
        try:
            found = Finding.from_row([display] + row)
        except (ValueError, TypeError, RecursionError):
            return None
        if not (_nat(found.line) and _nat(found.col) and _nat(found.end_line) and _nat(found.end_col)
                and (found.noqa_row is None or _nat(found.noqa_row))
                and _CODE.match(found.code) and found.severity in SEVERITIES):
            return None
        out.append(found)
    return out


def _nat(value) -> bool:
    return type(value) is int and value >= 0
