"""Trust boundaries (issue 15): every test builds a hostile tree in a
temporary folder and runs the tool over it as a pull request in CI would."""
import io
import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
import time

import pytest

from flake8_tilelang.cli import main
from flake8_tilelang.cli import cache as cache_mod
from flake8_tilelang.cli import run as run_mod

POSIX = os.name == "posix"
needs_posix = pytest.mark.skipif(not POSIX, reason="POSIX file system semantics")

KERNEL = textwrap.dedent('''\
    import tilelang
    import tilelang.language as T

    CFG = {
        tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
        tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: True,
    }


    @tilelang.jit(out_idx=[-1], pass_configs=CFG)
    def vec_exp(M, N, block_M, dtype="float16"):
        @T.prim_func
        def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
            with T.Kernel(M // block_M, is_npu=True) as (cid, vid):
                a_ub = T.alloc_ub((block_M // 2, N), dtype)
                with T.Scope("V"):
                    T.copy(A[cid * block_M + vid * block_M // 2, 0], a_ub)
                    T.barrier_all()
                    T.tile.exp(a_ub, a_ub)
                    T.copy(a_ub, B[cid * block_M + vid * block_M // 2, 0])

        return main
    ''')
EXPECTED = ["./k.py:16 TLA001", "./k.py:18 TLA002"]
CACHE = ".flake8_tilelang_cache"


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def heads(out):
    """path:line CODE of each concise line (columns are not the point here)."""
    out_rows = []
    for line in out.splitlines():
        path, row, _col, rest = line.split(":", 3)
        out_rows.append("%s:%s %s" % (path, row, rest.split()[0]))
    return out_rows


@pytest.fixture
def proj(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "pyproject.toml").write_text("[project]\nname = 'victim'\n")
    (root / "k.py").write_text(KERNEL)
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def calls(monkeypatch):
    """The files actually analysed (not served from the cache)."""
    seen = []
    real = run_mod.lint_source

    def counting(display, data, settings):
        seen.append(display)
        return real(display, data, settings)

    monkeypatch.setattr(run_mod, "lint_source", counting)
    return seen


def snapshot(folder):
    """Every path below ``folder`` with its type and content (no symlink followed)."""
    out = {}
    for root, dirs, files in os.walk(str(folder)):
        for name in dirs + files:
            full = os.path.join(root, name)
            st = os.lstat(full)
            rel = os.path.relpath(full, str(folder))
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(full))
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ("dir",)
            else:
                with open(full, "rb") as f:
                    out[rel] = ("file", f.read())
    return out


def check(capsys, *extra):
    return run(["check", "--output-format", "concise"] + list(extra) + ["."], capsys)


def entries(base):
    """The entry files of the current checker below a cache base folder."""
    found = []
    for root, _, files in os.walk(str(base)):
        found += [os.path.join(root, f) for f in files if cache_mod._ENTRY.match(f)]
    return found


# -- 1. the cache touches only what it created ------------------------------------

def test_default_cache_is_created_marked_and_tagged(proj, capsys, calls):
    code, out, _ = check(capsys)
    assert (code, heads(out)) == (1, EXPECTED)
    cache = proj / CACHE
    assert (cache / cache_mod.MARKER).read_text() == cache_mod.MARKER_TEXT
    assert (cache / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert (cache / ".gitignore").read_text().endswith("*\n")
    if POSIX:
        assert stat.S_IMODE(os.lstat(str(cache / cache_mod.MARKER)).st_mode) == 0o600
    assert len(entries(cache)) == 1
    calls.clear()
    assert heads(check(capsys)[1]) == EXPECTED and calls == []  # served from the cache


@pytest.mark.parametrize("shared", [".", "shared"])
def test_cache_dir_in_a_folder_the_tool_did_not_create(proj, capsys, calls, shared):
    """--cache-dir . (or a shared ~/.cache, /tmp): nothing is written or
    deleted next to the user's files; entries go to a marked subfolder."""
    folder = proj / shared
    folder.mkdir(exist_ok=True)
    hexdir = folder / "0123456789abcdef0123"  # looks like an old cache folder: not ours
    hexdir.mkdir()
    (hexdir / "keep.txt").write_text("mine")
    (folder / "v2-0123456789abcdef").mkdir()  # looks like a checker folder: not ours either
    (folder / "v2-0123456789abcdef" / ("a" * 64)).write_text("mine")
    before = snapshot(folder)
    code, out, _ = check(capsys, "--cache-dir", str(folder))
    assert (code, heads(out)) == (1, EXPECTED)
    after = snapshot(folder)
    assert {k: v for k, v in after.items() if not k.startswith(cache_mod.SUBDIR)} == before
    assert not (folder / ".gitignore").exists() and not (folder / "CACHEDIR.TAG").exists()
    sub = folder / cache_mod.SUBDIR
    assert (sub / "CACHEDIR.TAG").exists() and (sub / ".gitignore").exists()
    assert len(entries(sub)) == 1
    calls.clear()
    assert heads(check(capsys, "--cache-dir", str(folder))[1]) == EXPECTED and calls == []
    if shared == ".":  # git would still see the repository: only the subfolder is ignored
        assert (sub / ".gitignore").read_text().endswith("*\n")


@needs_posix
def test_symlinked_cache_dir_is_never_followed(proj, tmp_path, capsys, calls):
    """A committed `.flake8_tilelang_cache -> ../elsewhere` must not let a
    plain `check` delete or create anything outside the repository."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for name in ("0123456789abcdef0123", "v2-0123456789abcdef"):
        (elsewhere / name).mkdir()
        (elsewhere / name / "precious").write_text("do not delete")
    (elsewhere / cache_mod.SUBDIR).mkdir()
    before = snapshot(elsewhere)
    os.symlink("../elsewhere", str(proj / CACHE))
    for _ in range(2):
        code, out, err = check(capsys)
        assert (code, heads(out)) == (1, EXPECTED)
        assert "not using the cache" in err and "symlink" in err
    assert snapshot(elsewhere) == before
    assert len(calls) == 2  # no cache at all


@needs_posix
def test_dangling_symlinks_in_the_cache_create_nothing(proj, tmp_path, capsys):
    target = tmp_path / "created_by_attacker"
    cache = proj / CACHE
    cache.mkdir()  # committed: not created by the tool
    os.symlink(str(target), str(cache / "CACHEDIR.TAG"))
    os.symlink(str(target) + "2", str(cache / ".gitignore"))
    sub = cache / cache_mod.SUBDIR
    code, out, _ = check(capsys)
    assert (code, heads(out)) == (1, EXPECTED)
    assert not target.exists() and not os.path.exists(str(target) + "2")
    # inside the tool's own folder too: a symlink squatting a name is left alone
    for name in ("CACHEDIR.TAG", ".gitignore"):
        os.remove(str(sub / name))
        os.symlink(str(target), str(sub / name))
    checker = [d for d in os.listdir(str(sub)) if d.startswith("v")][0]
    entry = entries(sub)[0]
    os.remove(entry)
    os.symlink(str(target), entry)  # an entry that is a dangling symlink: a miss, replaced
    code, out, _ = check(capsys)
    assert (code, heads(out)) == (1, EXPECTED)
    assert not target.exists()
    assert os.path.isfile(entry) and not os.path.islink(entry)
    # a symlinked subfolder is never entered
    other = tmp_path / "other"
    other.mkdir()
    os.rename(str(sub), str(tmp_path / "moved"))
    os.symlink(str(other), str(sub))
    code, out, err = check(capsys)
    assert (code, heads(out)) == (1, EXPECTED) and "not using the cache" in err
    assert os.listdir(str(other)) == [] and checker


@needs_posix
def test_a_cache_folder_checked_out_of_git_is_not_trusted(proj, capsys, calls):
    """A forged cache committed to the repository (its marker comes out of
    git as 0644) cannot hide findings: the tool does not use it."""
    check(capsys)
    cache = proj / CACHE
    (entry,) = entries(cache)
    key = os.path.basename(entry)
    with open(entry, "w") as f:
        json.dump({"key": key, "findings": []}, f)  # "no findings"
    os.chmod(str(cache / cache_mod.MARKER), 0o644)
    calls.clear()
    code, out, err = check(capsys)
    assert (code, heads(out)) == (1, EXPECTED) and calls == ["./k.py"]
    with open(entry) as f:
        assert json.load(f)["findings"] == []  # and the forged folder was not written to


def test_a_new_checker_removes_only_its_own_old_entries(proj, capsys, monkeypatch):
    check(capsys)
    cache = proj / CACHE
    (old,) = [d for d in os.listdir(str(cache)) if d.startswith("v")]
    (cache / old / "notes.txt").write_text("the user's")
    (cache / "v2-fedcba9876543210").mkdir()  # another checker's folder, emptied of entries only
    (cache / "v2-fedcba9876543210" / ("b" * 64)).write_text("{}")
    monkeypatch.setattr(cache_mod, "_TOOL_HASH", "1" * 64)
    assert heads(check(capsys)[1]) == EXPECTED
    assert os.listdir(str(cache / old)) == ["notes.txt"]  # its entries went, the rest stays
    assert not (cache / "v2-fedcba9876543210").exists()
    assert len(entries(cache / ("v%s-%s" % (cache_mod.FORMAT, "1" * 16)))) == 1


# -- 2. cache entries are data, not trust -----------------------------------------

def _fifo(path):
    os.mkfifo(path)


def _dir(path):
    os.mkdir(path)


def _devzero(path):
    os.symlink("/dev/zero", path)


BAD_ENTRIES = {
    "garbage": b"\x00\xff garbage",
    "truncated": None,  # the real entry cut in half
    "empty object": b"{}",
    "empty list": b"[]",
    "no findings, other key": "other-key",
    "deeply nested": b"[" * 200000 + b"]" * 200000,
    "wrong types": "wrong-types",
    "bool as int": "bool-line",
    "huge": b" " * (cache_mod.MAX_ENTRY_BYTES + 10) + b"{}",
    "fifo": _fifo,
    "directory": _dir,
    "symlink to /dev/zero": _devzero,
}


def sign(key, payload):
    """An entry as this user's tool would MAC it (to reach the shape checks)."""
    import hashlib
    import hmac

    mac = hmac.new(cache_mod.secret(), key.encode() + b"\0" + payload, hashlib.sha256).hexdigest()
    return mac.encode() + b"\n" + payload


@pytest.mark.parametrize("kind", sorted(BAD_ENTRIES))
def test_bad_entry_is_a_miss_that_is_rewritten(proj, capsys, calls, kind):
    bad = BAD_ENTRIES[kind]
    if callable(bad) and not POSIX:
        pytest.skip("POSIX special files")
    first = check(capsys)[1]
    (entry,) = entries(proj / CACHE)
    key = os.path.basename(entry)
    with open(entry, "rb") as f:
        good = f.read()
    os.remove(entry)
    payload = good.partition(b"\n")[2]
    if callable(bad):
        bad(entry)
    else:
        if bad is None:
            bad = good[:len(good) // 2]
        elif bad == "other-key":
            bad = sign(key, json.dumps({"key": "0" * 64, "findings": []}).encode())
        elif bad == "wrong-types":
            row = json.loads(payload)["findings"][0]
            row[3] = {"message": 1}
            bad = sign(key, json.dumps({"key": key, "findings": [row]}).encode())
        elif bad == "bool-line":
            row = json.loads(payload)["findings"][0]
            row[0] = True
            bad = sign(key, json.dumps({"key": key, "findings": [row]}).encode())
        elif kind in ("empty object", "empty list", "deeply nested"):
            bad = sign(key, bad)  # authentic, yet not an entry: the shape is checked too
        with open(entry, "wb") as f:
            f.write(bad)
    calls.clear()
    code, out, err = check(capsys)
    assert (code, out) == (1, first) and "Traceback" not in err
    assert calls == ["./k.py"]  # a miss: analysed again
    if kind != "directory":  # a folder squatting the name is left alone
        assert os.path.isfile(entry) and not os.path.islink(entry)
        with open(entry, "rb") as f:
            assert f.read() == good
        calls.clear()
        assert check(capsys)[1] == first and calls == []
    assert not [n for n in os.listdir(os.path.dirname(entry)) if n.endswith(".tmp")]


def test_stale_temporary_files_are_removed(proj, capsys):
    check(capsys)
    (entry,) = entries(proj / CACHE)
    folder = os.path.dirname(entry)
    stale = os.path.join(folder, "%s.4242.deadbeef.tmp" % ("c" * 64))
    fresh = os.path.join(folder, "%s.4243.deadbeef.tmp" % ("c" * 64))
    for path in (stale, fresh):
        with open(path, "w") as f:
            f.write("half an entry")
    old = time.time() - 2 * cache_mod.STALE_TMP_SECONDS
    os.utime(stale, (old, old))
    (proj / "k.py").write_text(KERNEL + "# changed\n")  # the next run writes an entry
    check(capsys)
    assert not os.path.exists(stale)
    assert os.path.exists(fresh)  # maybe another run writing right now


def test_two_settings_used_alternately_do_not_wipe_each_other(proj, capsys, calls):
    a, b = [], ["--extend-ignore", "TLA001"]
    assert heads(check(capsys, *a)[1]) == EXPECTED
    assert heads(check(capsys, *b)[1]) == EXPECTED[1:]
    calls.clear()
    assert heads(check(capsys, *a)[1]) == EXPECTED
    assert heads(check(capsys, *b)[1]) == EXPECTED[1:]
    assert calls == []


# -- 3. other modules only from inside the project, after resolving symlinks ----

MINI_KERNEL = textwrap.dedent("""\
    import tilelang
    import tilelang.language as T
    from {module} import CFG


    @tilelang.jit(pass_configs=CFG)
    def f(M):
        @T.prim_func
        def main(A: T.Tensor((M,), "float16")):
            with T.Kernel(4, is_npu=True) as (cid, vid):
                T.barrier_all()
        return main
    """)
SECRET_CFG = "CFG = {'tl.ascend_auto_sync': True}  # s3cr3t-token\n"


def mini(root, module="cfg"):
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'mini'\n")
    (root / "kern.py").write_text(MINI_KERNEL.format(module=module))
    return root


def lint(capsys, *paths):
    code, out, err = run(["check", "--no-cache", "--output-format", "concise"] + list(paths), capsys)
    assert "Traceback" not in err
    return out


@needs_posix
def test_symlinked_module_outside_the_project_is_unknown(tmp_path, monkeypatch, capsys):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "cfg.py").write_text(SECRET_CFG)
    (outside / "pkg").mkdir()
    (outside / "pkg" / "__init__.py").write_text("")
    (outside / "pkg" / "cfg.py").write_text(SECRET_CFG)
    proj = mini(tmp_path / "proj")
    monkeypatch.chdir(str(proj))
    # the same module inside the project is followed (so the test can fail)
    (proj / "cfg.py").write_text(SECRET_CFG)
    assert "TLA002" in lint(capsys, "kern.py") and "cfg.py:1" in lint(capsys, "kern.py")
    os.remove(str(proj / "cfg.py"))
    os.symlink("../outside/cfg.py", str(proj / "cfg.py"))  # a file symlink
    assert lint(capsys, "kern.py") == ""
    (proj / "kern.py").write_text(MINI_KERNEL.format(module="pkg.cfg"))
    os.symlink("../outside/pkg", str(proj / "pkg"))  # a folder symlink
    assert lint(capsys, "kern.py") == ""
    # a symlink that stays inside the project is fine
    os.remove(str(proj / "pkg"))
    (proj / "real").mkdir()
    (proj / "real" / "__init__.py").write_text("")
    (proj / "real" / "cfg.py").write_text(SECRET_CFG)
    os.symlink("real", str(proj / "pkg"))
    assert "TLA002" in lint(capsys, "kern.py")


# -- 4. sizes and file types are checked before reading ---------------------------

class Opened(BaseException):
    """Raised instead of opening a file that must never be opened (so a
    regression fails instead of hanging on a FIFO); no handler catches it."""


def _spy_opens(monkeypatch, target):
    """Refuse and record every open of ``target`` (by real path) through
    os.open or open()."""
    import builtins

    real_target = os.path.realpath(str(target))
    opened = []
    real_os_open, real_open = os.open, builtins.open

    def os_open(path, *a, **kw):
        if isinstance(path, str) and kw.get("dir_fd") is None and os.path.realpath(path) == real_target:
            opened.append(path)
            raise Opened(path)
        return real_os_open(path, *a, **kw)

    def open_(file, *a, **kw):
        if isinstance(file, str) and os.path.realpath(file) == real_target:
            opened.append(file)
            raise Opened(file)
        return real_open(file, *a, **kw)

    monkeypatch.setattr(os, "open", os_open)
    monkeypatch.setattr(builtins, "open", open_)
    return opened


def test_huge_imported_module_is_never_opened(tmp_path, monkeypatch, capsys):
    from flake8_tilelang.model import crossmod

    proj = mini(tmp_path / "proj")
    monkeypatch.chdir(str(proj))
    cfg = proj / "cfg.py"
    cfg.write_text(SECRET_CFG)
    assert "TLA002" in lint(capsys, "kern.py")  # under the cap: read
    with open(str(cfg), "a") as f:
        f.truncate(crossmod.MAX_MODULE_BYTES + 1)  # sparse: costs no disk
    with open(str(cfg), "r+") as f:
        f.seek(crossmod.MAX_MODULE_BYTES - 10)
        f.write("\n# end  \n")
    opened = _spy_opens(monkeypatch, cfg)
    st = os.stat(str(cfg))
    os.utime(str(cfg), ns=(st.st_atime_ns, st.st_mtime_ns + 10_000_000))
    assert lint(capsys, "kern.py") == ""
    assert opened == []


@needs_posix
def test_fifo_imported_module_is_never_opened(tmp_path, monkeypatch, capsys):
    from flake8_tilelang.model import crossmod

    proj = mini(tmp_path / "proj")
    monkeypatch.chdir(str(proj))
    os.mkfifo(str(proj / "cfg.py"))  # opening it for reading would block forever
    opened = _spy_opens(monkeypatch, proj / "cfg.py")
    assert lint(capsys, "kern.py") == ""
    assert crossmod._parse(str(proj / "cfg.py"))[0] is None  # even when asked directly
    assert opened == []


@needs_posix
@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "huge"])
def test_linted_special_or_huge_file_is_e902_and_the_run_goes_on(proj, capsys, monkeypatch, kind):
    bad = proj / "bad.py"
    if kind == "fifo":
        os.mkfifo(str(bad))
    elif kind == "dev-zero":
        os.symlink("/dev/zero", str(bad))
    elif kind == "huge":
        with open(str(bad), "wb") as f:
            f.write(b"import tilelang\n")
            f.truncate(run_mod.MAX_FILE_BYTES + 1)
    opened = _spy_opens(monkeypatch, bad)
    for argv in (["."], ["bad.py", "k.py"]):  # found by the walk, or named
        code, out, err = run(["check", "--no-cache", "--output-format", "concise"] + argv, capsys)
        rows = out.splitlines()
        assert code == 1 and "Traceback" not in err
        assert rows[0].startswith("./bad.py:0:1: E902 " if argv == ["."] else "bad.py:0:1: E902 ")
        assert {"fifo": "a FIFO", "dev-zero": "a character device", "huge": "limit"}[kind] in rows[0]
        assert any("TLA001" in r for r in rows[1:])  # the other file is still checked
    assert opened == []


def test_stdin_over_the_cap_is_e902(proj, capsys, monkeypatch):
    monkeypatch.setattr(run_mod, "MAX_FILE_BYTES", 100)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(KERNEL.encode())))
    code, out, err = run(["check", "--no-cache", "--output-format", "concise", "-",
                          "--stdin-filename", "s.py"], capsys)
    assert code == 1 and out.startswith("s.py:0:1: E902 not checked: stdin is above the 100 bytes")


# -- issue 11: the Loader reads through a source provider, forgets "not found" ---

def test_source_provider_is_asked_first(tmp_path, monkeypatch, capsys):
    from flake8_tilelang.model import crossmod

    proj = mini(tmp_path / "proj")
    monkeypatch.chdir(str(proj))
    (proj / "cfg.py").write_text(SECRET_CFG)  # on disk: auto sync on -> TLA002
    asked = []

    def unsaved(path):
        asked.append(os.path.basename(path))
        return "CFG = {'tl.ascend_auto_sync': False}\n" if path.endswith("cfg.py") else None

    with crossmod.source_provider(unsaved):
        assert lint(capsys, "kern.py") == ""
    assert asked == ["cfg.py"]
    with crossmod.source_provider(lambda path: None):  # None: read the disk
        assert "TLA002" in lint(capsys, "kern.py")
    loader = crossmod.Loader(str(proj / "kern.py"), source_provider=lambda p: b"CFG = {}\n")
    assert loader.source_provider(str(proj / "cfg.py")) == b"CFG = {}\n"


@pytest.mark.parametrize("settled", [False, True])
def test_module_created_after_a_first_lookup_is_found(tmp_path, monkeypatch, capsys, settled):
    proj = mini(tmp_path / "proj", module="pkg.cfg")
    monkeypatch.chdir(str(proj))
    (proj / "pkg").mkdir()
    if settled:  # folders last changed long ago: the lookup is memoized
        old = time.time() - 3600
        for d in (proj, proj / "pkg"):
            os.utime(str(d), (old, old))
    assert lint(capsys, "kern.py") == ""  # not found (yet)
    assert lint(capsys, "kern.py") == ""
    (proj / "pkg" / "cfg.py").write_text(SECRET_CFG)
    assert "TLA002" in lint(capsys, "kern.py")


# -- 5. any file name works ---------------------------------------------------------

FORMATS = ("full", "concise", "json", "json-lines", "sarif", "github", "gitlab")


def _bytes_name(folder, name, text):
    try:
        with open(os.path.join(os.fsencode(str(folder)), name), "w") as f:
            f.write(text)
    except (OSError, UnicodeError):
        pytest.skip("this file system refuses names that are not UTF-8")


@needs_posix
def test_a_name_that_is_not_utf8_works_everywhere(proj, capsys, calls):
    os.remove(str(proj / "k.py"))
    _bytes_name(proj, b"k\xff.py", KERNEL)
    for fmt in FORMATS:
        for extra in ([], ["-o", "out.txt"]):
            code, out, err = run(["check", "--output-format", fmt] + extra + ["."], capsys)
            assert code == 1 and "Traceback" not in err, (fmt, extra)
            if extra:
                with open("out.txt", "rb") as f:
                    out = f.read().decode("utf-8")  # strict UTF-8
            out.encode("utf-8")  # no lone surrogate left in the text
            assert "k\\xff.py" in out.replace("\\\\", "\\") or "k%FF.py" in out, fmt
            if fmt in ("json", "sarif", "gitlab"):
                json.loads(out)
    assert calls == ["./k\udcff.py"]  # analysed once, then served from the cache (its key too)


# -- 7. output failures are messages; what the linted tree says is escaped --------

HOSTILE = "\x1b]0;owned\x07\x1b[31m\x9b2J\u202e"


@needs_posix
def test_escape_sequences_from_the_tree_are_escaped_in_every_output(proj, capsys, monkeypatch):
    text = KERNEL.replace("T.barrier_all()", "T.barrier_all()  # noqa : TLA002 " + HOSTILE)
    os.remove(str(proj / "k.py"))
    _bytes_name(proj, ("k%s.py" % HOSTILE).encode("utf-8"), text)
    monkeypatch.setenv("FORCE_COLOR", "1")  # our own colours stay; theirs do not
    for fmt in FORMATS:
        code, out, err = run(["check", "--no-cache", "--output-format", fmt, "."], capsys)
        assert code == 1, fmt
        for bad in ("\x1b]", "\x07", "\x9b", "\u202e", "\x1b[31m\x9b"):
            assert bad not in out and bad not in err, (fmt, bad)
        if fmt in ("full", "concise", "github"):
            assert "\\x1b]0;owned\\x07\\x1b[31m\\x9b2J\\u202e" in out, fmt
        else:  # JSON escapes them itself, losslessly
            assert "owned" in out and "\\u001b]0;owned\\u0007" in out, fmt
    for fmt in ("table", "json"):
        code, out, err = run(["kernels", "--output-format", fmt, "."], capsys)
        assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out
        assert "owned" in out


def test_output_file_that_cannot_be_written_is_one_line_exit_2(proj, capsys):
    (proj / "folder").mkdir()
    targets = ["folder", "k.py/under-a-file.txt"]
    if os.path.exists("/dev/full"):
        targets.append("/dev/full")  # a full disk
    for target in targets:
        for argv in (["check", "--no-cache"], ["check", "--no-cache", "--exit-zero"],
                     ["kernels"], ["config"]):
            code, out, err = run(argv + ["-o", target], capsys)
            assert code == 2, (target, argv)
            assert err.startswith("flake8-tilelang: error: cannot write the output to %s: " % target)
            assert err.count("\n") == 1 and "Traceback" not in err


def _cli(args, **kw):
    env = dict(os.environ)
    env.pop("FLAKE8_TILELANG_STRICT", None)
    return subprocess.run([sys.executable, "-m", "flake8_tilelang"] + args, env=env, **kw)


@needs_posix
@pytest.mark.parametrize("exit_zero", [False, True])
def test_broken_pipe_exits_quietly_with_the_run_status(proj, exit_zero):
    for k in range(40):  # more output than a pipe buffer holds
        (proj / ("k%02d.py" % k)).write_text(KERNEL)
    extra = ["--exit-zero"] if exit_zero else []
    for fmt in ("full", "json"):
        r, w = os.pipe()
        os.close(r)  # the reader is gone before anything is written (`| head -0`)
        try:
            proc = _cli(["check", "--no-cache", "--output-format", fmt] + extra + ["."],
                        stdout=w, stderr=subprocess.PIPE, timeout=300)
        finally:
            os.close(w)
        assert proc.returncode == (0 if exit_zero else 1), proc.stderr
        assert proc.stderr == b""
    r, w = os.pipe()
    os.close(r)
    try:
        proc = _cli(["rules"], stdout=w, stderr=subprocess.PIPE, timeout=300)
    finally:
        os.close(w)
    assert (proc.returncode, proc.stderr) == (0, b"")


@needs_posix
def test_closed_or_full_stdout_is_one_line_exit_2(proj):
    proc = subprocess.run(["sh", "-c", 'exec "$0" -m flake8_tilelang check --no-cache . >&-',
                           sys.executable], stderr=subprocess.PIPE, timeout=300,
                          env={k: v for k, v in os.environ.items() if k != "FLAKE8_TILELANG_STRICT"})
    assert proc.returncode == 2
    assert proc.stderr.decode().splitlines() == [
        "flake8-tilelang: error: cannot write the output: stdout is closed"]
    if os.path.exists("/dev/full"):
        with open("/dev/full", "w") as full:
            proc = _cli(["check", "--no-cache", "."], stdout=full, stderr=subprocess.PIPE, timeout=300)
        lines = proc.stderr.decode().splitlines()
        assert proc.returncode == 2 and len(lines) == 1, lines
        assert lines[0].startswith("flake8-tilelang: error: cannot write the output to stdout: ")


# -- 6. configuration is validated as configuration ---------------------------------

@pytest.mark.parametrize("argv, where", [
    (["--exclude", "gen,[z-a]"], "--exclude"),
    (["--extend-exclude", "a[]b"], "--extend-exclude"),
    (["--per-file-ignores", "[!]x.py:TLA001"], "--per-file-ignores"),
    (["--per-file-ignores", "ok.py,**/[b-a]/*.py:TLA"], "--per-file-ignores"),
])
@pytest.mark.parametrize("command", ["check", "kernels", "config"])
def test_invalid_glob_on_the_command_line_is_exit_2(proj, capsys, argv, where, command):
    code, out, err = run([command] + (["--no-cache", "--exit-zero"] if command == "check" else [])
                         + argv, capsys)
    assert (code, out) == (2, "")
    assert err.startswith("flake8-tilelang: error: %s: invalid glob " % where), err
    assert err.count("\n") == 1 and "TLA000" not in err


@pytest.mark.parametrize("table, key", [
    ('exclude = ["[z-a]"]', "exclude"),
    ('extend-exclude = ["x[]"]', "extend-exclude"),
    ('per-file-ignores = {"[!]k.py" = ["TLA001"]}', "per-file-ignores"),
])
def test_invalid_glob_in_the_config_names_the_key(proj, capsys, table, key):
    (proj / "pyproject.toml").write_text("[tool.flake8-tilelang]\n%s\n" % table)
    code, out, err = run(["check", "--no-cache", "--exit-zero", "."], capsys)
    assert (code, out) == (2, "")
    assert "pyproject.toml: [tool.flake8-tilelang] %s" % key in err and "invalid glob" in err


# -- 9. kernels survives what check survives -----------------------------------------

def test_kernels_survives_a_parser_memory_error(proj, capsys, monkeypatch):
    import ast

    real = ast.parse

    def parse(source, filename="<unknown>", *a, **kw):
        if os.path.basename(str(filename)) == "k.py":
            raise MemoryError()
        return real(source, filename, *a, **kw)

    (proj / "ok.py").write_text(KERNEL)
    monkeypatch.setattr(ast, "parse", parse)
    code, out, err = run(["kernels", "."], capsys)
    assert "Traceback" not in err and "internal error" not in err
    assert code == 0  # the other file's kernel is listed
    assert "./ok.py:13" in out
    assert "./k.py: E999 MemoryError: cannot parse (not inventoried)" in out


# -- 10. no orphans -------------------------------------------------------------------

ORPHAN_PARENT = textwrap.dedent("""\
    import os, sys, time
    from flake8_tilelang.cli import main
    from flake8_tilelang.cli import run as run_mod

    pids = sys.argv[1]
    if sys.argv[2] == "no-prctl":  # the portable fallback alone: the watchdog thread
        run_mod._set_pdeathsig = lambda: False

    def work(item):
        with open(os.path.join(pids, str(os.getpid())), "w") as f:
            f.write("busy")
        time.sleep(3600)  # a worker busy for an hour

    run_mod._work = work
    sys.exit(main(["check", "--no-cache", "-j", "2", sys.argv[3]]))
    """)


def _gone(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")  # exited, not reaped yet
    except OSError:
        return True


def _wait_for(predicate, limit=120.0):
    deadline = time.monotonic() + limit  # a bound on a hang, not a timing assertion
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork and /proc")
@pytest.mark.parametrize("how", ["prctl", "no-prctl"])
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_workers_exit_when_the_parent_dies(tmp_path, how, sig):
    for k in range(4):
        (tmp_path / ("k%d.py" % k)).write_text(KERNEL)
    pids = tmp_path / "pids"
    pids.mkdir()
    script = tmp_path / "parent.py"
    script.write_text(ORPHAN_PARENT)
    env = dict(os.environ)
    env.pop("FLAKE8_TILELANG_STRICT", None)
    parent = subprocess.Popen([sys.executable, str(script), str(pids), how, str(tmp_path)],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers = []
    try:
        assert _wait_for(lambda: len(os.listdir(str(pids))) >= 2), "the workers never started"
        workers = [int(p) for p in os.listdir(str(pids))]
        os.kill(parent.pid, sig)  # the parent alone
        parent.wait()
        assert _wait_for(lambda: all(_gone(p) for p in workers), limit=60.0), \
            "orphaned workers: %s" % [p for p in workers if not _gone(p)]
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        for pid in workers:
            if not _gone(pid):
                os.kill(pid, signal.SIGKILL)


# -- discovery: a tree thousands of folders deep -----------------------------------------

def test_a_very_deep_tree_is_walked(proj, capsys):
    depth = 1500  # deeper than the recursion limit of a recursive walk
    here = os.getcwd()
    try:
        os.chdir(str(proj))
        for _ in range(depth):
            os.mkdir("d")
            os.chdir("d")
        with open("deep.py", "w") as f:
            f.write(KERNEL)
    finally:
        os.chdir(here)
    try:
        code, out, err = run(["check", "--no-cache", "--output-format", "concise", "."], capsys)
        assert "Traceback" not in err and "internal error" not in err
        assert code == 1
        deep = "./" + "d/" * depth + "deep.py"
        assert [h for h in heads(out) if h.startswith(deep)] == [deep + ":16 TLA001", deep + ":18 TLA002"]
    finally:  # remove it without recursion, too
        os.chdir(str(proj))
        for _ in range(depth):
            os.chdir("d")
        os.remove("deep.py")
        for _ in range(depth):
            os.chdir("..")
            os.rmdir("d")
        os.chdir(here)


@needs_posix
@pytest.mark.parametrize("how", ["writable-by-others", "another-user"])
def test_a_shared_cache_folder_someone_else_can_write_is_not_used(proj, tmp_path, capsys, calls, how):
    """--cache-dir /tmp: a `flake8-tilelang` folder that another user made
    (or may write to) could feed forged entries; it is not used."""
    shared = tmp_path / "shared"
    shared.mkdir()
    check(capsys, "--cache-dir", str(shared))
    sub = shared / cache_mod.SUBDIR
    if how == "writable-by-others":
        os.chmod(str(sub), 0o777)
    else:
        if os.geteuid() != 0:
            pytest.skip("needs root to give the folder away")
        for root, dirs, files in os.walk(str(sub)):
            for name in [root] + [os.path.join(root, n) for n in files]:
                os.chown(name, 4242, 4242)
    before = snapshot(sub)
    calls.clear()
    code, out, err = check(capsys, "--cache-dir", str(shared))
    assert (code, heads(out)) == (1, EXPECTED) and calls == ["./k.py"]
    assert "not using the cache" in err
    assert snapshot(sub) == before


@needs_posix
def test_closed_stdout_with_nothing_to_print_is_not_an_error(proj):
    (proj / "k.py").write_text("import tilelang\n")
    proc = subprocess.run(["sh", "-c", 'exec "$0" -m flake8_tilelang check --no-cache -q . >&-',
                           sys.executable], stderr=subprocess.PIPE, timeout=300,
                          env={k: v for k, v in os.environ.items() if k != "FLAKE8_TILELANG_STRICT"})
    assert (proc.returncode, proc.stderr) == (0, b"")


def test_a_crafted_glob_cannot_make_matching_hang():
    """Several stars used to compile to a backtracking regex: a pull request
    controls both the pattern (pyproject) and the file names."""
    from flake8_tilelang.settings import PathPattern, _GlobMatcher

    pattern = PathPattern("*a*a*a*a*a*a*a*a*a*a*a*a*b")
    assert isinstance(pattern._compiled(), _GlobMatcher)
    assert not pattern.matches_name("a" * 5000)  # linear: instant, where the regex took hours
    assert pattern.matches_name("a" * 12 + "xb")
    assert PathPattern("src/**/gen_*_*.py").matches_rel("src/a/b/gen_x_y.py")
    assert not PathPattern("src/**/gen_*_*.py").matches_rel("src/a/b/gen_x.py")


def test_fixes_never_write_through_a_symlinked_file(tmp_path, monkeypatch, capsys):
    """`--fix`, `--add-noqa` and `migrate` edit files in place: a linted path that is a
    symlink to a file outside the tree is reported, and the target stays untouched."""
    from flake8_tilelang.cli import main

    outside = tmp_path / "outside"
    outside.mkdir()
    repo = tmp_path / "repo"
    repo.mkdir()
    kernel = open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "example", "quickstart_gemm_exp.py"), encoding="utf-8").read()
    (outside / "k.py").write_text(kernel)
    (repo / "k.py").symlink_to(outside / "k.py")
    monkeypatch.chdir(repo)
    for argv in (["check", "--no-cache", "--fix", "--unsafe-fixes", "k.py"],
                 ["check", "--no-cache", "--add-noqa", "k.py"],
                 ["migrate", "k.py"]):
        main(argv)
        assert (outside / "k.py").read_text() == kernel, argv
    out, err = capsys.readouterr()
    # issue 22 point 13: a file outside the project is not even read, only reported
    assert "leads out of the project through a symlink" in out + err
    # a symlink to a file inside the project is linted, but never written through
    (repo / "pyproject.toml").write_text("[project]\nname = 'victim'\n")
    (repo / "real").mkdir()
    (repo / "real" / "k.py").write_text(kernel)
    os.remove(str(repo / "k.py"))
    (repo / "k.py").symlink_to(repo / "real" / "k.py")
    for argv in (["check", "--no-cache", "--fix", "--unsafe-fixes", "k.py"],
                 ["check", "--no-cache", "--add-noqa", "k.py"],
                 ["migrate", "k.py"]):
        assert main(argv) == 2, argv
        assert (repo / "real" / "k.py").read_text() == kernel, argv
        assert os.path.islink(str(repo / "k.py"))
    err = capsys.readouterr().err
    assert "k.py: not fixed: k.py is a symlink; not written" in err
    assert "cannot add noqa: k.py is a symlink; not written" in err


@needs_posix
def test_a_folder_name_quoted_in_a_flake8_message_is_escaped(tmp_path):
    """The plugin's text goes to the terminal as flake8 prints it: a path it
    quotes ("set at <folder>/compiler/flags.py", a package found under a
    folder the user never named) has its escape sequences made visible."""
    folder = tmp_path / ("py" + HOSTILE) / "compiler"
    try:
        folder.mkdir(parents=True)
    except (OSError, UnicodeError):
        pytest.skip("this file system refuses the name")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'esc'\n")
    (folder / "__init__.py").write_text("")
    (folder / "flags.py").write_text('CFG = {"tl.ascend_auto_sync": True}\n')
    (tmp_path / "k.py").write_text(KERNEL.replace("CFG = {", "from compiler.flags import CFG\n\nLOCAL = {"))
    env = dict(os.environ)
    env.pop("FLAKE8_TILELANG_STRICT", None)
    proc = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select=TLA", "k.py"], cwd=str(tmp_path),
                          capture_output=True, env=env, timeout=300)
    out = proc.stdout.decode("utf-8", "replace")
    assert "TLA002" in out and "compiler/flags.py:1" in out, out
    for bad in ("\x1b]", "\x07", "\x9b", "\u202e"):
        assert bad not in out, bad
    assert "\\x1b]0;owned\\x07" in out
