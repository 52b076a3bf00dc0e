"""Integration through real flake8: registration, selection, noqa, --jobs, stdin, bad input."""
import ast
import os
import subprocess
import sys
import textwrap

import pytest

from flake8_tilelang import engine

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
from flake8_tilelang.registry import REGISTRY, Diagnostic, all_rules

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
                with T.Scope("V"):{scope_noqa}
                    T.copy(A[cid * block_M + vid * block_M // 2, 0], a_ub)
                    T.barrier_all(){sync_noqa}
                    T.tile.exp(a_ub, a_ub)
                    T.copy(a_ub, B[cid * block_M + vid * block_M // 2, 0])

        return main
    ''')


def _flake8_crashes_on_nul():
    """flake8 itself dies on a NUL byte where ast.parse raises ValueError
    (Python < 3.11.4ish): not something a plugin can prevent."""
    try:
        ast.parse("x = 1\x00\n")
    except ValueError:
        return True
    except SyntaxError:
        return False
    return False


FLAKE8_CRASHES_ON_NUL = _flake8_crashes_on_nul()


def kernel(scope_noqa="", sync_noqa=""):
    return KERNEL.replace("{scope_noqa}", scope_noqa).replace("{sync_noqa}", sync_noqa)


def flake8(args, cwd, stdin=None):
    env = dict(os.environ)
    env.pop("FLAKE8_TILELANG_STRICT", None)  # the plugin as users run it
    proc = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated"] + args, cwd=str(cwd), input=stdin,
        capture_output=True, text=True, env=env, timeout=120,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def codes_of(output):
    out = []
    for line in output.splitlines():
        parts = line.split(":", 3)
        if len(parts) == 4:
            out.append((int(parts[1]), parts[3].split()[0]))
    return out


@pytest.fixture
def project(tmp_path):
    (tmp_path / "k.py").write_text(kernel())
    return tmp_path


def test_plugin_is_registered():
    proc = subprocess.run([sys.executable, "-m", "flake8", "--version"], capture_output=True, text=True)
    assert "flake8-tilelang" in proc.stdout


def test_default_selection_reports_tla_with_other_codes(project):
    proc = flake8(["k.py"], project)
    assert (16, "TLA001") in codes_of(proc.stdout)
    assert (18, "TLA002") in codes_of(proc.stdout)
    assert proc.returncode == 1


def test_select_tla_only(project):
    proc = flake8(["--select=TLA", "k.py"], project)
    assert codes_of(proc.stdout) == [(16, "TLA001"), (18, "TLA002")]


def test_select_other_codes_hides_tla_and_extend_select_brings_it_back(project):
    assert codes_of(flake8(["--select=F", "k.py"], project).stdout) == []
    proc = flake8(["--select=F", "--extend-select=TLA002", "k.py"], project)
    assert codes_of(proc.stdout) == [(18, "TLA002")]


def test_ignore_one_code(project):
    proc = flake8(["--select=TLA", "--extend-ignore=TLA001", "k.py"], project)
    assert codes_of(proc.stdout) == [(18, "TLA002")]


@pytest.mark.parametrize("scope_noqa, sync_noqa, expected", [
    ("  # noqa: TLA001", "", [(18, "TLA002")]),
    ("", "  # noqa: TLA002", [(16, "TLA001")]),
    ("", "  # noqa: TLA001", [(16, "TLA001"), (18, "TLA002")]),  # wrong code: still reported
    ("  # noqa", "  # noqa:TLA00", []),  # blanket and prefix
    ("  # NOQA: TLA001,TLA002", "  # noqa: E501, TLA002", []),
])
def test_noqa(tmp_path, scope_noqa, sync_noqa, expected):
    (tmp_path / "k.py").write_text(kernel(scope_noqa, sync_noqa))
    assert codes_of(flake8(["--select=TLA", "k.py"], tmp_path).stdout) == expected


def test_jobs_two_matches_serial(tmp_path):
    for i in range(6):
        (tmp_path / ("k%d.py" % i)).write_text(kernel())
    (tmp_path / "plain.py").write_text("import os\nprint(os.sep)\n")
    serial = flake8(["--select=TLA", "--jobs=1", "."], tmp_path).stdout
    parallel = flake8(["--select=TLA", "--jobs=2", "."], tmp_path).stdout
    assert sorted(serial.splitlines()) == sorted(parallel.splitlines())
    assert len(serial.splitlines()) == 12


def test_stdin_uses_display_name(tmp_path):
    proc = flake8(["--select=TLA", "--stdin-display-name=kernels/exp.py", "-"], tmp_path, stdin=kernel())
    lines = proc.stdout.splitlines()
    assert len(lines) == 2 and all(l.startswith("kernels/exp.py:") for l in lines)
    assert "set at line 5" in lines[1]  # the config is in the linted file


def test_syntax_error_is_flake8s_e999_only(tmp_path):
    (tmp_path / "bad.py").write_text("import tilelang\ndef broken(:\n")
    proc = flake8(["bad.py"], tmp_path)
    assert [c for _, c in codes_of(proc.stdout)] == ["E999"]


def test_odd_inputs_do_not_crash(tmp_path):
    (tmp_path / "empty.py").write_text("")
    (tmp_path / "only_import.py").write_text("import tilelang\n")
    (tmp_path / "crlf.py").write_bytes(kernel().replace("\n", "\r\n").encode())
    (tmp_path / "latin.py").write_bytes(
        b"# -*- coding: latin-1 -*-\nimport tilelang\nname = '\xe9'\n")
    if not FLAKE8_CRASHES_ON_NUL:
        (tmp_path / "nul.py").write_bytes(b"import tilelang\x00\n")
    proc = flake8(["--select=TLA,E9", "."], tmp_path)
    got = codes_of(proc.stdout)
    assert (16, "TLA001") in got and (18, "TLA002") in got
    assert not [c for _, c in got if c == "TLA000"]


def test_internal_error_becomes_tla000_and_other_rules_still_run(monkeypatch):
    monkeypatch.delenv(engine.STRICT_ENV, raising=False)
    rule = all_rules().get("TLA001")

    def boom(model):
        raise RuntimeError("synthetic failure")
        yield  # pragma: no cover

    monkeypatch.setattr(REGISTRY, "_rules", dict(REGISTRY._rules))
    REGISTRY._rules["TLA001"] = rule.__class__(**{**rule.__dict__, "check": boom})
    src = kernel()
    found = engine.check_tree(ast.parse(src), src.splitlines(True), "k.py")
    assert [(d.code, d.line) for d in found] == [("TLA000", 1), ("TLA002", 18)]
    assert "rule TLA001" in found[0].message and "RuntimeError: synthetic failure" in found[0].message


def test_model_failure_becomes_tla000(monkeypatch):
    monkeypatch.delenv(engine.STRICT_ENV, raising=False)
    import flake8_tilelang.model as model_pkg

    def boom(tree, filename):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(model_pkg, "build_model", boom)
    src = kernel()
    found = engine.check_tree(ast.parse(src), src.splitlines(True), "k.py")
    assert [d.code for d in found] == ["TLA000"]
    assert isinstance(found[0], Diagnostic) and "RecursionError" in found[0].message


@pytest.fixture
def opt_in_project(tmp_path):
    from flake8_tilelang.registry import REGISTRY

    with open(REGISTRY.get("TLA053").example_path, encoding="utf-8") as f:
        (tmp_path / "aot.py").write_text(f.read())
    return tmp_path


@pytest.mark.parametrize("args, reported", [
    ([], False),
    (["--select=TLA"], False),
    (["--ignore=E501"], False),  # ignore= drops flake8's default-ignore list: the guard still holds
    (["--select=E,F,W,TLA"], False),
    (["--extend-select=TLA05"], True),
    (["--select=TLA053"], True),
    (["--select=TLA0", "--ignore=E501"], True),
])
def test_opt_in_codes_need_explicit_selection(opt_in_project, args, reported):
    proc = flake8(args + ["aot.py"], opt_in_project)
    assert ("TLA053" in proc.stdout) is reported, proc.stdout


def test_file_directive_through_flake8_and_disable_noqa(tmp_path):
    (tmp_path / "k.py").write_text("# flake8-tilelang: noqa: TLA001\n" + kernel())
    assert codes_of(flake8(["--select=TLA", "k.py"], tmp_path).stdout) == [(19, "TLA002")]
    got = codes_of(flake8(["--select=TLA", "--disable-noqa", "k.py"], tmp_path).stdout)
    assert got == [(17, "TLA001"), (19, "TLA002")]
    (tmp_path / "k.py").write_text("# flake8-tilelang: noqa\n" + kernel())
    assert codes_of(flake8(["--select=TLA", "k.py"], tmp_path).stdout) == []


def test_plugin_gate_imports_no_model_rules_or_evaluator_until_a_file_imports_tilelang(tmp_path):
    """Lint-on-save cost: flake8 imports only the small gate; a file that
    mentions tilelang without importing it loads nothing more; a kernel file
    loads the engine. (Timing is the benchmark's job, not a test's.)"""
    plain = tmp_path / "plain.py"
    plain.write_text("# see tilelang docs\nx = 'tilelang'\n")
    kernel = tmp_path / "k.py"
    kernel.write_text("import tilelang\nimport tilelang.language as T\n")
    code = textwrap.dedent("""
        import sys
        from flake8.main.application import Application
        heavy = ("flake8_tilelang.engine", "flake8_tilelang.registry", "flake8_tilelang.model",
                 "flake8_tilelang.rules", "flake8_tilelang.model.evaluate")
        def loaded():
            return sorted(m for m in heavy if m in sys.modules)
        import flake8_tilelang.plugin
        print("LOADED", loaded())
        Application().run(["--jobs=1", %r])
        print("LOADED", loaded())
        Application().run(["--jobs=1", %r])
        print("LOADED", loaded())
    """ % (str(plain), str(kernel)))
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop("FLAKE8_TILELANG_STRICT", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=120, check=True)
    lines = [line[len("LOADED "):] for line in out.stdout.splitlines() if line.startswith("LOADED ")]
    assert lines[0] == "[]", out.stdout
    assert lines[1] == "[]", out.stdout
    assert "flake8_tilelang.rules" in lines[2] and "flake8_tilelang.model" in lines[2]


def test_plugin_restores_the_garbage_collector():
    import gc

    from flake8_tilelang.plugin import Plugin

    source = "import tilelang\nimport tilelang.language as T\n"
    lines = source.splitlines(True)
    assert gc.isenabled()
    list(Plugin(ast.parse(source), lines, "k.py").run())
    assert gc.isenabled()
    gc.disable()
    try:
        list(Plugin(ast.parse(source), lines, "k.py").run())
        assert not gc.isenabled()  # a host that had it off keeps it off
    finally:
        gc.enable()


def test_a_lint_with_default_settings_imports_nothing_beyond_the_package(tmp_path):
    """Every module a flake8 process imports for us costs every save: a kernel
    file linted with default settings imports no standard-library module
    flake8 did not already import (``contextvars`` only once a setting is set)."""
    plain = tmp_path / "plain.py"
    plain.write_text("import os\n\nprint(os.sep)\n")
    kernel = tmp_path / "k.py"
    with open(os.path.join(ROOT, "fixtures", "example", "quickstart_gemm_exp.py")) as f:
        kernel.write_text(f.read())
    code = textwrap.dedent("""
        import sys
        from flake8.main.application import Application
        Application().run(["--jobs=1", %r])  # flake8 itself, warmed up on a file our gate skips
        before = set(sys.modules)
        Application().run(["--jobs=1", %r])
        assert "flake8_tilelang.model" in sys.modules
        print("NEW", sorted(m for m in set(sys.modules) - before if not m.startswith("flake8_tilelang")))
    """ % (str(plain), str(kernel)))
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop("FLAKE8_TILELANG_STRICT", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=120, check=True)
    (line,) = [x for x in out.stdout.splitlines() if x.startswith("NEW ")]
    assert line == "NEW []", out.stdout


def test_the_first_kernel_file_freezes_what_is_alive_once(tmp_path):
    """After loading the model and the rules, the plugin collects the young
    garbage and freezes what is alive (gc.freeze), once per process: later
    collections, and the process's exit, skip those objects. A file that
    never imports tilelang, and a run that selects no TLA code, load and
    freeze nothing."""
    plain = tmp_path / "plain.py"
    plain.write_text("import os\n\nprint(os.sep)\n")
    kernel = tmp_path / "k.py"
    with open(os.path.join(ROOT, "fixtures", "example", "quickstart_gemm_exp.py")) as f:
        kernel.write_text(f.read())
    code = textwrap.dedent("""
        import gc, sys
        from flake8.main.application import Application
        def run(*argv):
            Application().run(["--jobs=1"] + list(argv))
            return gc.get_freeze_count()
        print("FROZEN", run(%r), run("--select=E,F", %r), run(%r) > 0)
        first = gc.get_freeze_count()
        run(%r)
        print("AGAIN", gc.get_freeze_count() <= first, gc.isenabled())  # frozen objects freed by refcount leave it
    """ % (str(plain), str(kernel), str(kernel), str(kernel)))
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop("FLAKE8_TILELANG_STRICT", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=120, check=True)
    lines = {line.split()[0]: line.split()[1:] for line in out.stdout.splitlines() if line[:1] in "FA"}
    assert lines["FROZEN"] == ["0", "0", "True"], out.stdout
    assert lines["AGAIN"] == ["True", "True"], out.stdout  # not again: the second file froze nothing new
