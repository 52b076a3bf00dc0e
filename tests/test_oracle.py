"""The differential oracle (issue #19): CPython with a recording `tilelang`
stub against the engine's `kernels` answer.

What "agree" means is defined in tests/oracle/driver.py (module docstring):
per kernel (the line of its `def`) and per compile site, the effective values
of the four TL_ASCEND switches the engine decides must be ones CPython
recorded at that site for that kernel, and every compile CPython recorded at
a site the engine decides must be one of the engine's; an engine site that
decides a switch where CPython compiled only other kernels, or (generated
programs) nothing at all, is a disagreement too. "unknown" always agrees.

- test_stub_*: the stub itself behaves like TileLang-Ascend where it matters
  (jit reads pass_configs at compile time, PassConfigKey is a str Enum,
  compile ignores an enclosing PassContext, lower outside one is all off).
- test_fixture_agrees: every fixture module that runs under the stub
  (FIXTURE_SKIPS lists the others, with the reason).
- test_generated_programs_agree: Hypothesis programs (tests/oracle/gen.py),
  a modest count in the default run, >= 10,000 under `-m slow`, derandomized.
  Forms the current engine gets wrong are left out (KNOWN_BROKEN) until the
  engine is fixed; each has a shrunk regression case below.
- test_regression: the shrunk disagreements (tests/oracle/cases.py), each
  xfail(strict=True) against the current engine, so a fix turns the suite red
  until its xfail and KNOWN_BROKEN entry go. tests/oracle/README.md lists them.
"""
import glob
import os
import shutil
import sys
import time

import pytest
from hypothesis import HealthCheck, given, settings

from oracle import driver, gen
from oracle.cases import CASES

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = sorted(glob.glob(os.path.join(ROOT, "fixtures", "**", "*.py"), recursive=True))
INERT = ("torch", "torch_npu", "numpy")  # pytest is real: its parametrize rows are the calls

# Statement forms / site kinds the current engine gets wrong (see CASES); the
# generated-program tests leave them out. Remove an entry when its case passes.
KNOWN_BROKEN: frozenset = frozenset()

# Fixture modules that cannot run under the stub, and why. A fixture not
# listed here must run (a new fixture that cannot gets an entry).
FIXTURE_SKIPS = {
    "fixtures/crossmod/proj/apps/cycle_a.py": "circular import on purpose: fails under CPython too",
    "fixtures/crossmod/proj/apps/cycle_b.py": "circular import on purpose: fails under CPython too",
    "fixtures/crossmod/proj/apps/namespace_and_decoy.py": "imports `nsp` from a project root the "
                                                          "fixture does not put on sys.path",
    "fixtures/crossmod/proj/kernels_pkg/rmsnorm.py": "never run: imports side_effect_configs (and a module "
                                                     "that does not exist on purpose)",
    "fixtures/crossmod/proj/kernels_pkg/side_effect_configs.py": "never run: it writes a marker file to prove "
                                                                 "the checker never executes it",
    "fixtures/crossmod/src_roots/kernels/row_softmax_exp.py": "imports `compiler` from the `src` root "
                                                              "python/, which the fixture does not put "
                                                              "on sys.path",
    "fixtures/crossmod/src_roots/python/compiler/tl_ops/__init__.py": "package `compiler.tl_ops` below the `src` "
                                                                      "root python/, not on sys.path",
    "fixtures/kernels/macro_transitive_sync_scope.py": "relative import outside a package",
    "fixtures/kernels/unknown_configs_silent.py": "relative import outside a package",
    "fixtures/kernels/upstream_cuda_tilelang_silent.py": "upstream CUDA TileLang's PassConfigKey member "
                                                         "(TL_ENABLE_FAST_MATH) that TileLang-Ascend lacks",
    "fixtures/rules/TLA004/silent_unknown_combine.py": "relative import outside a package",
    "fixtures/rules/TLA005/silent_unknown_and_other_dict.py": "relative import outside a package",
    "fixtures/rules/TLA006/silent_unknown_combine.py": "relative import outside a package",
    "fixtures/rules/TLA050/firing_enum_typo_in_preset_table.py": "a misspelt PassConfigKey member on purpose "
                                                                 "(AttributeError under the real library too)",
    "fixtures/rules/TLA050/firing_typo_keys.py": "a misspelt PassConfigKey member on purpose",
    "fixtures/rules/TLA050/silent_registered_keys.py": "relative import outside a package",
    "fixtures/rules/TLA052/silent_live_keys_and_cube_work.py": "relative import outside a package",
}


# Fixtures where the current engine differs from CPython (xfail, strict).
FIXTURE_XFAIL: dict = {}


def _fixture_param(path):
    rel = os.path.relpath(path, ROOT).replace(os.sep, "/")
    marks = []
    if rel in FIXTURE_XFAIL:
        marks.append(pytest.mark.xfail(strict=True, raises=AssertionError, reason=FIXTURE_XFAIL[rel]))
    return pytest.param(path, marks=marks, id=rel)


@pytest.fixture(scope="module")
def stub():
    with driver.stub_installed():
        yield


def _run(tmp_path, source, siblings=None):
    return driver.check_source(source, siblings or {}, folder=str(tmp_path))


def _recorded(tmp_path, source, inert=()):
    path = tmp_path / "gen_main.py"
    path.write_text(source)
    return driver.run_module(str(path), inert=inert)


HEAD = """import tilelang
import tilelang.language as T
import tvm
from tilelang import PassConfigKey


def build(M):
    @T.prim_func
    def main(A: T.Tensor((M,), "float16")):
        with T.Kernel(4, is_npu=True) as (cid, vid):
            T.copy(A[0], A[0])
    return main
"""


# -- the stub ----------------------------------------------------------------

def test_stub_jit_reads_pass_configs_when_the_factory_is_called(stub, tmp_path):
    src = HEAD + """
CFG = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}
make = tilelang.jit(out_idx=[-1], pass_configs=CFG)(build)
early = make(64)
CFG[PassConfigKey.TL_ASCEND_AUTO_SYNC] = False
late = make(128)
again = make(128)
"""
    recs = _recorded(tmp_path, src)
    assert [r["switches"]["tl.ascend_auto_sync"] for r in recs] == [True, False]
    assert {r["kernel"]["name"] for r in recs} == {"main"}


def test_stub_passconfigkey_is_a_str_enum(stub, tmp_path):
    # the member and its raw key are one dict key: the last value wins
    src = HEAD + """
assert PassConfigKey.TL_ASCEND_AUTO_CV_SYNC.value == "tl.ascend_auto_cross_core_sync"
CFG = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True, "tl.ascend_auto_sync": False}
assert len(CFG) == 1
tilelang.compile(build(1), pass_configs=CFG)
"""
    (rec,) = _recorded(tmp_path, src)
    assert rec["switches"]["tl.ascend_auto_sync"] is False and rec["kind"] == "compile"


def test_stub_passconfigkey_matches_the_checkers_table(stub):
    # two independent transcriptions of tilelang/transform/pass_config.py must agree
    from flake8_tilelang import constants as C
    from tilelang import PassConfigKey

    snapshot = {n: v for n, v in C.PASS_CONFIG_ENUM.items() if n not in C.PASS_CONFIG_ENUM_POST_SNAPSHOT}
    assert {m.name: m.value for m in PassConfigKey} == snapshot
    assert {C.SWITCH_ENUM[k]: k for k in C.SWITCHES} == {
        n: PassConfigKey[n].value for n in ("TL_ASCEND_AUTO_SYNC", "TL_ASCEND_MEMORY_PLANNING",
                                            "TL_ASCEND_AUTO_CV_COMBINE", "TL_ASCEND_AUTO_CV_SYNC")}


def test_stub_compile_ignores_the_enclosing_pass_context_and_lower_reads_it(stub, tmp_path):
    src = HEAD + """
with tvm.transform.PassContext(opt_level=3, config={"tl.ascend_auto_sync": True}):
    tilelang.compile(build(1), pass_configs={"tl.ascend_memory_planning": True})
    tilelang.lower(build(2))
with tilelang.transform.PassContext(config={"tl.ascend_auto_cv_combine": 1}):
    tilelang.engine.lower(build(3))
tilelang.lower(build(4))
"""
    recs = _recorded(tmp_path, src)
    on = [sorted(k for k, v in r["switches"].items() if v) for r in recs]
    assert on == [["tl.ascend_memory_planning"], ["tl.ascend_auto_sync"], ["tl.ascend_auto_cv_combine"], []]
    assert [r["kind"] for r in recs] == ["compile", "lower", "lower", "lower"]


def test_stub_values_and_invalid_keys(stub, tmp_path):
    src = HEAD + """
tilelang.compile(build(1), pass_configs={"tl.ascend_auto_sync": "True"})
tilelang.compile(build(1), pass_configs={"tl.ascend_auto_sync": 2, "tl.ascend_auto_cv_combine": 0})
tilelang.compile(build(1), pass_configs={"tl.ascend_auto_synk": True})
tilelang.compile(build(1))
"""
    recs = _recorded(tmp_path, src)
    assert recs[0]["switches"]["tl.ascend_auto_sync"] == driver.INDET
    assert recs[1]["switches"]["tl.ascend_auto_sync"] is True
    assert recs[1]["switches"]["tl.ascend_auto_cv_combine"] is False
    assert recs[2]["valid"] is False
    assert not any(recs[3]["switches"].values())


def test_stub_driver_calls_a_never_called_jit_factory_with_the_final_state(stub, tmp_path):
    src = HEAD + """
CFG = {}

@tilelang.jit(pass_configs=CFG)
def make(M, N, block=64):
    return build(M)

CFG["tl.ascend_auto_sync"] = True
"""
    (rec,) = _recorded(tmp_path, src)
    assert rec["switches"]["tl.ascend_auto_sync"] is True
    assert rec["kind"] == "jit"


def test_stub_imports_the_surface_real_kernels_touch(stub, tmp_path):
    src = """
import tilelang as tl
import tilelang.language as T
from tilelang import jit, PassConfigKey
from tilelang.language.ascend import barrier_all
from tilelang.transform import PassContext
from tvm.ir.transform import PassContext as PC
from tilelang.jit import compile as tl_compile
import torch

@tl.autotune(configs=[{"block_M": 64}])
@jit(out_idx=[-1], pass_configs={PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: True})
def gemm(M, N, K, block_M=64, dtype="float16", accum_dtype="float"):
    @T.macro
    def helper(x):
        T.barrier_all()

    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), is_npu=True) as (cid, vid):
            a = T.alloc_L1((block_M, K), dtype)
            with T.Scope("C"):
                helper(a)
    return main

kernel = gemm(1024, 1024, 1024)
a = torch.randn(1024, 1024).npu()
c = kernel(a, a @ a)
"""
    (rec,) = _recorded(tmp_path, src, inert=("torch",))
    assert rec["kernel"]["name"] == "main" and rec["switches"]["tl.ascend_auto_cv_combine"] is True


# -- the rule ----------------------------------------------------------------

def test_compare_reports_a_wrong_value_a_wrong_kernel_and_a_phantom(stub, tmp_path):
    # the comparison itself, fed a fabricated engine answer
    src = HEAD + """
CFG = {"tl.ascend_auto_sync": True}
kernel = tilelang.compile(build(1), pass_configs=CFG)
"""
    path = tmp_path / "gen_main.py"
    path.write_text(src)
    recorded = driver.run_module(str(path))
    line = src.splitlines().index("kernel = tilelang.compile(build(1), pass_configs=CFG)") + 1
    on = dict.fromkeys(driver.SWITCH_KEYS, False)
    on["tl.ascend_auto_sync"] = True
    off = dict.fromkeys(driver.SWITCH_KEYS, False)
    unknown = dict.fromkeys(driver.SWITCH_KEYS, None)

    def verdict(sites, kline=9, strict=True):
        return driver.compare(str(path), recorded, [{"line": kline, "name": "main", "sites": sites}], strict)

    assert verdict([{"line": line, "switches": on}]).disagreements == []
    assert verdict([{"line": line, "switches": on}]).decided == 1
    assert verdict([{"line": line, "switches": unknown}]).disagreements == []
    assert verdict([{"line": line, "switches": unknown}]).decided == 0
    assert verdict([]).disagreements == [] and verdict([]).decided == 0
    (d,) = verdict([{"line": line, "switches": off}]).disagreements
    assert d.startswith("wrong value")
    (d,) = verdict([{"line": line, "switches": on}], kline=8).disagreements
    assert d.startswith("wrong kernel")
    # a site at another line: judged against the kernel's compiles no engine site is at
    assert verdict([{"line": line - 1, "switches": on}]).disagreements == []
    (d,) = verdict([{"line": line - 1, "switches": off}]).disagreements
    assert d.startswith("wrong value") and d.endswith("(elsewhere)")
    # ... unless the kernel was never compiled: a phantom (generated programs) or skipped
    (d,) = verdict([{"line": line - 1, "switches": on}], kline=8).disagreements
    assert d.startswith("phantom compile")
    assert verdict([{"line": line - 1, "switches": on}], kline=8, strict=False).disagreements == []
    # the target: no `target=` is the default route, Ascend C; "unknown" never disagrees
    assert driver.compare(str(path), recorded, [{"line": 9, "name": "main", "sites": [{"line": line, "switches": on}],
                                                 "targets": ["unknown"]}], True).disagreements == []
    (d,) = driver.compare(str(path), recorded, [{"line": 9, "name": "main", "sites": [{"line": line, "switches": on}],
                                                 "targets": ["npuir"]}], True).disagreements
    assert d == "wrong target: kernel main (line 9): engine npuir, CPython ascendc"


@pytest.mark.parametrize("call", [
    'tilelang.compile(build(1), target="npuir")',
    'tilelang.compile(build(1), target=TARGET)',
    'tilelang.compile(build(1), target="pto", pass_configs=CFG)',
    'tilelang.compile(build(1), target=TARGETS[1])',
    'tilelang.lower(build(1), "npuir")',
    'tilelang.jit(target=TARGET)(build)(1)',
    'tilelang.compile(build(1), **dict(target=TARGET))',
    'tilelang.compile(build(1), target="cuda")',
])
def test_the_engine_agrees_on_each_sites_target(stub, tmp_path, call):
    src = HEAD + 'CFG = {"tl.ascend_auto_sync": True}\nTARGET = "npuir"\nTARGETS = ("pto", TARGET)\n' + call + "\n"
    path = tmp_path / "gen_target.py"
    path.write_text(src)
    recorded = driver.run_module(str(path))
    assert [r["dialect"] for r in recorded] == ["other" if "cuda" in call else
                                                "ascendc" if "pto" in call else "npuir"]
    engine = driver.engine_answer(str(path))
    assert driver.compare(str(path), recorded, engine, True).disagreements == []
    assert engine[0]["sites"] and engine[0]["targets"] in (["unknown"], [recorded[0]["dialect"]])


# -- fixtures ----------------------------------------------------------------

@pytest.mark.parametrize("path", [_fixture_param(p) for p in FIXTURES])
def test_fixture_agrees(stub, path):
    rel = os.path.relpath(path, ROOT).replace(os.sep, "/")
    if rel in FIXTURE_SKIPS:
        if not FIXTURE_SKIPS[rel].startswith("never run"):
            with pytest.raises(driver.RunError):  # the reason still holds
                driver.run_module(path, inert=INERT, call_functions=True)
        pytest.skip(FIXTURE_SKIPS[rel])
    verdict = driver.check_file(path, inert=INERT, call_functions=True)
    assert verdict.disagreements == []


# -- generated programs ------------------------------------------------------

def _check_generated(prog, base):
    main, siblings, _ = prog
    folder = os.path.join(base, "p%d" % len(os.listdir(base)))
    os.mkdir(folder)
    try:
        verdict = driver.check_source(main, siblings, folder=folder)
    except driver.RunError as exc:  # the generator writes programs that run
        pytest.fail("generated program does not run: %s\n%s" % (exc, main))
    finally:
        shutil.rmtree(folder)
    assert verdict.disagreements == [], main
    return verdict


def _generated(n, tmp_path_factory):
    base = str(tmp_path_factory.mktemp("oracle"))
    totals = {"programs": 0, "compiles": 0, "decided": 0}

    @settings(max_examples=n, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(gen.programs(exclude=KNOWN_BROKEN))
    def run(prog):
        verdict = _check_generated(prog, base)
        totals["programs"] += 1
        totals["compiles"] += verdict.compiles
        totals["decided"] += verdict.decided

    t0 = time.time()
    with driver.stub_installed():
        run()
    totals["seconds"] = round(time.time() - t0, 1)
    sys.stderr.write("oracle: %r\n" % totals)
    return totals


def test_generated_programs_agree(tmp_path_factory):
    totals = _generated(150, tmp_path_factory)
    assert totals["programs"] >= 100 and totals["decided"] > 0


@pytest.mark.slow
def test_generated_programs_agree_slow(tmp_path_factory):
    totals = _generated(10000, tmp_path_factory)
    assert totals["programs"] >= 10000


# -- regressions -------------------------------------------------------------

@pytest.mark.parametrize("case", [
    pytest.param(c, id=c.name, marks=pytest.mark.xfail(strict=True, raises=AssertionError, reason=c.reason)
                 if c.reason else ())
    for c in CASES])
def test_regression(stub, tmp_path, case):
    # a case that does not run is an error, not an expected failure
    try:
        verdict = _run(tmp_path, case.source, case.siblings)
    except driver.RunError as exc:
        raise RuntimeError("regression case %s does not run: %s" % (case.name, exc))
    assert verdict.disagreements == []
    assert verdict.compiles >= 1
