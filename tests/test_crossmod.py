"""Following configs and macros into other modules: safe, bounded, lazy."""
import ast
import os
import subprocess
import sys
import textwrap

from flake8_tilelang.engine import check_tree
from flake8_tilelang.model import crossmod

HERE = os.path.dirname(os.path.abspath(__file__))
PROJ = os.path.join(os.path.dirname(HERE), "fixtures", "crossmod", "proj")
PKG = os.path.join(PROJ, "kernels_pkg")


def lint_path(path, filename=None):
    with open(path, encoding="utf-8") as f:
        src = f.read()
    return check_tree(ast.parse(src), src.splitlines(True), filename or path)


def test_checked_modules_are_never_executed():
    marker = os.path.join(PKG, "EXECUTED_BY_CHECKER")
    found = lint_path(os.path.join(PKG, "rmsnorm.py"))
    assert any("set at side_effect_configs.py:6" in d.message for d in found)
    assert not os.path.exists(marker)


def _astroid_loaded_after_linting(path):
    code = textwrap.dedent("""
        import ast, sys
        from flake8_tilelang.engine import check_tree
        src = open(%r, encoding="utf-8").read()
        check_tree(ast.parse(src), src.splitlines(True), %r)
        print("astroid" in sys.modules)
    """ % (path, path))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.strip() == "True"


def test_astroid_is_imported_only_for_cross_module_names():
    single = os.path.join(os.path.dirname(HERE), "fixtures", "kernels", "dict_merge_override.py")
    assert not _astroid_loaded_after_linting(single)
    assert _astroid_loaded_after_linting(os.path.join(PKG, "rmsnorm.py"))


def test_relative_names_follow_the_stdin_display_name():
    env = dict(os.environ)
    env.pop("FLAKE8_TILELANG_STRICT", None)
    with open(os.path.join(PKG, "rmsnorm.py"), encoding="utf-8") as f:
        src = f.read()
    proc = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select=TLA",
         "--stdin-display-name=kernels_pkg/rmsnorm.py", "-"],
        cwd=PROJ, input=src, capture_output=True, text=True, env=env, timeout=120)
    lines = proc.stdout.splitlines()
    assert [l.split(":")[1] for l in lines] == ["20", "22", "23", "25", "44", "90"]
    assert "utils" not in proc.stdout and "sync_macros.py:" in proc.stdout


def test_jobs_two_agrees_with_serial():
    env = dict(os.environ)
    env.pop("FLAKE8_TILELANG_STRICT", None)
    base = [sys.executable, "-m", "flake8", "--isolated", "--select=TLA", "."]
    serial = subprocess.run(base + ["--jobs=1"], cwd=PROJ, capture_output=True, text=True, env=env)
    parallel = subprocess.run(base + ["--jobs=2"], cwd=PROJ, capture_output=True, text=True, env=env)
    assert serial.stdout and sorted(serial.stdout.splitlines()) == sorted(parallel.stdout.splitlines())


def _mini_project(tmp_path, value):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'mini'\n")
    (tmp_path / "cfg.py").write_text("CFG = {'tl.ascend_auto_sync': %s}\n" % value)
    kernel = tmp_path / "kern.py"
    kernel.write_text(textwrap.dedent("""\
        import tilelang
        import tilelang.language as T
        from cfg import CFG


        @tilelang.jit(pass_configs=CFG)
        def f(M):
            @T.prim_func
            def main(A: T.Tensor((M,), "float16")):
                with T.Kernel(4, is_npu=True) as (cid, vid):
                    T.barrier_all()
            return main
        """))
    return kernel


def test_changed_module_is_read_again(tmp_path):
    kernel = _mini_project(tmp_path, "True")
    assert [d.code for d in lint_path(str(kernel))] == ["TLA002"]
    cfg = tmp_path / "cfg.py"
    cfg.write_text("CFG = {'tl.ascend_auto_sync': False}  # now off\n")
    st = os.stat(cfg)
    os.utime(cfg, ns=(st.st_atime_ns, st.st_mtime_ns + 10_000_000))
    assert lint_path(str(kernel)) == []


def test_module_outside_the_project_is_not_read(tmp_path):
    # the configs module sits above the project root: never read
    outer = tmp_path
    proj = outer / "proj"
    proj.mkdir()
    kernel = _mini_project(proj, "True")
    os.replace(proj / "cfg.py", outer / "cfg.py")
    assert lint_path(str(kernel)) == []


def test_module_cap_bounds_the_work(tmp_path, monkeypatch):
    monkeypatch.setattr(crossmod, "MAX_MODULES", 0)
    kernel = _mini_project(tmp_path, "True")
    assert lint_path(str(kernel)) == []


def test_unparsable_or_missing_module_is_unknown(tmp_path):
    kernel = _mini_project(tmp_path, "True")
    (tmp_path / "cfg.py").write_text("CFG = {'tl.ascend_auto_sync': True\n")  # syntax error
    assert lint_path(str(kernel)) == []
    os.remove(tmp_path / "cfg.py")
    assert lint_path(str(kernel)) == []


def _reference_project(tmp_path, reference_body):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'refs'\n")
    (tmp_path / "golden.py").write_text("import torch\n\nTABLE = {'tl.ascend_auto_sync': False}\n\n" + reference_body)
    kernel = tmp_path / "kern.py"
    kernel.write_text(
        "import tilelang\nimport tilelang.language as T\nimport torch\n\nimport golden\n\n"
        "CFG = {'tl.ascend_auto_sync': True}\n\n\n"
        "def build(M):\n    @T.prim_func\n    def main(A: T.Tensor((M,), 'float16')):\n"
        "        with T.Kernel(M // 64, is_npu=True) as (cid, vid):\n            T.barrier_all()\n\n"
        "    return main\n\n\n"
        "x = torch.randn(64)\nexpected = golden.reference(x, 2, scale=0.5)\n"
        "kernel = tilelang.compile(build(64), pass_configs=golden.TABLE if False else CFG)\n")
    return str(kernel)


def test_a_call_of_another_modules_function_runs_unless_harmless(tmp_path):
    """A reference implementation given tensors and numbers cannot change
    anything here: its module is not even evaluated until a value of it is
    needed. A helper that writes its module's dict runs at the call."""
    from flake8_tilelang.model import build_model

    def golden_ran(reference_body):
        kernel = _reference_project(tmp_path, reference_body)
        with open(kernel, encoding="utf-8") as f:
            model = build_model(ast.parse(f.read()), kernel)
        resolvers = model.resolver.loader.resolvers
        golden = [r for p, r in resolvers.items() if p.endswith("golden.py")]
        return bool(golden) and golden[0].module_evaluator is not None

    pure = ("def softmax(v):\n    return torch.exp(v) / torch.exp(v).sum()\n\n\n"
            "def reference(x, k, scale=1.0):\n    return softmax(x * scale) * k\n")
    writes = ("def reference(x, k, scale=1.0):\n    TABLE['tl.ascend_auto_sync'] = True\n    return x\n")
    assert not golden_ran(pure)
    assert golden_ran(writes)


def _import_project(tmp_path, side_module):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'imports'\n")
    (tmp_path / "keys.py").write_text("import tilelang\n\nSYNC = tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC\n"
                                      "SHARED = {SYNC: True}\n")
    (tmp_path / "side.py").write_text(side_module)
    kernel = tmp_path / "kern.py"
    kernel.write_text(textwrap.dedent("""\
        import tilelang
        import tilelang.language as T
        import keys
        import side  # noqa: F401
        from keys import SYNC

        LOCAL = {tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True}
        LOCAL[keys.SYNC] = False


        def build(M):
            @T.prim_func
            def main(A: T.Tensor((M,), "float16")):
                with T.Kernel(M // 64, is_npu=True) as (cid, vid):
                    T.barrier_all()
            return main


        local = tilelang.compile(build(64), pass_configs=LOCAL)
        shared = tilelang.compile(build(64), pass_configs=keys.SHARED)
        literal = tilelang.compile(build(64), pass_configs={SYNC: True})
        """))
    return str(kernel)


def test_import_time_effects_and_keys_from_another_module(tmp_path):
    """`LOCAL[keys.SYNC] = False` stores under the key's value (it was stored
    under the unread import: the kernel kept AUTO_SYNC on). A module whose top
    level changes another one runs at its import; one that only defines
    names is not evaluated until a name of it is used."""
    from flake8_tilelang.model import build_model

    def switches(side_module):
        kernel = _import_project(tmp_path, side_module)
        with open(kernel, encoding="utf-8") as f:
            model = build_model(ast.parse(f.read()), kernel)
        (k,) = model.kernels
        side = [r for p, r in model.resolver.loader.resolvers.items() if p.endswith("side.py")]
        ran = bool(side) and side[0].module_evaluator is not None
        return [c.state("tl.ascend_auto_sync") for c in k.configs], ran

    states, ran = switches("import keys\n\nkeys.SHARED[keys.SYNC] = False\n")
    assert states == [False, False, True] and ran
    states, ran = switches("import keys\n\n\ndef helper():\n    return keys.SYNC\n")
    assert states == [False, True, True] and not ran


def test_a_dict_of_another_module_handed_to_a_call_that_may_change_it(tmp_path):
    """`operator.setitem(keys.SHARED, ...)`, `prepare(keys.SHARED)`: the dict
    is named through a module not read yet; the call may change it."""
    from flake8_tilelang.model import build_model

    _import_project(tmp_path, "X = 1\n")
    for call in ("operator.setitem(keys.SHARED, keys.SYNC, False)", "runner.prepare(keys.SHARED)"):
        kernel = tmp_path / "kern5.py"
        kernel.write_text(textwrap.dedent("""\
            import operator

            import runner
            import tilelang
            import tilelang.language as T
            import keys

            %s


            def build(M):
                @T.prim_func
                def main(A: T.Tensor((M,), "float16")):
                    with T.Kernel(M // 64, is_npu=True) as (cid, vid):
                        T.barrier_all()
                return main


            shared = tilelang.compile(build(64), pass_configs=keys.SHARED)
            """ % call))
        model = build_model(ast.parse(kernel.read_text()), str(kernel))
        (k,) = model.kernels
        assert [c.state("tl.ascend_auto_sync") for c in k.configs] == [None], call


def test_a_module_that_changes_this_one_through_an_import_cycle_makes_it_unknown(tmp_path):
    """`from . import b` where b's top level imports this module back and
    writes into it: what b changes here is not known, so nothing is judged
    with the values from before the import."""
    from flake8_tilelang.model import build_model

    pkg = tmp_path / "p"
    pkg.mkdir()
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'cycle'\n")
    (pkg / "__init__.py").write_text("")
    (pkg / "b.py").write_text("import tilelang\nfrom . import a\n\n"
                              "a.CFG[tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC] = False\n")
    kernel = pkg / "a.py"
    kernel.write_text(textwrap.dedent("""\
        import tilelang
        import tilelang.language as T

        CFG = {tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True}
        from . import b  # noqa: E402,F401


        def build(M):
            @T.prim_func
            def main(A: T.Tensor((M,), "float16")):
                with T.Kernel(M // 64, is_npu=True) as (cid, vid):
                    T.barrier_all()
            return main


        k = tilelang.compile(build(64), pass_configs=CFG)
        """))
    model = build_model(ast.parse(kernel.read_text()), str(kernel))
    assert not [d for d in lint_path(str(kernel)) if d.code == "TLA002"]
    assert all(c.state("tl.ascend_auto_sync") is not True for k in model.kernels for c in k.configs)


def test_an_unused_local_import_without_import_time_effects_does_not_wake_astroid(tmp_path):
    """Deciding whether an import runs code that changes another module reads
    only the file at that path: astroid (~50 ms) stays asleep until a name of
    another module is needed."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'quiet'\n")
    (tmp_path / "helpers.py").write_text("SCALE = 2\n")
    kernel = tmp_path / "kern.py"
    kernel.write_text(textwrap.dedent("""\
        import tilelang
        import tilelang.language as T
        import helpers  # noqa: F401


        @tilelang.jit(pass_configs={"tl.ascend_auto_sync": True})
        def f(M):
            @T.prim_func
            def main(A: T.Tensor((M,), "float16")):
                with T.Kernel(4, is_npu=True) as (cid, vid):
                    T.barrier_all()
            return main
        """))
    assert not _astroid_loaded_after_linting(str(kernel))


def _factory_project(tmp_path, kernel_line="T.barrier_all()", launch_noqa=""):
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'ops'\n")
    pkg = tmp_path / "ops"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "rows.py").write_text(
        "import tilelang.language as T\n\n\n"
        "def exp_rows(M, N, block_M, dtype='float16'):\n"
        "    @T.prim_func\n"
        "    def main(X: T.Tensor((M, N), dtype)):\n"
        "        with T.Kernel(M // block_M, is_npu=True) as (cid, vid):\n"
        "            x = T.alloc_ub((block_M // 2, N), dtype)\n"
        "            T.copy(X[cid * block_M + vid * block_M // 2, 0], x)\n"
        "            %s\n"
        "            T.tile.exp(x, x)\n"
        "    return main\n" % kernel_line)
    (pkg / "launch.py").write_text(
        "import tilelang\n\nfrom .rows import exp_rows\n\n"
        "AUTO = {'tl.ascend_auto_sync': True}\n"
        "k = tilelang.compile(exp_rows(4096, 256, 64), pass_configs=AUTO)%s\n"
        "h = tilelang.compile(exp_rows(4096, 256, 64), pass_configs={'tl.ascend_auto_sync': False})\n"
        % launch_noqa)
    return str(pkg / "launch.py"), str(pkg / "rows.py")


def _cli(*args):
    import subprocess
    import sys
    return subprocess.run([sys.executable, "-m", "flake8_tilelang", "check", "--no-cache",
                           "--output-format", "concise", *args], capture_output=True, text=True)


def _on_by_default(path):
    from flake8_tilelang.constants import OPT_IN_CODES

    with open(path, encoding="utf-8") as f:
        src = f.read()
    return check_tree(ast.parse(src), src.splitlines(True), path, wanted=lambda c: c not in OPT_IN_CODES)


def test_a_factory_another_module_defines_is_judged_at_the_compile_call(tmp_path):
    launch, rows = _factory_project(tmp_path)
    found = _on_by_default(launch)
    assert [(d.line, d.code) for d in found] == [(6, "TLA002")]  # the AUTO_SYNC call, not the one with it off
    assert "`exp_rows.main` (rows.py:10)" in found[0].message and "set at line 5" in found[0].message
    assert found[0].fix is None  # the edit would be in the other file
    assert _on_by_default(rows) == []  # its own file does not know how it is compiled


def test_noqa_at_the_call_or_on_the_kernels_line_silences_it(tmp_path):
    launch, _ = _factory_project(tmp_path / "a")
    assert "TLA002" in _cli(launch).stdout
    launch, _ = _factory_project(tmp_path, launch_noqa="  # noqa: TLA002")
    quiet = _cli(launch)
    assert "TLA002" not in quiet.stdout and "All checks passed" in quiet.stderr and quiet.returncode == 0
    launch, _ = _factory_project(tmp_path / "b", kernel_line="T.barrier_all()  # noqa: TLA002")
    assert _on_by_default(launch) == []
    launch, _ = _factory_project(tmp_path / "c", kernel_line="T.barrier_all()  # noqa: TLA001")
    assert [d.code for d in _on_by_default(launch)] == ["TLA002"]
    # as flake8 reads it: a backslash continuation shares the noqa of its last line; inside brackets
    # each line has its own
    launch, _ = _factory_project(tmp_path / "d", kernel_line="T.barrier_all(); n = \\\n                1  # noqa: TLA002")
    assert _on_by_default(launch) == []
    launch, _ = _factory_project(tmp_path / "e", kernel_line="T.barrier_all(\n            )  # noqa: TLA002")
    assert [d.code for d in _on_by_default(launch)] == ["TLA002"]


def test_the_kernels_own_module_compiling_it_otherwise_does_not_decide_here(tmp_path):
    # rows.py's self-test launches with threads=2 (each vector core holds half the UB tiles);
    # launch.py launches without threads: 3 x 128 KiB do not fit there, and halved they would
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'ops'\n")
    pkg = tmp_path / "ops"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "rows.py").write_text(
        "import tilelang\nimport tilelang.language as T\n\n\n"
        "def add(M, N, block_M, threads=None, dtype='float32'):\n"
        "    launch = {'is_npu': True} if threads is None else {'is_npu': True, 'threads': threads}\n\n"
        "    @T.prim_func\n"
        "    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):\n"
        "        with T.Kernel(M // block_M, **launch) as cid:\n"
        "            a = T.alloc_ub((block_M, N), dtype)\n"
        "            b = T.alloc_ub((block_M, N), dtype)\n"
        "            c = T.alloc_ub((block_M, N), dtype)\n"
        "            T.copy(A[cid * block_M, 0], a)\n"
        "            T.tile.add(c, a, b)\n"
        "            T.copy(c, B[cid * block_M, 0])\n"
        "    return main\n\n\n"
        "if __name__ == '__main__':\n"
        "    tilelang.compile(add(4096, 256, 128, threads=2), pass_configs={'tl.ascend_memory_planning': False})\n")
    (pkg / "launch.py").write_text(
        "import tilelang\n\nfrom .rows import add\n\n"
        "k = tilelang.compile(add(4096, 256, 128), pass_configs={'tl.ascend_memory_planning': False})\n"
        "h = tilelang.compile(add(4096, 256, 128, threads=2), pass_configs={'tl.ascend_memory_planning': False})\n")
    found = [(d.line, d.code) for d in _on_by_default(str(pkg / "launch.py"))]
    assert found == [(5, "TLA020"), (5, "TLA101")]  # `as cid` without threads, and the UB: that call only
    assert _on_by_default(str(pkg / "rows.py")) == []  # its own self-test fits


def test_kernels_lists_a_factory_of_another_module_at_its_compile_calls(tmp_path):
    import json
    import subprocess
    import sys

    launch, rows = _factory_project(tmp_path)
    out = subprocess.run([sys.executable, "-m", "flake8_tilelang", "kernels", "--output-format", "json",
                          os.path.dirname(launch)], capture_output=True, text=True, cwd=str(tmp_path))
    data = json.loads(out.stdout)
    here = [e for e in data["kernels"] if e["defined_in"]]
    assert [(os.path.basename(e["file"]), e["line"], e["mode"]) for e in here] == [
        ("launch.py", 6, "Mixed"), ("launch.py", 7, "Expert")]
    assert here[0]["defined_in"] == {"file": os.path.join("ops", "rows.py"), "line": 6}  # its def line
    assert [d["code"] for d in here[0]["diagnostics"]] == ["TLA002"] and here[1]["diagnostics"] == []
    own = [e for e in data["kernels"] if not e["defined_in"]]
    assert [(os.path.basename(e["file"]), e["mode"]) for e in own] == [("rows.py", "unknown")]
    table = subprocess.run([sys.executable, "-m", "flake8_tilelang", "kernels", os.path.dirname(launch)],
                           capture_output=True, text=True, cwd=str(tmp_path)).stdout
    assert "main (rows.py:6)" in table and "1 kernel in 1 file" in table and "Also 2 compiled" in table


_EXP_KERNEL = """\
import tilelang
import tilelang.language as T

%s


def vec_exp(M, N, block_M):
    @T.prim_func
    def main(X: T.Tensor((M, N), "float16")):
        with T.Kernel(M // block_M, is_npu=True) as (cid, vid):
            x_ub = T.alloc_ub((block_M // 2, N), "float16")
            T.copy(X[cid * block_M, 0], x_ub)
            T.barrier_all()
            T.copy(x_ub, X[cid * block_M, 0])

    return main


kernel = tilelang.compile(vec_exp(1024, 128, 64), pass_configs=AUTO)
"""


def _package_project(tmp_path, init_text, import_line, kernel_at=("pkg", "kernels", "exp.py")):
    from flake8_tilelang.model import build_model

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'pkginit'\n")
    pkg = tmp_path / "pkg"
    (pkg / "kernels").mkdir(parents=True, exist_ok=True)
    (pkg / "configs.py").write_text('AUTO = {"tl.ascend_auto_sync": True}\n')
    (pkg / "__init__.py").write_text(init_text)
    (pkg / "kernels" / "__init__.py").write_text("")
    kernel = tmp_path.joinpath(*kernel_at)
    kernel.write_text(_EXP_KERNEL % import_line)
    model = build_model(ast.parse(kernel.read_text()), str(kernel))
    states = [c.state("tl.ascend_auto_sync") for k in model.kernels for c in k.configs]
    return states, [d for d in lint_path(str(kernel)) if d.code == "TLA002"]


_INIT_SWITCHES_OFF = "from . import configs\n\nconfigs.AUTO[\"tl.ascend_auto_sync\"] = False\n"


def test_a_package_init_runs_before_the_module_imported_from_the_package(tmp_path):
    """Importing `pkg.configs` (relatively from pkg/kernels/exp.py, or
    absolutely from a script beside the package) runs pkg/__init__.py first,
    as Python does: a switch it turns off is off at the compile (it was read
    as on, a false TLA002)."""
    states, found = _package_project(tmp_path, _INIT_SWITCHES_OFF, "from ..configs import AUTO")
    assert states == [False] and not found
    states, found = _package_project(tmp_path, _INIT_SWITCHES_OFF, "from pkg.configs import AUTO",
                                     kernel_at=("run.py",))
    assert states == [False] and not found
    states, found = _package_project(tmp_path, _INIT_SWITCHES_OFF, "import pkg.configs\n\nAUTO = pkg.configs.AUTO",
                                     kernel_at=("run.py",))
    assert states == [False] and not found


def test_a_package_init_with_no_effects_changes_nothing(tmp_path):
    states, found = _package_project(tmp_path, "from . import configs\n\n__all__ = ['configs']\n",
                                     "from ..configs import AUTO")
    assert states == [True] and len(found) == 1


def test_a_package_init_that_imports_the_linted_module_back_makes_what_it_changes_unknown(tmp_path):
    """pkg/__init__.py imports pkg.kernels.exp before turning the switch off:
    entered as `import pkg`, exp compiles while the switch is still on;
    entered as `python -m pkg.kernels.exp`, after. Neither is claimed."""
    init = "from . import configs\nfrom .kernels import exp  # noqa: F401\n\nconfigs.AUTO[\"tl.ascend_auto_sync\"] = False\n"
    states, found = _package_project(tmp_path, init, "from ..configs import AUTO")
    assert True not in states and False not in states and not found
    init = "from . import configs\nfrom . import kernels  # noqa: F401\n\nconfigs.AUTO[\"tl.ascend_auto_sync\"] = False\n"
    states, found = _package_project(tmp_path, init, "from ..configs import AUTO")
    assert states == [False] and not found  # pkg/kernels/__init__.py is empty: exp is not imported by it


def test_a_name_the_package_binds_over_a_module_file_of_that_name_is_not_the_file(tmp_path):
    """`from pk import configs` takes what pk/__init__.py bound to `configs`
    (`from .v2 import configs`), not the old pk/configs.py beside it
    (`import pk.configs` would take the file): the switch is not read from
    the file (it was, a false TLA002). A package that imports the module
    itself (`from . import configs`) still gives the file."""
    from flake8_tilelang.model import build_model

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'rebind'\n")
    pk = tmp_path / "pk"
    (pk / "v2").mkdir(parents=True)
    (pk / "configs.py").write_text('AUTO = {"tl.ascend_auto_sync": True}\n')
    (pk / "v2" / "__init__.py").write_text("")
    (pk / "v2" / "configs.py").write_text('AUTO = {"tl.ascend_auto_sync": False}\n')
    kernel = tmp_path / "run.py"
    kernel.write_text(_EXP_KERNEL % "from pk import configs\n\nAUTO = configs.AUTO")
    for init, expected in (("from .v2 import configs  # noqa: F401\n", [None]),
                           ("import types\n\nconfigs = types.SimpleNamespace(AUTO={})\n", [None]),
                           ("from . import configs  # noqa: F401\n", [True]),
                           ("from .configs import AUTO  # noqa: F401\n", [True])):
        (pk / "__init__.py").write_text(init)
        model = build_model(ast.parse(kernel.read_text()), str(kernel))
        states = [c.state("tl.ascend_auto_sync") for k in model.kernels for c in k.configs]
        assert states in (expected, [] if expected == [None] else expected), (init, states)


def test_a_file_beside_the_script_named_like_a_standard_module_is_what_it_imports(tmp_path):
    """`import copy` in run.py with a copy.py of the user's beside it: run as
    a script, Python imports that file, not the standard library's (whose
    `deepcopy` the evaluator knows). What it gives is not told; the switch
    was read through the standard deepcopy (a false TLA002)."""
    from flake8_tilelang.model import build_model

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'shadow'\n")
    kernel = tmp_path / "run.py"
    kernel.write_text(_EXP_KERNEL % 'import copy\n\nAUTO = copy.deepcopy({"tl.ascend_auto_sync": True})')

    def states():
        model = build_model(ast.parse(kernel.read_text()), str(kernel))
        return [c.state("tl.ascend_auto_sync") for k in model.kernels for c in k.configs]

    assert states() == [True]
    (tmp_path / "copy.py").write_text("def deepcopy(d):\n    return {'tl.ascend_auto_sync': False}\n")
    assert True not in states()


def test_a_relative_import_that_works_only_in_some_runs_may_take_its_handler(tmp_path):
    """`try: from .configs import AUTO / except ImportError: AUTO = {...}`
    in a folder without `__init__.py`: `python scripts/run.py` takes the
    handler, `python -m scripts.run` the module; an import climbing above the
    last `__init__.py` works only when that folder is a namespace package.
    The switch is then not told (it was read from configs.py: a false TLA002).
    In a package the import is taken to succeed, as before."""
    from flake8_tilelang.model import build_model

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'rel'\n")
    guarded = 'try:\n    from %sconfigs import AUTO\nexcept ImportError:\n    AUTO = {"tl.ascend_auto_sync": False}'

    def states(folder, dots):
        folder.mkdir(parents=True, exist_ok=True)
        (tmp_path / "configs.py").write_text('AUTO = {"tl.ascend_auto_sync": True}\n')
        (folder / "configs.py").write_text('AUTO = {"tl.ascend_auto_sync": True}\n')
        kernel = folder / "run_exp.py"
        kernel.write_text(_EXP_KERNEL % (guarded % dots))
        model = build_model(ast.parse(kernel.read_text()), str(kernel))
        return [c.state("tl.ascend_auto_sync") for k in model.kernels for c in k.configs]

    scripts = tmp_path / "scripts"
    assert True not in states(scripts, ".")
    (scripts / "__init__.py").write_text("")
    assert states(scripts, ".") == [True]
    assert True not in states(scripts, "..")  # above the last package


def test_the_package_or_script_import_idiom_stays_decided(tmp_path):
    """`try: from .utils import CFG / except ImportError: from utils import CFG`
    (a folder run both ways): either way the same file gives CFG."""
    from flake8_tilelang.model import build_model

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'dual'\n")
    (tmp_path / "utils.py").write_text('AUTO = {"tl.ascend_auto_sync": True}\n')
    kernel = tmp_path / "run.py"
    kernel.write_text(_EXP_KERNEL % "try:\n    from .utils import AUTO\nexcept ImportError:\n    from utils import AUTO")
    model = build_model(ast.parse(kernel.read_text()), str(kernel))
    assert [c.state("tl.ascend_auto_sync") for k in model.kernels for c in k.configs] == [True]


def test_a_config_passed_on_through_another_module_is_read(tmp_path):
    """`from .configs import DEVELOPER` in kp/__init__.py (the package's
    public API) then `from kp import DEVELOPER`, and `DEVELOPER2 =
    dict(_D)` of an imported `_D`: both were unknown."""
    from flake8_tilelang.model import build_model

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'reexport'\n")
    kp = tmp_path / "kp"
    kp.mkdir()
    (kp / "configs.py").write_text('DEVELOPER = {"tl.ascend_auto_sync": True}\n')
    (kp / "__init__.py").write_text("from .configs import DEVELOPER  # noqa: F401\n")
    (kp / "presets.py").write_text("from .configs import DEVELOPER as _D\n\nDEVELOPER2 = dict(_D)\n")
    for line in ("from kp import DEVELOPER as AUTO", "from kp.presets import DEVELOPER2 as AUTO"):
        kernel = tmp_path / "run.py"
        kernel.write_text(_EXP_KERNEL % line)
        model = build_model(ast.parse(kernel.read_text()), str(kernel))
        assert [c.state("tl.ascend_auto_sync") for k in model.kernels for c in k.configs] == [True], line


def test_the_linted_modules_own_package_init_runs_first(tmp_path):
    """pkg/kernels/__init__.py turns the switch off; pkg/kernels/exp.py is
    imported as pkg.kernels.exp, so it runs after it (certain with a
    relative import; an absolute-only module may also run as a script,
    without it: unknown)."""
    from flake8_tilelang.model import build_model

    def states(import_line):
        _package_project(tmp_path, "", import_line)
        (tmp_path / "pkg" / "kernels" / "__init__.py").write_text(
            "from ..configs import AUTO\n\nAUTO[\"tl.ascend_auto_sync\"] = False\n")
        kernel = tmp_path / "pkg" / "kernels" / "exp.py"
        model = build_model(ast.parse(kernel.read_text()), str(kernel))
        return [c.state("tl.ascend_auto_sync") for k in model.kernels for c in k.configs]

    assert states("from ..configs import AUTO") == [False]
    assert True not in states("from pkg.configs import AUTO") and False not in states("from pkg.configs import AUTO")


def test_a_type_checking_block_never_runs(tmp_path):
    """`if TYPE_CHECKING:` (from typing, or `typing.TYPE_CHECKING`) is False
    at run time: a rebinding under it does not make the config unknown."""
    from flake8_tilelang.model import build_model

    kernel = tmp_path / "run.py"
    for line in ("from typing import TYPE_CHECKING\n\nAUTO = {'tl.ascend_auto_sync': True}\n"
                 "if TYPE_CHECKING:\n    from .stubs import AUTO",
                 "import typing\n\nAUTO = {'tl.ascend_auto_sync': True}\nif typing.TYPE_CHECKING:\n    AUTO = {}"):
        kernel.write_text(_EXP_KERNEL % line)
        model = build_model(ast.parse(kernel.read_text()), str(kernel))
        assert [c.state("tl.ascend_auto_sync") for k in model.kernels for c in k.configs] == [True], line
