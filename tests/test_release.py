"""The project is releasable: one version everywhere, a changelog section for
it, a pre-commit hook that works from a git URL at a commit, and (slow) a
wheel and an sdist that build with setuptools' PEP 517 backend, hold what a
user expects, and install cleanly into a fresh virtual environment.

The slow tests need pip to reach an index for setuptools, wheel and the
runtime dependencies (as `.ci/run` does); pre-commit itself is installed
into a throw-away venv when the index has it, else that test is skipped.
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import zipfile

import pytest

import mini_yaml

from flake8_tilelang import __version__

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = shutil.which("flake8-tilelang", path=os.path.dirname(sys.executable))
EXAMPLE = os.path.join(ROOT, "fixtures", "example", "quickstart_gemm_exp.py")
BIN = "Scripts" if os.name == "nt" else "bin"


def _read(name):
    with open(os.path.join(ROOT, name), encoding="utf-8") as f:
        return f.read()


def _toml(name):
    try:
        import tomllib
    except ImportError:  # Python < 3.11: the runtime dependency
        import tomli as tomllib
    with open(os.path.join(ROOT, name), "rb") as f:
        return tomllib.load(f)


# -- version and changelog ------------------------------------------------------------

def test_one_version_and_a_changelog_section_for_it():
    assert re.fullmatch(r"\d+\.\d+\.\d+", __version__)
    headers = re.findall(r"^## \[([^\]]+)\](.*)$", _read("CHANGELOG.md"), re.M)
    assert headers[0] == ("Unreleased", ""), "a fresh [Unreleased] section comes first"
    version, rest = headers[1]
    assert version == __version__, "the newest released section is the package's version"
    assert re.fullmatch(r" - \d{4}-\d{2}-\d{2}", rest), "a released section carries its date"
    assert len({v for v, _ in headers}) == len(headers)
    project = _toml("pyproject.toml")
    assert project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "flake8_tilelang.__version__"}


def test_version_command_prints_the_version():
    from flake8_tilelang.cli import version_text

    assert version_text().splitlines()[0] == "flake8-tilelang %s" % __version__


def test_sdist_manifest_covers_every_top_level_folder():
    """Everything a user of the sdist expects is named in MANIFEST.in (the
    slow test checks the archive itself)."""
    manifest = _read("MANIFEST.in")
    grafts = set(re.findall(r"^graft (\S+)$", manifest, re.M))
    included = set()
    for line in re.findall(r"^include (.+)$", manifest, re.M):
        included.update(line.split())
    for name in _tracked_top_level():
        if name in ("flake8_tilelang", "README.md", "LICENSE", "pyproject.toml", "MANIFEST.in", ".gitignore"):
            continue  # setuptools adds these itself (.gitignore is not for users)
        path = os.path.join(ROOT, name)
        assert (name in grafts) if os.path.isdir(path) else (name in included), \
            "%s is not in MANIFEST.in" % name


def _tracked_top_level():
    try:
        out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    except OSError:
        out = None
    if out is not None and out.returncode == 0 and out.stdout.strip():
        return sorted({line.split("/")[0] for line in out.stdout.splitlines()})
    # an unpacked sdist: what is there, minus what setuptools writes
    return sorted(n for n in os.listdir(ROOT) if n not in ("PKG-INFO", "setup.cfg") and not n.endswith(
        ".egg-info") and not n.startswith((".pytest", ".hypothesis", ".flake8_tilelang")) and n not in (
        "build", "dist", ".venv", ".git"))


def test_readme_installs_from_a_checkout_or_a_git_url_until_a_release_exists():
    readme = _read("README.md")
    # no `pip install flake8-tilelang` (or its extras) as if it were on PyPI
    assert not re.search(r"""pip install\s+['"]?flake8-tilelang(\[[a-z,]+\])?['"]?(?!\s*@)(\s|$)""", readme, re.M)
    for ref in re.findall(r"flake8-tilelang(?:\[[a-z,]+\])? @ (\S+?)[\"']", readme):
        assert re.fullmatch(r"git\+https://\S+\.git@(<commit>|[0-9a-f]{40})", ref), ref
    assert "pip install ." in readme
    # pre-commit: our hook's rev is an honest placeholder (or a real SHA), never an invented tag
    config = next(b for b in re.findall(r"^```yaml\n(.*?)^```", readme, re.S | re.M)
                  if "id: flake8-tilelang" in b and "repo: local" not in b)
    (repo,) = mini_yaml.load(config)["repos"]
    assert repo["repo"].endswith("/flake8-tilelang") and repo["hooks"] == [{"id": "flake8-tilelang"}]
    assert re.fullmatch(r"<commit>|[0-9a-f]{40}", repo["rev"])


# -- pre-commit hook ------------------------------------------------------------------

# the keys pre-commit's manifest schema knows (pre-commit/clientlib.py, MANIFEST_HOOK_DICT)
HOOK_KEYS = {"id", "name", "entry", "language", "alias", "files", "exclude", "types", "types_or",
             "exclude_types", "additional_dependencies", "args", "always_run", "fail_fast",
             "pass_filenames", "description", "language_version", "log_file", "require_serial",
             "stages", "verbose", "minimum_pre_commit_version"}


def _hook():
    hooks = mini_yaml.load(_read(".pre-commit-hooks.yaml"))
    assert isinstance(hooks, list) and len(hooks) == 1
    return hooks[0]


def test_pre_commit_hook_metadata():
    hook = _hook()
    assert set(hook) <= HOOK_KEYS, set(hook) - HOOK_KEYS
    assert hook["id"] == hook["name"] == "flake8-tilelang"
    # language: python -> pre-commit runs `pip install .` of the repository at `rev`
    assert hook["language"] == "python"
    entry = shlex.split(hook["entry"])
    assert entry[0] in _toml("pyproject.toml")["project"]["scripts"], "the entry is our console script"
    assert entry[1:] == ["check", "--force-exclude"], "--force-exclude in entry survives a user's args:"
    assert hook["args"] == []
    assert hook["types_or"] == ["python", "jupyter"] and "types" not in hook
    assert hook.get("pass_filenames", True) is True
    assert hook["require_serial"] is True  # one process: the command line has its own pool
    # types_or needs pre-commit 2.9.0
    assert tuple(int(p) for p in hook["minimum_pre_commit_version"].split(".")) >= (2, 9, 0)


def test_pre_commit_hooks_file_reads_the_same_with_pyyaml():
    yaml = pytest.importorskip("yaml")
    assert mini_yaml.load(_read(".pre-commit-hooks.yaml")) == yaml.safe_load(_read(".pre-commit-hooks.yaml"))


def _identify(path):
    """pre-commit's file types (the `identify` library) for the names we use."""
    ext = os.path.splitext(path)[1]
    return {".py": {"python", "file", "text"}, ".pyi": {"python", "pyi", "file", "text"},
            ".ipynb": {"jupyter", "json", "file", "text"}}.get(ext, {"file", "text"})


def _run_hook(repo, staged):
    """What pre-commit does with the hook: the staged files filtered by
    `types_or`, one call (require_serial) of entry + args + files; no call
    at all when no file is left ("(no files to check)Skipped")."""
    hook = _hook()
    files = [f for f in staged if _identify(f) & set(hook["types_or"])]
    if not files and not hook.get("always_run", False):
        return files, None
    cmd = shlex.split(hook["entry"]) + hook["args"] + files
    env = dict(os.environ, PATH=os.path.dirname(SCRIPT) + os.pathsep + os.environ.get("PATH", ""),
               PYTHONPATH=ROOT)
    return files, subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.skipif(SCRIPT is None, reason="no flake8-tilelang console script next to this Python")
def test_pre_commit_hook_entry_runs_on_staged_files(tmp_path):
    repo = tmp_path / "user"
    (repo / "kernels").mkdir(parents=True)
    (repo / "vendored").mkdir()
    (repo / ".git").mkdir()
    shutil.copy(EXAMPLE, repo / "kernels" / "gemm.py")
    shutil.copy(EXAMPLE, repo / "vendored" / "gemm_copy.py")
    (repo / "README.md").write_text("# kernels\n", encoding="utf-8")
    (repo / "pyproject.toml").write_text('[tool.flake8-tilelang]\nextend-exclude = ["vendored"]\n',
                                         encoding="utf-8")
    staged = ["README.md", "pyproject.toml", "kernels/gemm.py", "vendored/gemm_copy.py"]
    files, out = _run_hook(str(repo), staged)
    assert files == ["kernels/gemm.py", "vendored/gemm_copy.py"]
    assert out.returncode == 1, out.stderr
    reported = {line.split(":")[0] for line in out.stdout.splitlines() if re.match(r"\S+:\d+:\d+: TLA", line)}
    assert reported == {"kernels/gemm.py"}, "the excluded file pre-commit names is not checked"
    # a commit that touches no Python file: the hook is skipped, never run on `.`
    assert _run_hook(str(repo), ["README.md", "pyproject.toml"]) == ([], None)
    assert _hook().get("always_run", False) is False
    files, out = _run_hook(str(repo), ["vendored/gemm_copy.py"])
    assert out.returncode == 0 and out.stdout == "", out.stdout


# -- building and installing (slow) ---------------------------------------------------

def _python(venv):
    return os.path.join(venv, BIN, "python")


def _run(cmd, **kw):
    kw.setdefault("timeout", 900)
    out = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert out.returncode == 0, "%s\n%s\n%s" % (cmd, out.stdout[-3000:], out.stderr[-3000:])
    return out


def _clean_env():
    """No PYTHONPATH (the fresh venv must use its own installed copy)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.pop("FLAKE8_TILELANG_STRICT", None)
    return env


def _venv(path, *packages):
    _run([sys.executable, "-m", "venv", path])
    if packages:
        _run([_python(path), "-m", "pip", "install", "--quiet"] + list(packages), env=_clean_env())
    return path


def _source_copy(dest):
    """The tracked files (the sdist's source), else the folder minus build
    leftovers and caches."""
    try:  # what `git add -A` would commit
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             cwd=ROOT, capture_output=True, timeout=60)
    except OSError:
        out = None
    if out is not None and out.returncode == 0 and out.stdout:
        names = [n.decode("utf-8", "surrogateescape") for n in out.stdout.split(b"\0") if n]
        names = sorted({n for n in names if os.path.isfile(os.path.join(ROOT, n))})
        for name in names:
            os.makedirs(os.path.dirname(os.path.join(dest, name)), exist_ok=True)
            shutil.copy2(os.path.join(ROOT, name), os.path.join(dest, name))
        return names
    shutil.copytree(ROOT, dest, dirs_exist_ok=True, ignore=shutil.ignore_patterns(
        "__pycache__", "*.pyc", ".git", "build", "dist", "*.egg-info", ".pytest_cache", ".hypothesis",
        ".flake8_tilelang_cache", "PKG-INFO", "setup.cfg"))
    return None


# setuptools' PEP 517 hooks, called as a front end would (in the source
# folder); the names go to a file: the backend prints its log on stdout
BUILD = """
import json, os, sys
from setuptools import build_meta
src, out, result = sys.argv[1:4]
os.chdir(src)
names = [build_meta.build_sdist(out)] if sys.argv[4] == "both" else []
names.append(build_meta.build_wheel(out))
with open(result, "w") as f:
    json.dump(names, f)
"""


def _build(builder, src, out, what):
    os.makedirs(out)
    result = out + ".json"
    _run([_python(builder), "-c", BUILD, src, out, result, what], env=_clean_env())
    with open(result) as f:
        return [os.path.join(out, n) for n in json.load(f)]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(source folder, tracked names, sdist path, wheel path, wheel built from the sdist)."""
    base = tmp_path_factory.mktemp("release")
    src = str(base / "src")
    os.makedirs(src)
    tracked = _source_copy(src)
    builder = _venv(str(base / "build-venv"), "setuptools>=77", "wheel")
    sdist, wheel = _build(builder, src, str(base / "dist"), "both")
    # what pip does with the sdist: unpack it and build the wheel from that
    unpacked = str(base / "unpacked")
    with tarfile.open(sdist) as tar:
        tar.extractall(unpacked)  # noqa: S202 - our own archive
    (top,) = os.listdir(unpacked)
    (wheel2,) = _build(builder, os.path.join(unpacked, top), str(base / "dist-from-sdist"), "wheel")
    return src, tracked, sdist, wheel, wheel2, str(base), builder


@pytest.mark.slow
def test_sdist_holds_what_a_user_expects(built):
    src, tracked, sdist, _, _, _, _ = built
    assert os.path.basename(sdist) == "flake8_tilelang-%s.tar.gz" % __version__
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    for must in ("README.md", "LICENSE", "CHANGELOG.md", "SECURITY.md", "pyproject.toml", "MANIFEST.in",
                 ".pre-commit-hooks.yaml", "PKG-INFO", "docs/rules/README.md", "docs/rules/TLA001.md",
                 "fixtures/example/quickstart_gemm_exp.py", "tests/conftest.py", "tests/test_release.py",
                 "tests/mini_yaml.py", "flake8_tilelang/rules/examples/TLA001_example.py", ".ci/run"):
        assert must in names, must
    if tracked is not None:
        missing = [n for n in tracked if n not in names and n != ".gitignore"]
        assert not missing, "tracked files not in the sdist: %s" % missing[:20]
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]


@pytest.mark.slow
def test_wheel_holds_the_package_and_its_data(built):
    src, _, _, wheel, wheel2, _, _ = built
    assert os.path.basename(wheel) == "flake8_tilelang-%s-py3-none-any.whl" % __version__
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        info = "flake8_tilelang-%s.dist-info/" % __version__
        meta = z.read(info + "METADATA").decode("utf-8")
        entry_points = z.read(info + "entry_points.txt").decode("utf-8")
    assert {n.split("/")[0] for n in names} == {"flake8_tilelang", info.rstrip("/")}
    examples = sorted(os.listdir(os.path.join(src, "flake8_tilelang", "rules", "examples")))
    assert examples and all("flake8_tilelang/rules/examples/" + e in names for e in examples)
    package = {os.path.relpath(os.path.join(d, f), src).replace(os.sep, "/")
               for d, _, fs in os.walk(os.path.join(src, "flake8_tilelang")) for f in fs if f.endswith(".py")}
    assert package <= names
    assert "Version: %s\n" % __version__ in meta and "License-Expression: MIT\n" in meta
    assert "Requires-Dist: flake8<8,>=7" in meta and 'Provides-Extra: server' in meta
    assert "flake8-tilelang = flake8_tilelang.cli:main" in entry_points
    assert "TLA = flake8_tilelang.plugin:Plugin" in entry_points
    assert "tla-sarif = flake8_tilelang.output.flake8_report:SarifFormatter" in entry_points
    with zipfile.ZipFile(wheel2) as z:  # the sdist is complete: it builds the same wheel
        assert set(z.namelist()) == names


@pytest.mark.slow
def test_wheel_installs_cleanly_in_a_fresh_venv(built, tmp_path):
    _, _, _, wheel, _, base, _ = built
    venv = _venv(os.path.join(base, "user-venv"))
    env = _clean_env()
    _run([_python(venv), "-m", "pip", "install", "--quiet", wheel], env=env)
    _run([_python(venv), "-m", "pip", "check"], env=env)
    work = tmp_path / "kernels"
    work.mkdir()
    shutil.copy(EXAMPLE, work / "gemm.py")
    script = os.path.join(venv, BIN, "flake8-tilelang")
    where = _run([_python(venv), "-c", "import flake8_tilelang; print(flake8_tilelang.__file__)"],
                 cwd=str(tmp_path), env=env).stdout.strip()
    assert where.startswith(os.path.realpath(venv)) or where.startswith(venv), where
    assert _run([script, "version"], cwd=str(tmp_path), env=env).stdout.startswith(
        "flake8-tilelang %s\n" % __version__)
    out = subprocess.run([script, "check", "--no-cache", "--output-format", "json", "kernels"],
                         cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 1, out.stderr
    codes = sorted(f["code"] for f in json.loads(out.stdout))
    assert codes == ["TLA001", "TLA002", "TLA003", "TLA003", "TLA050"]
    page = _run([script, "rule", "TLA001"], cwd=str(tmp_path), env=env).stdout
    assert page.startswith("# TLA001 scope-under-auto-cv-combine")
    assert "## Example" in page and "T.Scope" in page  # the example is package data
    flake8 = subprocess.run([os.path.join(venv, BIN, "flake8"), "--select=TLA", "kernels"],
                            cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=300)
    assert flake8.returncode == 1 and flake8.stdout.count(" TLA00") == 4, flake8.stdout + flake8.stderr


@pytest.mark.slow
def test_pre_commit_installs_the_hook_from_a_git_url_at_a_commit(built, tmp_path):
    """Real pre-commit: `try-repo` clones our repository at a commit SHA (a
    file:// git URL, no network), installs it with `language: python`, and
    runs the hook on a user's repository."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    src, _, _, _, _, base, builder = built
    pc = subprocess.run([_python(builder), "-m", "pip", "install", "--quiet", "pre-commit"],
                        capture_output=True, text=True, env=_clean_env(), timeout=900)
    if pc.returncode != 0:
        pytest.skip("pre-commit cannot be installed here: %s" % pc.stderr[-300:])
    git = ["git", "-c", "user.email=t@example.org", "-c", "user.name=t", "-c", "commit.gpgsign=false"]
    repo = os.path.join(base, "hook-repo")
    shutil.copytree(src, repo)
    _run(git + ["init", "-q"], cwd=repo)
    _run(git + ["add", "-A"], cwd=repo)
    _run(git + ["commit", "-q", "-m", "release"], cwd=repo)
    sha = _run(["git", "rev-parse", "HEAD"], cwd=repo).stdout.strip()
    user = tmp_path / "user"
    (user / "kernels").mkdir(parents=True)
    shutil.copy(EXAMPLE, user / "kernels" / "gemm.py")
    (user / "notes.md").write_text("not python\n", encoding="utf-8")
    _run(git + ["init", "-q"], cwd=str(user))
    _run(git + ["add", "-A"], cwd=str(user))
    env = dict(_clean_env(), PRE_COMMIT_HOME=os.path.join(base, "pre-commit-home"))
    cmd = [os.path.join(builder, BIN, "pre-commit"), "try-repo", "file://" + repo, "flake8-tilelang",
           "--ref", sha, "--all-files", "--color", "never"]
    out = subprocess.run(cmd, cwd=str(user), env=env, capture_output=True, text=True, timeout=900)
    assert out.returncode == 1, out.stdout[-3000:] + out.stderr[-3000:]
    assert "flake8-tilelang" in out.stdout and "Failed" in out.stdout
    assert "kernels/gemm.py:32:18: TLA001" in out.stdout
    assert "notes.md" not in out.stdout
