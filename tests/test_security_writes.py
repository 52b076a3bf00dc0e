"""Writes, re-reads and budgets (issue 22): every test builds a hostile tree
in a temporary folder and runs the tool over it as CI or an editor would."""
import errno
import hashlib
import hmac
import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
import time

import pytest

from flake8_tilelang.cli import cache as cache_mod
from flake8_tilelang.cli import fileio
from flake8_tilelang.cli import main
from flake8_tilelang.cli import run as run_mod
from flake8_tilelang.model import crossmod

from test_security import KERNEL, heads, run, snapshot  # noqa: F401 - shared conventions

POSIX = os.name == "posix"
needs_posix = pytest.mark.skipif(not POSIX, reason="POSIX file system semantics")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with open(os.path.join(ROOT, "fixtures", "example", "quickstart_gemm_exp.py"), encoding="utf-8") as _f:
    MIGRATABLE = _f.read()  # a kernel `migrate` rewrites

FIX = ["check", "--no-cache", "--output-format", "concise", "--fix", "--unsafe-fixes"]
NOQA = ["check", "--no-cache", "--add-noqa"]
MIGRATE = ["migrate"]
WRITERS = {"fix": FIX, "noqa": NOQA, "migrate": MIGRATE}


@pytest.fixture
def repo(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "pyproject.toml").write_text("[project]\nname = 'victim'\n")
    (root / "k.py").write_text(KERNEL)
    (root / "q.py").write_text(MIGRATABLE)
    monkeypatch.chdir(root)
    return root


def target(writer):
    """The file each writer edits in these trees."""
    return "q.py" if writer == "migrate" else "k.py"


def temp_files(folder):
    return [n for n in os.listdir(str(folder)) if n.endswith(".tmp")]


# -- 1. no write outside the tree through a hard link ------------------------------

@needs_posix
@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_hard_link_to_a_file_outside_is_left_alone(repo, tmp_path, capsys, writer):
    outside = tmp_path / "outside"
    outside.mkdir()
    name = target(writer)
    victim = outside / "victim.py"
    victim.write_text((repo / name).read_text())
    os.remove(str(repo / name))
    os.link(str(victim), str(repo / name))  # what an archive or a checkout tool can create
    before = victim.read_bytes()
    code, out, err = run(WRITERS[writer] + [name], capsys)
    assert code == 2, (out, err)
    assert victim.read_bytes() == before
    assert os.stat(str(repo / name)).st_ino == os.stat(str(victim)).st_ino  # not split either
    assert "has 2 hard links; not written" in out + err
    if writer == "fix":
        assert "TLA001" in out  # the findings stay reported


@needs_posix
def test_two_names_of_one_file_are_linted_once_and_never_fixed_twice(repo, capsys):
    """Point 15: both names used to be fixed from the original bytes (`T.copy(` became `py(`)."""
    os.link(str(repo / "k.py"), str(repo / "k2.py"))
    os.remove("q.py")
    code, out, _ = run(["check", "--no-cache", "--output-format", "concise", "."], capsys)
    assert heads(out) == ["./k.py:16 TLA001", "./k.py:18 TLA002"]  # one name, once
    code, out, err = run(FIX + ["."], capsys)
    assert code == 2 and (repo / "k.py").read_text() == KERNEL and (repo / "k2.py").read_text() == KERNEL
    assert "hard links" in err and "fixed" not in err.split("hard links")[1].split("\n")[0]


# -- 2. a failed write never corrupts the source -------------------------------------

def _fixed_bytes(tmp_path, name, text):
    """What --fix writes for ``text`` (computed on a copy)."""
    copy = tmp_path / "copy"
    copy.mkdir(exist_ok=True)
    (copy / "pyproject.toml").write_text("[project]\n")
    (copy / name).write_text(text)
    cwd = os.getcwd()
    os.chdir(str(copy))
    try:
        main(FIX + [name])
    finally:
        os.chdir(cwd)
    return (copy / name).read_bytes()


def test_a_write_failing_at_every_byte_offset_leaves_the_original(repo, tmp_path, monkeypatch, capsys):
    """The fault-injection test: the writer fails after ``k`` bytes for every
    ``k`` of the fixed file; each time the original is byte-identical, no
    temporary file is left, and the run says which file was not written."""
    new = _fixed_bytes(tmp_path, "k.py", KERNEL)
    capsys.readouterr()
    original = (repo / "k.py").read_bytes()
    assert new != original
    _, stamp = fileio.read_linted("k.py", 1 << 20)
    real_write = fileio._write_all

    def failing_at(offset):
        def write(fd, data):
            real_write(fd, data[:offset])
            raise OSError(errno.ENOSPC, "No space left on device")
        return write

    mode = stat.S_IMODE(os.stat("k.py").st_mode)
    for offset in range(len(new) + 1):
        monkeypatch.setattr(fileio, "_write_all", failing_at(offset))
        with pytest.raises(OSError):
            fileio.rewrite("k.py", stamp, lambda current: new)
        assert (repo / "k.py").read_bytes() == original, offset
        assert temp_files(repo) == [], offset
    assert stat.S_IMODE(os.stat("k.py").st_mode) == mode
    # end to end, at a few offsets: one line naming the file, the findings stay, exit 2
    for offset in (0, 1, len(new) // 2, len(new)):
        monkeypatch.setattr(fileio, "_write_all", failing_at(offset))
        code, out, err = run(FIX + ["k.py"], capsys)
        assert code == 2 and (repo / "k.py").read_bytes() == original
        assert "k.py: cannot write the fixes, the file is unchanged: No space left on device" in err
        assert heads(out) == ["k.py:16 TLA001", "k.py:18 TLA002"]
    monkeypatch.setattr(fileio, "_write_all", real_write)
    assert run(FIX + ["k.py"], capsys)[0] == 0 and (repo / "k.py").read_bytes() == new


@pytest.mark.parametrize("step", ["fsync", "replace", "fchmod"])
def test_a_failing_fsync_or_rename_leaves_the_original(repo, monkeypatch, capsys, step):
    original = (repo / "k.py").read_bytes()

    def boom(*args, **kwargs):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(fileio.os, step, boom)
    code, out, err = run(FIX + ["k.py"], capsys)
    assert code == 2 and (repo / "k.py").read_bytes() == original and temp_files(repo) == []
    assert "cannot write the fixes" in err


@needs_posix
def test_a_file_size_limit_mid_write_leaves_the_original(repo):
    """`ulimit -f`: the kernel refuses the write past the limit (EFBIG)."""
    pad = "# " + "x" * 1500 + "\n"
    text = KERNEL + pad
    (repo / "k.py").write_text(text)
    limit = len(text.encode()) - 200  # the fixed file is about as long: the write fails midway
    script = textwrap.dedent('''
        import resource, signal, sys
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (%d, %d))
        from flake8_tilelang.cli import main
        sys.exit(main(%r))
    ''' % (limit, limit, FIX + ["k.py"]))
    env = dict(os.environ, PYTHONPATH=ROOT)
    proc = subprocess.run([sys.executable, "-c", script], cwd=str(repo), env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert (repo / "k.py").read_text() == text
    assert "k.py: cannot write the fixes, the file is unchanged: File too large" in proc.stderr
    assert temp_files(repo) == []


def test_the_written_file_keeps_its_mode(repo, capsys):
    os.chmod("k.py", 0o640)
    assert run(FIX + ["k.py"], capsys)[0] == 0
    assert stat.S_IMODE(os.stat("k.py").st_mode) == 0o640 and "T.barrier_all" not in (repo / "k.py").read_text()
    assert temp_files(repo) == []


# -- 3. edits apply only to the bytes they were computed on ----------------------------

def _after_lint(monkeypatch, action):
    """Run ``action`` once `check` has linted (between the lint and the write)."""
    real = run_mod.check

    def check(*args, **kwargs):
        outcome = real(*args, **kwargs)
        action()
        return outcome

    monkeypatch.setattr(run_mod, "check", check)


@pytest.mark.parametrize("writer", ["fix", "noqa"])
def test_an_editor_save_between_lint_and_write_is_kept(repo, monkeypatch, capsys, writer):
    saved = "# the user's edit\n" + KERNEL
    _after_lint(monkeypatch, lambda: (repo / "k.py").write_text(saved))
    code, out, err = run(WRITERS[writer] + ["k.py"], capsys)
    assert code == 2
    assert (repo / "k.py").read_text() == saved  # not mangled with stale positions
    assert "k.py changed since it was checked; not written" in err


def test_a_migrate_plan_is_not_applied_to_changed_bytes(repo, monkeypatch, capsys):
    from flake8_tilelang import migrate as M

    saved = "# the user's edit\n" + MIGRATABLE
    real = M.plan_file

    def plan(*args, **kwargs):
        out = real(*args, **kwargs)
        (repo / "q.py").write_text(saved)
        return out

    monkeypatch.setattr(M, "plan_file", plan)
    code, out, err = run(MIGRATE + ["q.py"], capsys)
    assert code == 2 and (repo / "q.py").read_text() == saved
    assert "changed since it was checked" in out
    assert "0 kernels migrated, 1 file not written" in out


@needs_posix
@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_folder_swapped_for_a_symlink_after_the_lint_is_not_followed(
        repo, tmp_path, monkeypatch, capsys, writer):
    name = target(writer)
    (repo / "pkg").mkdir()
    os.rename(str(repo / name), str(repo / "pkg" / name))
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / name).write_bytes((repo / "pkg" / name).read_bytes())  # the very same bytes

    def swap():
        os.rename(str(repo / "pkg"), str(repo / "pkg.orig"))
        os.symlink(str(outside), str(repo / "pkg"))

    if writer == "migrate":
        from flake8_tilelang import migrate as M

        real = M.plan_file

        def plan(*args, **kwargs):
            out = real(*args, **kwargs)
            swap()
            return out

        monkeypatch.setattr(M, "plan_file", plan)
    else:
        _after_lint(monkeypatch, swap)
    before = snapshot(outside)
    code, out, err = run(WRITERS[writer] + ["pkg/" + name], capsys)
    assert code == 2
    assert snapshot(outside) == before
    assert "pkg is a symlink or not a folder" in out + err


@needs_posix
@pytest.mark.parametrize("writer", ["fix", "noqa"])
def test_a_file_swapped_for_a_symlink_after_the_lint_is_not_followed(
        repo, tmp_path, monkeypatch, capsys, writer):
    outside = tmp_path / "outside.py"
    outside.write_text(KERNEL)  # the very same bytes

    def swap():
        os.remove("k.py")
        os.symlink(str(outside), "k.py")

    _after_lint(monkeypatch, swap)
    code, out, err = run(WRITERS[writer] + ["k.py"], capsys)
    assert code == 2 and outside.read_text() == KERNEL and "k.py is a symlink; not written" in err


@needs_posix
def test_a_path_swapped_for_a_fifo_does_not_hang(repo, monkeypatch, capsys):
    def swap():
        os.remove("k.py")
        os.mkfifo("k.py")

    _after_lint(monkeypatch, swap)

    def timeout(*_):
        raise TimeoutError("the run blocked on a FIFO")

    old = signal.signal(signal.SIGALRM, timeout)
    signal.alarm(20)
    try:
        code, out, err = run(FIX + ["k.py"], capsys)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert code == 2 and "k.py is now a FIFO; not written" in err


# -- 5. a write that fails is not a fix --------------------------------------------------

def _read_only(monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(fileio, "_replace_in", refuse)


def test_a_failed_fix_is_reported_not_counted(repo, monkeypatch, capsys):
    _read_only(monkeypatch)
    code, out, err = run(FIX + ["k.py"], capsys)
    assert code == 2
    assert heads(out) == ["k.py:16 TLA001", "k.py:18 TLA002"]
    assert "fixed" not in err.replace("not fixed", "") and "Found 2 diagnostics" in err
    code, out, err = run(["check", "--no-cache", "--fix-only", "--unsafe-fixes", "k.py"], capsys)
    assert code == 2 and "No diagnostics fixed" in err
    code, out, err = run(["check", "--no-cache", "--fix", "--unsafe-fixes", "--exit-zero", "k.py"], capsys)
    assert code == 2  # a CI step never goes green on an unwritten fix


def test_a_read_only_file_is_not_replaced(repo, monkeypatch, capsys):
    """A file the user may not write stays so, though its folder would allow the
    rename (simulated: the tests may run as root, which ignores modes)."""
    real_open = os.open

    def guarded(path, flags, *args, **kwargs):
        if flags & os.O_WRONLY and not flags & os.O_CREAT:
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(fileio.os, "open", guarded)
    for argv in (FIX + ["k.py"], NOQA + ["k.py"], MIGRATE + ["q.py"]):
        code, out, err = run(argv, capsys)
        assert code == 2 and "Permission denied" in out + err, argv
    assert (repo / "k.py").read_text() == KERNEL and (repo / "q.py").read_text() == MIGRATABLE
    assert temp_files(repo) == []


def test_a_failed_migrate_write_does_not_claim_success(repo, monkeypatch, capsys):
    _read_only(monkeypatch)
    code, out, err = run(MIGRATE + ["q.py"], capsys)
    assert code == 2
    assert "0 kernels migrated, 1 file not written" in out and "1 kernel migrated" not in out
    code, out, err = run(MIGRATE + ["--output-format", "json", "q.py"], capsys)
    data = json.loads(out)
    assert code == 2 and data["summary"]["migrated"] == 0 and data["files"][0]["written"] is False
    assert (repo / "q.py").read_text() == MIGRATABLE


def test_a_failed_add_noqa_is_an_error(repo, monkeypatch, capsys):
    _read_only(monkeypatch)
    code, out, err = run(NOQA + ["k.py"], capsys)
    assert code == 2 and "Added 0 noqa directives." in err and "Read-only file system" in err


# -- 6. configuration has a cost budget ----------------------------------------------

def _config_error(capsys, timeout=10.0):
    start = time.time()
    code, out, err = run(["check", "--no-cache", "k.py"], capsys)
    assert time.time() - start < timeout
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("body", [
    "[tool.flake8-tilelang]\nselect = " + "[" * 1000 + "]" * 1000 + "\n",  # RecursionError
    "[tool.flake8-tilelang]\nx = " + "{a = " * 1000 + "1" + "}" * 1000 + "\n",
    "[tool.flake8-tilelang]\n" + ".".join(["a"] * 20000) + " = 1\n",  # a quadratic dotted key
    "[tool.flake8-tilelang]\nselect = \"\xff\"\n".encode("latin-1").decode("latin-1"),
])
def test_a_hostile_pyproject_is_one_config_error_naming_it(repo, capsys, body):
    path = repo / "pyproject.toml"
    if "\xff" in body:
        path.write_bytes(body.encode("latin-1"))
    else:
        path.write_text(body)
    err = _config_error(capsys)
    assert str(path) in err


def test_a_huge_pyproject_is_not_parsed(repo, capsys):
    path = repo / "pyproject.toml"
    with open(str(path), "wb") as f:
        f.write(b"[tool.flake8-tilelang]\n")
        f.truncate(200 << 20)  # 200 MB (sparse)
    err = _config_error(capsys, timeout=5.0)
    assert str(path) in err and "above the limit" in err


def test_the_configurations_of_a_tree_have_one_budget(repo, capsys, monkeypatch):
    """A big pyproject.toml in every folder: the run reads at most its budget."""
    from flake8_tilelang import settings as S

    monkeypatch.setattr(S, "MAX_CONFIG_BYTES_PER_RUN", 100_000)
    for i in range(20):
        folder = repo / ("pkg%d" % i)
        folder.mkdir()
        (folder / "pyproject.toml").write_text("[tool.flake8-tilelang]\n" + "# pad\n" * 2000)
        (folder / "k.py").write_text(KERNEL)
    code, out, err = run(["check", "--no-cache", "."], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "total more than 100000 bytes" in err
    monkeypatch.setattr(S, "MAX_CONFIG_BYTES_PER_RUN", 16 << 20)
    assert run(["check", "--no-cache", "k.py", "pkg0"], capsys)[0] == 1


@needs_posix
def test_a_fifo_pyproject_never_blocks(repo, capsys, tmp_path):
    os.remove(str(repo / "pyproject.toml"))
    os.mkfifo(str(repo / "pyproject.toml"))
    code, out, err = run(["check", "--no-cache", "--output-format", "concise", "k.py"], capsys)
    assert code == 1 and heads(out) == ["k.py:16 TLA001", "k.py:18 TLA002"]


@pytest.mark.parametrize("key", ["extend-exclude", "per-file-ignores"])
def test_a_huge_glob_is_refused_before_walking(repo, capsys, key):
    pattern = "**/" * 350000 + "x.py"  # ~1 MB
    for i in range(100):
        (repo / ("f%d.py" % i)).write_text("x = 1\n")
    if key == "extend-exclude":
        body = "[tool.flake8-tilelang]\nextend-exclude = [%s]\n" % json.dumps(pattern)
    else:
        body = "[tool.flake8-tilelang.per-file-ignores]\n%s = [\"TLA001\"]\n" % json.dumps(pattern)
    (repo / "pyproject.toml").write_text(body)
    err = _config_error(capsys)
    assert "above the limit" in err and "pyproject.toml" in err


@pytest.mark.parametrize("key", ["extend-exclude", "per-file-ignores"])
def test_too_many_globs_are_refused(repo, capsys, key):
    globs = ["d%d/*.py" % i for i in range(600)]
    if key == "extend-exclude":
        body = "[tool.flake8-tilelang]\nextend-exclude = %s\n" % json.dumps(globs)
    else:
        body = "[tool.flake8-tilelang.per-file-ignores]\n" + "".join('"%s" = ["TLA001"]\n' % g for g in globs)
    (repo / "pyproject.toml").write_text(body)
    assert "more than 512 globs" in _config_error(capsys)


def test_a_glob_of_many_wildcards_is_refused(repo, capsys):
    (repo / "pyproject.toml").write_text("[tool.flake8-tilelang]\nextend-exclude = [%s]\n"
                                         % json.dumps("*a" * 40))
    err = _config_error(capsys)
    assert "wildcards" in err


# -- 7. line endings outside the edits are kept -----------------------------------------

def _mixed(text):
    lines = text.split("\n")
    return (lines[0] + "\n" + "\r\n".join(lines[1:])).encode()


def _endings_kept(before: bytes, after: bytes):
    """Every line present before and after keeps its line ending."""
    import difflib

    a = before.splitlines(keepends=True)
    b = after.splitlines(keepends=True)
    strip = [x.rstrip(b"\r\n") for x in a], [x.rstrip(b"\r\n") for x in b]
    kept = 0
    for block in difflib.SequenceMatcher(None, *strip, autojunk=False).get_matching_blocks():
        for k in range(block.size):
            la, lb = a[block.a + k], b[block.b + k]
            assert la[len(la.rstrip(b"\r\n")):] == lb[len(lb.rstrip(b"\r\n")):], (la, lb)
            kept += 1
    return kept


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_mixed_line_endings_are_kept_by_every_writer(repo, capsys, writer):
    name = target(writer)
    before = _mixed((repo / name).read_text())
    (repo / name).write_bytes(before)
    assert before.count(b"\r\n") > 20
    code, _, err = run(WRITERS[writer] + [name], capsys)
    after = (repo / name).read_bytes()
    assert after != before, err
    assert _endings_kept(before, after) > 15
    assert after.count(b"\n") - after.count(b"\r\n") == 1  # the edits took their neighbours' CRLF


def test_keep_line_endings_unit():
    before = b"a\nb\r\nc\r\nd\r\n"
    assert fileio.keep_line_endings(before, b"a\nb\nX\nc\nd\n") == b"a\nb\r\nX\r\nc\r\nd\r\n"
    assert fileio.keep_line_endings(before, b"a\nX\nY\nZ\nd\n") == b"a\nX\r\nY\r\nZ\r\nd\r\n"
    assert fileio.keep_line_endings(before, b"a\nB\nc\nd\n") == b"a\nB\r\nc\r\nd\r\n"
    assert fileio.keep_line_endings(b"a\r\nb\r\n", b"a\r\nc\r\n") == b"a\r\nc\r\n"  # not mixed: as is
    assert fileio.keep_line_endings(before, b"a\nc\nd") == b"a\nc\r\nd"


# -- 8. the summary names the configuration that turned fixing on --------------------------

def test_fix_true_in_a_pyproject_is_named_in_the_summary(repo, capsys):
    (repo / "pyproject.toml").write_text("[tool.flake8-tilelang]\nfix = true\nunsafe-fixes = true\n")
    code, out, err = run(["check", "--no-cache", "k.py"], capsys)
    assert "T.barrier_all" not in (repo / "k.py").read_text()  # Ruff's parity: it fixes
    assert "Fixing was turned on by `fix = true` in %s." % (repo / "pyproject.toml") in err
    (repo / "k.py").write_text(KERNEL)
    code, out, err = run(["check", "--no-cache", "--fix", "k.py"], capsys)
    assert "Fixing was turned on" not in err  # --fix said so itself


# -- 9. a cache committed to the repository is never trusted --------------------------------

@pytest.fixture
def own_key(tmp_path, monkeypatch):
    home = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    monkeypatch.setattr(cache_mod, "_SECRET", None)
    return home


def _forge(entry, key, secret):
    payload = json.dumps({"key": key, "findings": []}).encode()
    data = payload
    if secret is not None:
        data = hmac.new(secret, key.encode() + b"\0" + payload, hashlib.sha256).hexdigest().encode() \
            + b"\n" + payload
    with open(entry, "wb") as f:
        f.write(data)


@needs_posix
@pytest.mark.parametrize("forged_with", ["no mac", "another key"])
def test_a_committed_cache_with_perfect_modes_is_not_trusted(repo, capsys, own_key, forged_with):
    """Under umask 077 a committed cache comes out of git with the modes the
    tool expects; its entries still carry no MAC of this user's key."""
    check = ["check", "--output-format", "concise", "k.py"]
    old = os.umask(0o077)
    try:
        run(check, capsys)
        cache = repo / ".flake8_tilelang_cache"
        (entry,) = [os.path.join(r, f) for r, _, fs in os.walk(str(cache)) for f in fs if cache_mod._ENTRY.match(f)]
        _forge(entry, os.path.basename(entry), None if forged_with == "no mac" else os.urandom(32))
        code, out, err = run(check, capsys)
        assert (code, heads(out)) == (1, ["k.py:16 TLA001", "k.py:18 TLA002"])
        assert "All checks passed" not in err
    finally:
        os.umask(old)
    key = (own_key / cache_mod.SUBDIR / cache_mod.KEY_NAME).read_bytes()
    key_file = own_key / cache_mod.SUBDIR / cache_mod.KEY_NAME
    assert len(key) == 32 and stat.S_IMODE(os.stat(str(key_file)).st_mode) == 0o600
    for rel, item in snapshot(repo).items():  # the key never lands in the project
        assert item[0] != "file" or key not in item[1], rel


@needs_posix
def test_a_key_others_can_read_turns_the_cache_off(repo, capsys, own_key):
    run(["check", "k.py"], capsys)
    os.chmod(str(own_key / cache_mod.SUBDIR / cache_mod.KEY_NAME), 0o644)
    cache_mod._SECRET = None
    code, out, err = run(["check", "k.py"], capsys)
    assert code == 1 and "not using the cache: cannot keep the cache's key" in err


# -- 11. concurrent first runs agree on the cache --------------------------------------------

@needs_posix
def test_twenty_concurrent_first_runs_agree_on_the_cache(repo, capsys):
    from flake8_tilelang.pipeline import simple

    cache_mod.secret()  # the user's key exists (its own creation is atomic too)
    folder = str(repo / ".flake8_tilelang_cache")
    r, w = os.pipe()
    children = []
    for i in range(20):
        pid = os.fork()
        if pid == 0:  # pragma: no cover - child
            os.close(w)
            os.read(r, 1)  # all start together
            try:
                c = cache_mod.Cache(folder, "fp")
                c.put(c.key("k%d.py" % i, b"x"), [simple("k%d.py" % i, 1, 0, "TLA001", "m")])
                c.close()
                os._exit(3 if c.problem else 0)
            except BaseException:
                os._exit(4)
        children.append(pid)
    os.close(r)
    os.write(w, b"x" * 20)
    os.close(w)
    codes = [os.waitpid(pid, 0)[1] for pid in children]
    assert codes == [0] * 20
    assert not os.path.exists(os.path.join(folder, cache_mod.SUBDIR))  # no nested orphan
    assert [n for n in os.listdir(str(repo)) if n.startswith(".flake8_tilelang_cache")] == [
        ".flake8_tilelang_cache"]  # no temporary folder left
    checker = [d for d in os.listdir(folder) if d.startswith("v")]
    assert len(checker) == 1 and len([n for n in os.listdir(os.path.join(folder, checker[0]))
                                      if cache_mod._ENTRY.match(n)]) == 20


# -- 12. -o FILE never writes through a link ----------------------------------------------

@needs_posix
@pytest.mark.parametrize("command", [["check", "--no-cache", "--output-format", "sarif"], ["kernels"],
                                     ["migrate", "--output-format", "json"]])
def test_output_file_symlink_or_hard_link_is_refused(repo, tmp_path, capsys, command):
    bashrc = tmp_path / "bashrc"
    bashrc.write_text("precious\n")
    os.symlink(str(bashrc), "flake8-tilelang.sarif")
    code, out, err = run(command + ["-o", "flake8-tilelang.sarif", "k.py"], capsys)
    assert code == 2 and bashrc.read_text() == "precious\n"
    assert "cannot write the output to flake8-tilelang.sarif: it is a symlink" in err
    os.remove("flake8-tilelang.sarif")
    os.link(str(bashrc), "flake8-tilelang.sarif")
    code, out, err = run(command + ["-o", "flake8-tilelang.sarif", "k.py"], capsys)
    assert code == 2 and bashrc.read_text() == "precious\n" and "2 hard links" in err
    os.remove("flake8-tilelang.sarif")
    os.mkdir(str(tmp_path / "elsewhere"))
    os.symlink(str(tmp_path / "elsewhere"), "reports")  # a committed folder symlink
    for name in ("reports/out.sarif", "reports/new/folder/out.sarif"):  # nothing created through it
        code, out, err = run(command + ["-o", name, "k.py"], capsys)
        assert code == 2 and os.listdir(str(tmp_path / "elsewhere")) == []
        assert "reports is a symlink or not a folder" in err


def test_output_file_is_written_atomically_keeping_its_mode(repo, capsys):
    (repo / "out.json").write_text("old")
    os.chmod("out.json", 0o640)
    code, out, err = run(["check", "--no-cache", "--output-format", "json", "-o", "out/../out.json", "k.py"],
                         capsys)
    assert code == 1 and json.loads((repo / "out.json").read_text())[0]["code"] == "TLA001"
    if POSIX:
        assert stat.S_IMODE(os.stat("out.json").st_mode) == 0o640
    assert run(["check", "--no-cache", "-o", "new/dir/report.txt", "k.py"], capsys)[0] == 1
    assert "TLA001" in (repo / "new" / "dir" / "report.txt").read_text()
    if os.path.exists("/dev/null"):
        assert run(["check", "--no-cache", "-o", "/dev/null", "k.py"], capsys)[0] == 1


# -- 13. linted files are read only inside the project ---------------------------------------

@needs_posix
@pytest.mark.parametrize("how", ["walked", "named", "through a folder"])
def test_a_symlinked_file_pointing_outside_is_reported_not_read(repo, tmp_path, capsys, how):
    secret = tmp_path / "secret"
    secret.write_text("tilelang AWS_KEY=hunter2 (\n")  # unparsable: its line would be quoted
    if how == "through a folder":
        os.symlink(str(tmp_path), "linked")
        arg = "linked/secret"
        # (a symlinked folder is not entered while walking; named, it is refused)
        os.rename(str(secret), str(tmp_path / "secret.py"))
        arg += ".py"
    else:
        os.symlink(str(secret), "notes.py")
        arg = "." if how == "walked" else "notes.py"
    code, out, err = run(["check", "--no-cache", "--output-format", "concise", arg], capsys)
    assert "hunter2" not in out + err
    assert "E902 not checked" in out and "leads out of the project through a symlink" in out


def test_a_symlinked_file_inside_the_project_is_linted_once(repo, capsys):
    os.symlink("k.py", "alias.py")
    os.remove("q.py")
    code, out, _ = run(["check", "--no-cache", "--output-format", "concise", "."], capsys)
    assert heads(out) == ["./k.py:16 TLA001", "./k.py:18 TLA002"]  # the real name, once


# -- 10. the loader has one memory budget ------------------------------------------------------

def _importing_tree(repo, n, size):
    lines = ["import tilelang", "import tilelang.language as T"]
    for i in range(n):
        (repo / ("cfg%d.py" % i)).write_text("CFG%d = {}\n" % i + "# pad\n" * (size // 6))
        lines.append("from cfg%d import CFG%d" % (i, i))
    return "\n".join(lines) + "\n" + KERNEL.replace("pass_configs=CFG", "pass_configs={**CFG, **CFG0}")


def test_the_modules_one_file_follows_have_a_budget(repo, monkeypatch, capsys):
    crossmod.reset_budget()
    built = []
    real = crossmod._build
    monkeypatch.setattr(crossmod, "_build", lambda source, path: built.append(path) or real(source, path))
    monkeypatch.setattr(crossmod, "MAX_FILE_MODULE_BYTES", 20_000)
    (repo / "k.py").write_text(_importing_tree(repo, 16, 8_000))
    loader = crossmod.Loader(str(repo / "k.py"), analyse=lambda builder, _loader: builder)  # the engine passes its own analyser
    found = [loader.resolver_for(str(repo / ("cfg%d.py" % i))) for i in range(16)]
    assert sum(1 for r in found if r is not None) == 2 and len(built) == 2  # then: unknown
    run(["check", "--no-cache", "k.py"], capsys)  # and a run over it is fine
    crossmod.reset_budget()


def test_a_process_parses_and_keeps_at_most_its_budget(repo, monkeypatch):
    crossmod.reset_budget()
    monkeypatch.setattr(crossmod, "MAX_PARSED_BYTES", 50_000)
    monkeypatch.setattr(crossmod, "MAX_KEPT_BYTES", 20_000)
    _importing_tree(repo, 16, 8_000)
    results = []
    for i in range(16):  # sixteen linted files, one module each
        loader = crossmod.Loader(str(repo / ("user%d.py" % i)), analyse=lambda builder, _loader: builder)
        results.append(loader.resolver_for(str(repo / ("cfg%d.py" % i))))
        assert crossmod._BUDGET["kept"] <= 20_000
        assert sum(v[1] for v in crossmod._PARSE_CACHE.values() if v[2] is not None) == crossmod._BUDGET["kept"]
    assert crossmod._BUDGET["parsed"] <= 50_000
    assert results[0] is not None and results[-1] is None  # over the budget: unknown
    crossmod.reset_budget()


def test_workers_share_the_runs_module_budget(monkeypatch):
    monkeypatch.setattr(crossmod, "MAX_PARSED_BYTES", 16_000_000)
    monkeypatch.setattr(crossmod, "MAX_KEPT_BYTES", 8_000_000)
    monkeypatch.setattr(run_mod, "_SETTINGS", [])
    run_mod._init_worker([], 0, 4)
    assert (crossmod.MAX_PARSED_BYTES, crossmod.MAX_KEPT_BYTES) == (4_000_000, 2_000_000)


def test_the_module_lookup_cache_is_evicted(repo, monkeypatch):
    crossmod.reset_budget()
    monkeypatch.setattr(crossmod, "_FIND_CACHE_MAX", 50)
    loader = crossmod.Loader(str(repo / "k.py"), analyse=lambda builder, _loader: builder)  # the engine passes its own analyser
    for i in range(500):
        loader.split("mod%d.X" % i, str(repo / "k.py"))
    assert len(crossmod._FIND_CACHE) <= 50
    crossmod.reset_budget()


# -- 16. small ones ---------------------------------------------------------------------------

def test_diffs_and_show_fixes_escape_the_tree(repo, capsys):
    evil = KERNEL.replace("T.barrier_all()", "T.barrier_all()  # \x1b[2J\x1b]0;pwned\x07")
    (repo / "k.py").write_text(evil)
    for argv in (["check", "--no-cache", "--diff", "--unsafe-fixes", "k.py"],
                 ["migrate", "--diff", "q.py", "k.py"]):
        code, out, err = run(argv, capsys)
        assert "\x1b" not in out + err and "\x07" not in out + err, argv
        assert "\\x1b" in out, argv
    name = "k\x1b[31m.py"
    (repo / name).write_text(KERNEL)
    code, out, err = run(["check", "--no-cache", "--fix", "--unsafe-fixes", "--show-fixes", name], capsys)
    assert "\x1b" not in out + err and "k\\x1b[31m.py" in out


def test_a_glob_class_with_a_bracket_prints_no_warning(repo):
    env = dict(os.environ, PYTHONPATH=ROOT, PYTHONWARNINGS="default")
    code = ("import sys; from flake8_tilelang.cli import main; "
            "sys.exit(main(['check', '--no-cache', '--extend-exclude', '[[]x,[a&&b]*,[!~~]*', 'k.py']))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=str(repo), env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 1 and "Warning" not in proc.stderr and "settings.py" not in proc.stderr
    from flake8_tilelang.settings import PathPattern

    assert PathPattern("[[]x").matches_name("[x") and not PathPattern("[[]x").matches_name("x")
    assert PathPattern("[!~~]*").matches_name("a") and not PathPattern("[!~~]*").matches_name("~")


@needs_posix
def test_write_in_place_keeps_the_guarantees(repo, tmp_path):
    """The helper for callers without a stamp: atomic, no symlink, no hard link."""
    run_mod.write_in_place("k.py", b"x = 1\n")
    assert (repo / "k.py").read_bytes() == b"x = 1\n"
    outside = tmp_path / "outside.py"
    outside.write_text("keep\n")
    os.link(str(outside), "linked.py")
    with pytest.raises(fileio.NotWritten):
        run_mod.write_in_place("linked.py", b"evil\n")
    os.symlink("k.py", "alias.py")
    with pytest.raises(fileio.NotWritten):
        run_mod.write_in_place("alias.py", b"evil\n")
    assert outside.read_text() == "keep\n" and (repo / "k.py").read_bytes() == b"x = 1\n"
