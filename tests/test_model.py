"""Unit tests of the kernel model: imports, configs, compile sites, macros, launches."""
import ast
import os
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flake8_tilelang import constants as C
from flake8_tilelang.engine import check_tree
from helpers import codes, model

HEADER = """
import tilelang
import tilelang.language as T
"""

KERNEL = """
    @T.prim_func
    def main(A: T.Tensor((M, N), "float16")):
        with T.Kernel(M // 64, is_npu=True) as (cid, vid):
            a = T.alloc_ub((32, N), "float16")
            T.copy(A[cid * 64 + vid * 32, 0], a)
            T.barrier_all()
    return main
"""


def only_kernel(src):
    m = model(src)
    assert len(m.kernels) == 1, [k.name for k in m.kernels]
    return m.kernels[0]


def states(kernel):
    return [{C.SWITCH_ENUM[k]: cfg.state(k) for k in C.SWITCHES} for cfg in kernel.configs]


# -- imports -----------------------------------------------------------------

@pytest.mark.parametrize("imports, jit, lang", [
    ("import tilelang\nimport tilelang.language as T", "tilelang.jit", "T"),
    ("import tilelang as tl\nimport tilelang.language as T", "tl.jit", "T"),
    ("from tilelang import language as T, jit", "jit", "T"),
    ("from tilelang import jit, PassConfigKey\nfrom tilelang import language as T", "jit", "T"),
    ("import tilelang\nimport tilelang.language as tl", "tilelang.jit", "tl"),
    ("try:\n    import tilelang\n    import tilelang.language as T\nexcept ImportError:\n    tilelang = None\n    T = None",
     "tilelang.jit", "T"),
])
def test_import_spellings(imports, jit, lang):
    src = imports + """

@%s(pass_configs={"tl.ascend_auto_sync": True})
def factory(M, N):
    @%s.prim_func
    def main(A: %s.Tensor((M, N), "float16")):
        with %s.Kernel(M // 64, is_npu=True) as (cid, vid):
            %s.barrier_all()
    return main
""" % (jit, lang, lang, lang, lang)
    line = src.splitlines().index("            %s.barrier_all()" % lang) + 1
    assert codes(src) == [(line, "TLA002")]


def test_t_that_is_not_tilelang_is_not_a_primitive():
    src = """
import threading as T
import tilelang
import tilelang.language as TL

@tilelang.jit(pass_configs={"tl.ascend_auto_sync": True})
def factory(M):
    @TL.prim_func
    def main(A: TL.Tensor((M,), "float16")):
        with TL.Kernel(4, is_npu=True) as (cid, vid):
            T.barrier_all()
    return main
"""
    assert codes(src) == []


def test_parameter_named_T_shadows_the_import():
    src = HEADER + """
@tilelang.jit(pass_configs={"tl.ascend_auto_sync": True})
def factory(M):
    @T.prim_func
    def main(A: T.Tensor((M,), "float16")):
        with T.Kernel(4, is_npu=True) as (cid, vid):
            helper(T)
    return main

def helper(T):
    T.barrier_all()
"""
    assert codes(src) == []


def test_file_without_tilelang_import_builds_nothing():
    src = "# tilelang is mentioned only here\nimport os\n"
    m = model(src)
    assert not m.imports_tilelang and m.kernels == []


def test_file_that_never_mentions_tilelang_is_not_parsed():
    # the gate returns before parsing: a tree of None and broken text are fine
    assert check_tree(None, ["def broken(:\n"], "x.py") == []


# -- configs -----------------------------------------------------------------

def test_no_pass_configs_means_every_switch_off():
    k = only_kernel(HEADER + "@tilelang.jit\ndef f(M, N):" + KERNEL)
    assert states(k) == [{n: False for n in C.SWITCH_ENUM.values()}]
    k = only_kernel(HEADER + "@tilelang.jit(out_idx=[-1])\ndef f(M, N):" + KERNEL)
    assert states(k) == [{n: False for n in C.SWITCH_ENUM.values()}]


@pytest.mark.parametrize("config, expected", [
    ("{tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True}", (True, False)),
    ('{"tl.ascend_auto_sync": 1, "tl.ascend_auto_cv_combine": 0}', (True, False)),
    ("{tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: False}", (False, False)),
    ("{**BASE, tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: False}", (False, True)),
    ("{tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: False, **BASE}", (True, True)),
    ("{**unknown_call(), tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True}", (True, None)),
    ("{tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True, **unknown_call()}", (None, None)),
    ("{getattr(tilelang.PassConfigKey, n): True for n in NAMES}", (True, True)),
    ("{n: True for n in RAW}", (True, False)),
    ("BASE", (True, True)),
    ("dict(BASE)", (True, True)),
    ("BASE.copy()", (True, True)),
    # a ternary on a module constant is evaluated (issue #10); on an unknown test, joined
    ("BASE if FAST else {tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True}", (True, True)),
    ("BASE if unknown_call() else {tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True}", (True, None)),
    ("make_configs()", (None, None)),
    ("None", (False, False)),
    ("{KEY_VAR: True}", (None, None)),
    ("{KEY_ALIAS: True}", (True, False)),
    ('{tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: "True"}', (None, False)),
])
def test_config_forms(config, expected):
    src = HEADER + """
BASE = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: True,
}
NAMES = ["TL_ASCEND_AUTO_SYNC", "TL_ASCEND_AUTO_CV_COMBINE"]
RAW = ("tl.ascend_auto_sync",)
FAST = True
KEY_ALIAS = tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC

@tilelang.jit(pass_configs=%s)
def f(M, N, KEY_VAR=None):""" % config + KERNEL
    k = only_kernel(src)
    (cfg,) = k.configs
    assert (cfg.state(C.AUTO_SYNC), cfg.state(C.AUTO_CV_COMBINE)) == expected


def test_try_branch_wins_over_import_error_fallback():
    src = """
try:
    import tilelang
    import tilelang.language as T
    PASS_CONFIGS = {tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True}
except ImportError:
    PASS_CONFIGS = {}

@tilelang.jit(pass_configs=PASS_CONFIGS)
def f(M, N):""" + KERNEL
    (cfg,) = only_kernel(src).configs
    assert cfg.is_on(C.AUTO_SYNC)
    assert cfg.where(C.AUTO_SYNC) == "set at line 5"


def test_mutated_config_applies_in_order():
    # issue #10: module code runs in order, so a mutation before the compile counts
    src = HEADER + """
CFG = {tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True}
CFG[tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC] = False

@tilelang.jit(pass_configs=CFG)
def f(M, N):""" + KERNEL
    (cfg,) = only_kernel(src).configs
    assert cfg.state(C.AUTO_SYNC) is False


def test_mutation_that_may_not_happen_is_unknown():
    src = HEADER + """
import os
CFG = {tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True}
if os.environ.get("NO_SYNC"):
    CFG[tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC] = False

@tilelang.jit(pass_configs=CFG)
def f(M, N):""" + KERNEL
    (cfg,) = only_kernel(src).configs
    assert cfg.state(C.AUTO_SYNC) is None


def test_config_from_parameter_or_other_module_is_unknown():
    src = HEADER + """
from .configs import SHARED

def make(cfgs):
    @tilelang.jit(pass_configs=cfgs)
    def f(M, N):""" + KERNEL.replace("\n    ", "\n        ") + """
    return f

@tilelang.jit(pass_configs=SHARED)
def g(M, N):""" + KERNEL
    m = model(src)
    assert len(m.kernels) == 2
    for k in m.kernels:
        assert [c.state(C.AUTO_SYNC) for c in k.configs] == [None]
    assert codes(src) == []


def test_where_names_the_key_line_or_the_argument():
    src = HEADER + """
@tilelang.jit(
    pass_configs={
        tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
    },
)
def f(M, N):""" + KERNEL
    (cfg,) = only_kernel(src).configs
    assert cfg.describe(C.AUTO_SYNC) == "TL_ASCEND_AUTO_SYNC is on (set at line 7)"
    assert cfg.describe(C.AUTO_CV_COMBINE).startswith(
        "TL_ASCEND_AUTO_CV_COMBINE is off (not set in the pass_configs at line 6)")


# -- compile sites -----------------------------------------------------------

def test_builder_indirection():
    src = HEADER + """
CFG = {"tl.ascend_auto_sync": True}

def build_kernel(M, N):""" + KERNEL + """

@tilelang.jit(pass_configs=CFG)
def kernel_jit(M, N):
    return build_kernel(M, N)
"""
    assert states(only_kernel(src))[0]["TL_ASCEND_AUTO_SYNC"] is True


def test_compile_site_through_assignment_and_helper_parameter():
    src = HEADER + """
CFG = {"tl.ascend_auto_sync": True}
OFF = {"tl.ascend_auto_sync": False}

def vec_a(M, N):""" + KERNEL + """

def vec_b(M, N):""" + KERNEL + """

def _compile(prog):
    return tilelang.compile(prog, pass_configs=CFG)

def run_a():
    func = vec_a(128, 128)
    func = tilelang.compile(func, out_idx=[-1], pass_configs=OFF)

def run_b():
    _compile(vec_b(128, 128))
"""
    m = model(src)
    by_name = {k.func.node.lineno: k for k in m.kernels}
    a, b = [by_name[line] for line in sorted(by_name)]
    assert [c.state(C.AUTO_SYNC) for c in a.configs] == [False]
    assert [c.state(C.AUTO_SYNC) for c in b.configs] == [True]


def test_kernel_compiled_at_two_sites_is_checked_under_each():
    src = HEADER + """
def vec(M, N):""" + KERNEL + """

def run():
    tilelang.compile(vec(1024, 1024), pass_configs={"tl.ascend_auto_sync": False})
    tilelang.compile(vec(1024, 1024), pass_configs={"tl.ascend_auto_sync": True})
"""
    k = only_kernel(src)
    assert sorted(c.state(C.AUTO_SYNC) for c in k.configs) == [False, True]
    assert [code for _, code in codes(src)] == ["TLA002"]


def test_lower_inside_pass_context():
    src = HEADER + """
import tvm
from tvm.transform import PassContext as PC

def vec(M, N):""" + KERNEL + """

def aot():
    with PC(opt_level=3, config={"tl.ascend_auto_sync": True}):
        tilelang.lower(vec(1, 2))

def plain():
    with tvm.transform.PassContext(opt_level=3):
        tilelang.lower(vec(1, 2))
"""
    k = only_kernel(src)
    assert sorted(c.state(C.AUTO_SYNC) for c in k.configs) == [False, True]


def test_staticmethod_factory_and_autotune():
    src = HEADER + """
CFG = {"tl.ascend_auto_sync": True}

class Op:
    @staticmethod
    @tilelang.autotune(configs=[{"block_M": 64}])
    @tilelang.jit(out_idx=[-1], pass_configs=CFG)
    def kernel(M, N):""" + KERNEL.replace("\n    ", "\n        ")
    assert [c.state(C.AUTO_SYNC) for c in only_kernel(src).configs] == [True]


def test_uncompiled_prim_func_has_no_config():
    k = only_kernel(HEADER + "def f(M, N):" + KERNEL)
    assert k.configs == []


# -- macros ------------------------------------------------------------------

def test_macro_uses_are_reported_at_the_call_site_transitively():
    src = HEADER + """
@T.macro
def inner(e):
    T.set_flag("mte2", "v", e)

@T.macro
def outer(e):
    inner(e)

@T.macro
def unused():
    T.barrier_all()

@tilelang.jit(pass_configs={"tl.ascend_auto_sync": True})
def f(M, N):
    @T.prim_func
    def main(A: T.Tensor((M, N), "float16")):
        with T.Kernel(4, is_npu=True) as (cid, vid):
            outer(0)
    return main
"""
    k = only_kernel(src)
    (sync,) = list(k.uses_of("set_flag"))
    assert sync.line == 22 and [h.macro.name for h in sync.via] == ["outer", "inner"]
    assert sync.use.line == 7
    assert codes(src) == [(22, "TLA002")]


def test_recursive_macro_terminates():
    src = HEADER + """
@T.macro
def ping(e):
    pong(e)

@T.macro
def pong(e):
    ping(e)
    T.barrier_all()

@tilelang.jit(pass_configs={"tl.ascend_auto_sync": True})
def f(M, N):
    @T.prim_func
    def main(A: T.Tensor((M, N), "float16")):
        with T.Kernel(4, is_npu=True) as (cid, vid):
            ping(0)
    return main
"""
    assert codes(src) == [(19, "TLA002")]


# -- launches ----------------------------------------------------------------

@pytest.mark.parametrize("threads, expected", [
    ("2", 2), ("1", 1), ("[2]", 2), ("(1,)", 1), ("THREADS", 2), ("LOCAL", 2),
    ("4", None), ("[1, 2]", None), ("n_threads", None),
])
def test_threads_resolution(threads, expected):
    src = HEADER + """
THREADS = 2

@tilelang.jit
def f(M, N, n_threads=2):
    LOCAL = 1 + 1

    @T.prim_func
    def main(A: T.Tensor((M, N), "float16")):
        with T.Kernel(4, threads=%s, is_npu=True) as cid:
            T.copy(A[cid, 0], A[cid, 0])
    return main
""" % threads
    (launch,) = only_kernel(src).launches
    assert launch.threads_count == expected
    assert launch.is_npu is True


@pytest.mark.parametrize("body, expected", [
    ("T.copy(A[cid * 2, 0], A[0, 0])", ["cid"]),       # arithmetic
    ("T.copy(A[cid, 0], A[0, 0])", ["cid"]),           # an index
    ("x = -cid", ["cid"]),
    ("if cid > 0:\n                T.copy(A[0, 0], A[0, 0])", ["cid"]),   # an ordering fails on a list
    ("if cid == 0:\n                T.copy(A[0, 0], A[0, 0])", []),       # equality is just False
    ("if not cid:\n                T.copy(A[0, 0], A[0, 0])", []),
    ("c, v = cid\n            T.copy(A[c, v], A[0, 0])", []),   # unpacked: a list is fine
    ("T.copy(A[cid[0], cid[1]], A[0, 0])", []),        # subscripted
    ("helper(cid)", []),                               # handed to a call: not known here
    ("cid = cid[0]\n            T.copy(A[cid * 2, 0], A[0, 0])", []),  # rebound
])
def test_single_target_number_reads(body, expected):
    src = HEADER + """
@tilelang.jit
def f(M, N):
    @T.prim_func
    def main(A: T.Tensor((M, N), "float16")):
        with T.Kernel(4, is_npu=True) as cid:
            %s
    return main
""" % body
    (launch,) = only_kernel(src).launches
    assert [n.id for n in launch.target_number_reads()] == expected


def test_vid_bound_inside_kernel_is_not_unbound():
    src = HEADER + """
@tilelang.jit
def f(M, N):
    @T.prim_func
    def main(A: T.Tensor((M, N), "float16")):
        with T.Kernel(4, threads=2, is_npu=True) as cid:
            for vid in T.serial(2):
                T.copy(A[cid * 2 + vid, 0], A[cid, 0])
    return main
"""
    (launch,) = only_kernel(src).launches
    assert launch.unbound_vid_reads == []


def test_deeply_nested_expression_does_not_crash():
    body = "x = " + "+".join(["1"] * 1500)
    src = HEADER + body + "\n"
    tree = ast.parse(src)
    assert check_tree(tree, src.splitlines(True), "deep.py") == []


def test_file_that_only_mentions_tilelang_is_not_walked(monkeypatch):
    import flake8_tilelang.model as model_pkg

    def boom(tree, filename):
        raise AssertionError("the model must not be built")

    monkeypatch.setattr(model_pkg, "build_model", boom)
    src = '"""Notes on porting from tilelang to triton."""\n# see tilelang docs\nx = "tilelang"\n'
    assert check_tree(ast.parse(src), src.splitlines(True), "notes.py") == []


@pytest.mark.parametrize("line", [
    "import tilelang", "import os, tilelang", "    import tilelang.language as T",
    "from tilelang import (", "from tilelang.language import barrier_all",
])
def test_import_gate_accepts_real_imports(line):
    from flake8_tilelang.engine import imports_tilelang

    assert imports_tilelang([line + "\n"])


_IMPORT_LINE_RE = r"^[ \t]*(?:from|import)[ \t].*\btilelang\b"  # what the gate replaced


@pytest.mark.parametrize("line", [
    "import tilelang\n", "from\ttilelang import x", "importtilelang", "import  tilelang_x", "import x_tilelang",
    "from os import tilelangé", "from os import étilelang", "from os import 1tilelang", "import (tilelang)",
    "import a\ntilelang", "import a # tilelang", "\t import tilelang.language", "from . import tilelang",
    "import tilelangtilelang tilelang", "import tilelangx, tilelang", "x = 1  # import tilelang", "import",
    "from tilelang", "import \u00b2tilelang", "import tilelang\u00b2", "import tilelang\r\n",
])
def test_import_gate_is_the_regular_expression_it_replaced(line):
    import re

    from flake8_tilelang.engine import import_line_names_tilelang

    assert import_line_names_tilelang(line) == bool(re.match(_IMPORT_LINE_RE, line, re.M))


@given(st.text(alphabet=" \t\n\r_.#(,xé1²" + "tilelang" + "frompt", max_size=40))
@settings(max_examples=400, deadline=None)
def test_import_gate_agrees_with_the_regular_expression_on_any_line(text):
    import re

    from flake8_tilelang.engine import import_line_names_tilelang

    for line in (text, "import " + text, "from " + text, "\timport x " + text + "tilelang"):
        assert import_line_names_tilelang(line) == bool(re.match(_IMPORT_LINE_RE, line, re.M)), line


@pytest.mark.parametrize("body, severity", [
    ('with T.Scope("V"):\n                T.copy(A[0], a)', "warning"),
    ('with T.Scope("V"):\n                T.wait_flag("mte2", "v", 0)\n                T.copy(A[0], a)', "error"),
    ('with T.Scope("C"):\n                T.copy(A[0], a)\n            with T.Scope("V"):\n                T.copy(A[0], a)',
     "error"),
    ('with T.Scope("V"):\n                T.wait_cross_flag(0)\n                T.copy(A[0], a)', "error"),
])
def test_tla001_severity_tiers(body, severity):
    from helpers import lint

    src = HEADER + """
@tilelang.jit(pass_configs={"tl.ascend_auto_cv_combine": True})
def f(M):
    @T.prim_func
    def main(A: T.Tensor((M,), "float16")):
        with T.Kernel(4, is_npu=True) as (cid, vid):
            a = T.alloc_ub((16,), "float16")
            %s
    return main
""" % body
    found = [d for d in lint(src) if d.code == "TLA001"]
    assert found and {d.severity for d in found} == {severity}


def test_prim_func_a_jit_factory_does_not_return_is_not_a_kernel():
    src = HEADER + """
@tilelang.jit(out_idx=[-1])
def f(M, N):
    @T.prim_func
    def debug_copy(A: T.Tensor((M, N), "float16")):
        with T.Kernel(M, is_npu=True) as cid:
            T.barrier_all()

    @T.prim_func
    def main(A: T.Tensor((M, N), "float16")):
        with T.Kernel(M, is_npu=True) as (cid, vid):
            T.barrier_all()

    return main
"""
    assert [k.name for k in model(src).kernels] == ["main"]
    assert codes(src) == []


@pytest.mark.parametrize("expr", [
    'DEV if os.environ.get("DEV") else {}',
    "DEV if args.dev else {}",
    "DEV if random.random() > 0.5 else {}",
    "json.load(open('cfg.json'))",
    "{**DEV, **json.load(open('cfg.json'))}",
    "load_configs()",
])
def test_undecidable_configs_stay_unknown(expr):
    src = HEADER + """
import argparse, json, os, random
parser = argparse.ArgumentParser()
args = parser.parse_args()
DEV = {tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True}

@tilelang.jit(pass_configs=%s)
def f(M, N):""" % expr + KERNEL
    (cfg,) = only_kernel(src).configs
    assert cfg.state(C.AUTO_SYNC) is None


def test_evaluation_is_bounded():
    import time

    src = HEADER + """
def grow(n):
    return grow(n + 1) + grow(n + 2)

def spin():
    total = 0
    while True:
        for i in range(1000000):
            total += i
    return total

X = grow(0)
Y = spin()
CFG = {tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True}
for _ in range(10 ** 9):
    CFG = dict(CFG)

@tilelang.jit(pass_configs=CFG)
def f(M, N):""" + KERNEL
    t0 = time.process_time()
    (cfg,) = only_kernel(src).configs
    assert time.process_time() - t0 < 2.0
    assert cfg.state(C.AUTO_SYNC) in (True, None)


@pytest.mark.skipif(sys.version_info < (3, 10), reason="match needs Python 3.10")
@pytest.mark.parametrize("mode, expected", [('"dev"', True), ('"expert"', False), ("os.environ['M']", None)])
def test_match_on_a_module_constant_takes_one_case(mode, expected):
    src = HEADER + """
import os
DEV = {tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True}
NONE = {tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: False}
MODE = %s
match MODE:
    case "dev" | "developer":
        CFG = DEV
    case _:
        CFG = NONE

@tilelang.jit(pass_configs=CFG)
def f(M, N):""" % mode + KERNEL
    (cfg,) = only_kernel(src).configs
    assert cfg.state(C.AUTO_SYNC) is expected


MACRO_VALUES = HEADER + """
import random

AUTO = {tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True}
MANUAL = {tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: False}
GUESS = {tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True, "tl.disable_tma_lower": True}


@T.macro
def synced(buf):
    T.barrier_all()


@T.macro
def plain(buf):
    T.tile.exp(buf, buf)


def rows(M, N, body):
    @T.prim_func
    def main(A: T.Tensor((M, N), "float16")):
        with T.Kernel(M // 64, is_npu=True) as (cid, vid):
            a = T.alloc_ub((32, N), "float16")
            body(a)
    return main


tilelang.compile(rows(256, 64, plain), pass_configs=AUTO)
tilelang.compile(rows(256, 64, synced), pass_configs=MANUAL)
tilelang.compile(rows(256, 64, random.choice([plain, synced])), pass_configs=GUESS)
"""


def test_macro_passed_as_a_value_is_followed_per_site():
    kernel = only_kernel(MACRO_VALUES)
    by_switch = {}
    for config in kernel.configs:
        prims = sorted((u.use.prim, u.maybe) for u in kernel.uses_for(config) if u.via)
        by_switch[(config.state(C.AUTO_SYNC), len(config.entries))] = prims
    assert by_switch[(True, 1)] == [("tile.exp", False)]  # plain: no sync under AUTO
    assert by_switch[(False, 1)] == [("barrier_all", False)]  # synced under MANUAL
    # a value the engine cannot name at this site: neither macro is certain there
    assert by_switch[(True, 2)] == [("barrier_all", True), ("tile.exp", True)]


def test_macro_handed_to_a_macro_is_followed_per_site():
    src = MACRO_VALUES.replace("            body(a)\n", "            stage(a, body)\n").replace(
        "def rows(M, N, body):", "@T.macro\ndef stage(buf, fn):\n    fn(buf)\n\n\ndef rows(M, N, body):")
    kernel = only_kernel(src)
    by_switch = {}
    for config in kernel.configs:
        prims = sorted((u.use.prim, u.maybe, tuple(h.macro.name for h in u.via))
                       for u in kernel.uses_for(config) if u.via)
        by_switch[(config.state(C.AUTO_SYNC), len(config.entries))] = prims
    assert by_switch[(True, 1)] == [("tile.exp", False, ("stage", "plain"))]
    assert by_switch[(False, 1)] == [("barrier_all", False, ("stage", "synced"))]


MACRO_TWICE = HEADER + """
@T.macro
def inner(x):
    T.barrier_all()

@T.macro
def inner(x):
    T.tile.exp(x, x)

@T.macro
def outer(x):
    inner(x)

@tilelang.jit(pass_configs={"tl.ascend_auto_sync": True})
def f(M, N):
    @T.prim_func
    def main(A: T.Tensor((M, N), "float16")):
        with T.Kernel(4, is_npu=True) as (cid, vid):
            a = T.alloc_ub((M, N), "float16")
            inner(a)
            outer(a)
    return main
"""


def test_a_name_defined_twice_expands_the_definition_the_kernel_read():
    kernel = only_kernel(MACRO_TWICE)
    (config,) = kernel.configs
    prims = sorted((u.use.prim, u.maybe, u.line) for u in kernel.uses_for(config) if u.via)
    # called by the kernel: only the second definition (the one `inner` held when `main`
    # was parsed); called from a macro: either definition, neither certain
    assert prims == [("barrier_all", True, 24), ("tile.exp", False, 23), ("tile.exp", True, 24)]
    assert codes(MACRO_TWICE) == []


def test_a_macro_method_is_the_instance_classs():
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "kernels",
                        "macro_method_overridden.py")
    with open(path, encoding="utf-8") as f:
        src = f.read()
    assert codes(src) == []  # the Developer subclass overrides the synced epilogue
    kept = src + "\n\nclass LeftoverDeveloper(RowActivation):\n    pass_configs = DEVELOPER\n\n\n" \
                 "leftover = LeftoverDeveloper().compile(4096, 256)\n"
    assert codes(kept) == [(37, "TLA002")]  # one that keeps the base's epilogue runs its sync
