"""Every read of a linted file and every write the command line makes
(``--fix``, ``--add-noqa``, ``migrate``, ``-o FILE``) go through here. See
SECURITY.md, "What it writes".

Reading (lint time, and again just before a write): the file's real path must
be inside the real project root (a symlinked file or folder pointing out of
the project is reported, never opened); it is then opened component by
component from the real root without following any symlink, checked with
``fstat`` to be a regular file under the size cap, opened without blocking.
The result carries a :class:`Stamp` (device, inode, SHA-256 of the bytes).

Writing a linted file (:func:`rewrite`): every folder from the project root
down and the file itself are opened without following a symlink; a file with
more than one hard link is left alone; the bytes on disk must be the bytes
that were linted (else the file changed since, and the edits, computed on the
old bytes, are not applied). The new text goes to a temporary file in the
same folder, is flushed and ``fsync``-ed, gets the original's mode (and
owner, where allowed), and replaces the file with ``os.replace``: on any
error the original is byte-identical and the temporary file is removed.
Line endings outside the edits are the original's (a file mixing LF and
CRLF keeps both).
"""
from __future__ import annotations

import difflib
import errno
import hashlib
import os
import stat
from typing import Callable, Dict, List, NamedTuple, Optional, Tuple

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_BINARY = getattr(os, "O_BINARY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
# Directory file descriptors: every name is resolved inside a folder opened
# without following a symlink, so no component can be swapped midway.
_FD = bool(_NOFOLLOW and _DIRECTORY and all(
    f in os.supports_dir_fd for f in (os.open, os.stat, os.unlink, os.rename)))


class NotReadable(OSError):
    """A path that is not a regular file under the size cap, or that leads
    out of the project (never opened or read)."""


class NotWritten(OSError):
    """A file the tool refuses to write (a symlink, a hard link, outside the
    project, changed since it was checked): the message says why."""


class Stamp(NamedTuple):
    """What was linted: the lexical project root the path was checked
    against, the file's (device, inode), and the SHA-256 of its bytes."""
    root: str
    dev: int
    ino: int
    digest: bytes


def digest(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symlink")):
        if test(mode):
            return name
    return "not a regular file"


def size_text(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return "%.1f %s" % (n / scale, unit) if n % scale else "%d %s" % (n // scale, unit)
    return "%d bytes" % n


# -- the project a file belongs to ------------------------------------------------

_ROOTS: Dict[str, str] = {}


def _under(path: str, root: str) -> bool:
    try:
        return os.path.commonpath([path, root]) == root
    except ValueError:  # another drive
        return False


def project_of(path: str, base_root: Optional[str] = None) -> str:
    """The folder a linted file must stay inside: the configured project
    root (the folder of the configuration in use, else the working
    directory) when the file is below it, else the nearest folder above
    the file with a project marker (``pyproject.toml``, ``.git``, ...), as
    for the modules the loader follows."""
    directory = os.path.dirname(os.path.abspath(path))
    if base_root:
        base = os.path.abspath(base_root)
        if _under(directory, base):
            return base
    found = _ROOTS.get(directory)
    if found is None:
        from ..model.crossmod import project_root

        found = project_root(directory)
        if not _under(directory, found):
            found = directory
        if len(_ROOTS) > 4096:
            _ROOTS.clear()
        _ROOTS[directory] = found
    return found


def _parts(path: str, root: str) -> Optional[List[str]]:
    rel = os.path.relpath(path, root)
    if rel == os.curdir or rel == os.pardir or rel.startswith(os.pardir + os.sep) or os.path.isabs(rel):
        return None
    return [p for p in rel.split(os.sep) if p]


def _open_dir_chain(root: str, dirs: List[str], what: str, create: bool = False) -> int:
    """A descriptor of ``root/dirs...``: ``root`` itself is opened normally
    (it is the user's), every folder below it without following a symlink
    (``create``: a missing one is made, inside its parent's descriptor)."""
    fd = os.open(root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    try:
        for i, name in enumerate(dirs):
            if create:
                try:
                    os.mkdir(name, 0o777, dir_fd=fd)
                except FileExistsError:
                    pass
            try:
                nxt = os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    raise NotWritten("%s: %s is a symlink or not a folder" % (
                        what, os.path.join(*dirs[:i + 1])))
                raise
            os.close(fd)
            fd = nxt
    except BaseException:
        os.close(fd)
        raise
    return fd


def _read_fd(fd: int, limit: int) -> bytes:
    chunks = []
    size = 0
    while size <= limit:
        chunk = os.read(fd, min(1 << 20, limit + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


# -- reading ----------------------------------------------------------------------

def read_linted(path: str, limit: int, base_root: Optional[str] = None) -> Tuple[bytes, Stamp]:
    """The bytes of a file to lint, and its stamp. Raises NotReadable (a
    FIFO, device, folder, a file above ``limit``, a file whose real path is
    outside the project) or OSError."""
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise NotReadable("not checked: %s is %s" % (path, kind(st.st_mode)))
    if st.st_size > limit:
        raise NotReadable("not checked: %s is %s, above the %s limit for one file"
                          % (path, size_text(st.st_size), size_text(limit)))
    root = project_of(path, base_root)
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    parts = _parts(real, real_root)
    if parts is None:
        raise NotReadable("not checked: %s leads out of the project through a symlink; it is not read"
                          % path)
    if _FD:
        try:
            dfd = _open_dir_chain(real_root, parts[:-1], path)
        except NotWritten:
            raise NotReadable("not checked: %s changed while it was being read" % path)
        try:
            fd = os.open(parts[-1], os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _BINARY | _CLOEXEC, dir_fd=dfd)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise NotReadable("not checked: %s changed while it was being read" % path)
            raise
        finally:
            os.close(dfd)
    else:
        fd = os.open(real, os.O_RDONLY | _NONBLOCK | _BINARY | _CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # swapped since the stat
            raise NotReadable("not checked: %s is %s" % (path, kind(st.st_mode)))
        data = _read_fd(fd, limit)
    finally:
        os.close(fd)
    if len(data) > limit:  # grew since the stat
        raise NotReadable("not checked: %s is above the %s limit for one file" % (path, size_text(limit)))
    return data, Stamp(root, st.st_dev, st.st_ino, digest(data))


# -- line endings -----------------------------------------------------------------

def _split_keep(data: bytes) -> List[bytes]:
    return data.splitlines(keepends=True) if data else []


def _body(line: bytes) -> bytes:
    if line.endswith(b"\r\n"):
        return line[:-2]
    if line.endswith(b"\n") or line.endswith(b"\r"):
        return line[:-1]
    return line


def _ending(line: bytes) -> bytes:
    return line[len(_body(line)):]


def _mixed(data: bytes) -> bool:
    crlf = data.count(b"\r\n")
    lf = data.count(b"\n") - crlf
    cr = data.count(b"\r") - crlf
    return sum(1 for n in (crlf, lf, cr) if n) > 1


def keep_line_endings(original: bytes, new: bytes) -> bytes:
    """``new`` (written with the file's first line ending everywhere) with
    each unchanged or edited-in-place line ending as it was in
    ``original``; lines the edits wrote take the ending of the lines they
    replace (or of the line before them). Only a file that mixes line
    endings needs this."""
    if not _mixed(original):
        return new
    old_lines = _split_keep(original)
    new_lines = _split_keep(new)
    # ``bytes.splitlines`` also splits on \x0b, \x0c, \x1c-\x1e: only the
    # three Python line ends may count, so rejoin the others
    old_lines = _rejoin(old_lines)
    new_lines = _rejoin(new_lines)
    matcher = difflib.SequenceMatcher(None, [_body(x) for x in old_lines], [_body(x) for x in new_lines],
                                      autojunk=False)
    out: List[bytes] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal" or (op == "replace" and i2 - i1 == j2 - j1):
            for k in range(j2 - j1):
                old, line = old_lines[i1 + k], new_lines[j1 + k]
                end = _ending(line)
                out.append(_body(line) + (_ending(old) if end else b""))
        else:  # lines the edits wrote: the ending of the lines they replace, or of the line before
            around = {_ending(x) for x in old_lines[i1:i2]} - {b""}
            if not around and i1 > 0:
                around = {_ending(old_lines[i1 - 1])} - {b""}
            use = around.pop() if len(around) == 1 else None
            for line in new_lines[j1:j2]:
                out.append(_body(line) + use if use is not None and _ending(line) else line)
    return b"".join(out)


def _rejoin(lines: List[bytes]) -> List[bytes]:
    out: List[bytes] = []
    for line in lines:
        if out and not out[-1].endswith((b"\n", b"\r")):
            out[-1] += line
        else:
            out.append(line)
    return out


# -- writing ----------------------------------------------------------------------

def _write_all(fd: int, data: bytes) -> None:
    """Write every byte (tests replace this to fail at a given offset)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _tmp_name(name: str) -> str:
    return ".%s.%d.%s.flake8-tilelang.tmp" % (name, os.getpid(), os.urandom(4).hex())


def _replace_in(dfd: Optional[int], folder: str, name: str, data: bytes,
                old: Optional[os.stat_result]) -> None:
    """``folder/name`` (``dfd`` its descriptor, when available) replaced
    atomically by ``data``: a temporary file in the same folder, fsync,
    the original's mode and owner, ``os.replace``."""
    tmp = _tmp_name(name)
    at = (lambda n: n) if dfd is not None else (lambda n: os.path.join(folder, n))
    fd = os.open(at(tmp), os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _BINARY | _CLOEXEC,
                 0o666 if old is None else 0o600, dir_fd=dfd)
    try:
        try:
            _write_all(fd, data)
            if old is not None:
                if hasattr(os, "fchown") and (old.st_uid, old.st_gid) != _owner(fd):
                    try:
                        os.fchown(fd, old.st_uid, old.st_gid)
                    except OSError:
                        pass  # another owner than ours: keep what we may
                if hasattr(os, "fchmod"):
                    os.fchmod(fd, stat.S_IMODE(old.st_mode))
            os.fsync(fd)
        finally:
            os.close(fd)
        if old is not None and not hasattr(os, "fchmod"):
            os.chmod(at(tmp), stat.S_IMODE(old.st_mode))
        os.replace(at(tmp), at(name), src_dir_fd=dfd, dst_dir_fd=dfd)
    except BaseException:
        try:
            os.unlink(at(tmp), dir_fd=dfd)
        except OSError:
            pass
        raise
    if dfd is not None:
        try:
            os.fsync(dfd)  # the rename itself
        except OSError:
            pass


def _owner(fd: int) -> Tuple[int, int]:
    st = os.fstat(fd)
    return st.st_uid, st.st_gid


def rewrite(path: str, stamp: Stamp, make: Callable[[bytes], Optional[bytes]],
            limit: int = 32 << 20) -> bool:
    """Replace a linted file with ``make(current bytes)`` (None: nothing to
    write); True when it was written. The file is re-read with the guards
    of the first read and must hold the exact bytes that were linted.
    Raises NotWritten (refused, with the reason) or OSError (the write
    failed; the original is unchanged)."""
    parts = _parts(os.path.abspath(path), stamp.root)
    if parts is None:
        raise NotWritten("%s is outside the project; not written" % path)
    if _FD:
        dfd: Optional[int] = _open_dir_chain(stamp.root, parts[:-1], path)
    else:
        dfd = None
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            raise NotWritten("%s is a symlink; not written" % path)
    folder = os.path.dirname(os.path.abspath(path))
    name = parts[-1]
    try:
        try:
            fd = os.open(name if dfd is not None else path,
                         os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _BINARY | _CLOEXEC, dir_fd=dfd)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.EMLINK):
                raise NotWritten("%s is a symlink; not written (it may point out of the project)" % path)
            raise
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise NotWritten("%s is now %s; not written" % (path, kind(st.st_mode)))
            if st.st_nlink > 1:
                raise NotWritten("%s has %d hard links; not written (the other names may be outside "
                                 "the project; break the link to fix it)" % (path, st.st_nlink))
            current = _read_fd(fd, limit)
        finally:
            os.close(fd)
        if (st.st_dev, st.st_ino) != (stamp.dev, stamp.ino) or digest(current) != stamp.digest:
            raise NotWritten("%s changed since it was checked; not written (run again)" % path)
        new = make(current)
        if new is None or new == current:
            return False
        # a file the user may not write (read-only, immutable, a read-only mount) stays so:
        # the rename below would not ask the file itself
        probe = os.open(name if dfd is not None else path, os.O_WRONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC,
                        dir_fd=dfd)
        os.close(probe)
        _replace_in(dfd, folder, name, keep_line_endings(current, new), st)
        return True
    finally:
        if dfd is not None:
            os.close(dfd)


def write_output(path: str, data: bytes) -> None:
    """The ``-o FILE`` of any command. The folders leading to it are created;
    below the working directory none of them may be a symlink; the file
    itself may not be a symlink or a file with other hard links (both are
    refused with NotWritten); a regular file is replaced atomically, a
    device or FIFO the user named (``/dev/null``) is written to."""
    full = os.path.abspath(path)
    folder = os.path.dirname(full)
    cwd = os.getcwd()
    root = cwd if _under(folder, cwd) else folder
    parts = _parts(full, root)
    if parts is None:
        raise NotWritten("not a file name")
    name = parts[-1]
    if root != cwd:  # a folder the user named outside the working directory
        os.makedirs(folder, exist_ok=True)
    if _FD:
        dfd: Optional[int] = _open_dir_chain(root, parts[:-1], "its folder", create=True)
    else:
        os.makedirs(folder, exist_ok=True)
        dfd = None
    try:
        at = name if dfd is not None else full
        try:
            st: Optional[os.stat_result] = os.stat(at, dir_fd=dfd, follow_symlinks=False)
        except FileNotFoundError:
            st = None
        if st is not None:
            if stat.S_ISLNK(st.st_mode):
                raise NotWritten("it is a symlink; refusing to write through it (name the real file)")
            if stat.S_ISDIR(st.st_mode):
                raise NotWritten("it is a directory")
            if not stat.S_ISREG(st.st_mode):
                fd = os.open(at, os.O_WRONLY | _NOFOLLOW | _BINARY | _CLOEXEC, dir_fd=dfd)
                try:
                    _write_all(fd, data)
                finally:
                    os.close(fd)
                return
            if st.st_nlink > 1:
                raise NotWritten("it has %d hard links; refusing to write through them (remove it first)"
                                 % st.st_nlink)
        _replace_in(dfd, folder, name, data, st)
    finally:
        if dfd is not None:
            os.close(dfd)


__all__ = ["NotReadable", "NotWritten", "Stamp", "keep_line_endings", "project_of", "read_linted",
           "rewrite", "write_output"]
