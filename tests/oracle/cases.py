"""Regression cases of the differential oracle: disagreements the generator
found, shrunk by hand to the construct at fault. `reason` set = the current
engine gets it wrong (the test is xfail(strict=True)); a fix makes it pass,
and then the reason (and the form's KNOWN_BROKEN entry in test_oracle.py)
goes. tests/oracle/README.md lists them."""
from typing import Dict, NamedTuple, Optional

HEAD = '''import dataclasses
import tilelang
import tilelang.language as T
from tilelang import PassConfigKey


def build(M):
    @T.prim_func
    def main(A: T.Tensor((M,), "float16")):
        with T.Kernel(4, is_npu=True) as (cid, vid):
            T.copy(A[0], A[0])
    return main

'''


SIBLING = '''from tilelang import PassConfigKey

SHARED = {PassConfigKey.TL_ASCEND_AUTO_SYNC: False}
'''


HELPERS = '''import contextlib

import tilelang
import tvm
from tilelang import PassConfigKey

SYNC = PassConfigKey.TL_ASCEND_AUTO_SYNC
PLAN = PassConfigKey.TL_ASCEND_MEMORY_PLANNING
DEFAULTS = {SYNC: False}


def compile_with_sync(func, cfg):
    cfg[SYNC] = True
    return tilelang.compile(func, pass_configs=cfg)


def compile_defaults(func):
    return tilelang.compile(func, pass_configs=DEFAULTS)


def compile_restoring(func):
    old = DEFAULTS[SYNC]
    DEFAULTS[SYNC] = True
    try:
        return tilelang.compile(func, pass_configs=DEFAULTS)
    finally:
        DEFAULTS[SYNC] = old


def jit_with(func, cfg):
    return tilelang.jit(out_idx=[-1], pass_configs=cfg)(func)


def lower_here(func):
    return tilelang.lower(func)


@contextlib.contextmanager
def passes(**switches):
    DEFAULTS[PLAN] = True
    config = {PassConfigKey[name]: on for name, on in switches.items()}
    with tvm.transform.PassContext(opt_level=3, config=config):
        yield


class Scoped:
    def __init__(self, cfg):
        self.ctx = tvm.transform.PassContext(config=cfg)

    def __enter__(self):
        self.ctx.__enter__()
        return self

    def __exit__(self, *exc):
        DEFAULTS[SYNC] = True
        self.ctx.__exit__(*exc)
'''

SECOND = '''import tilelang
from gen_helpers import compile_defaults


def compile_twice(func, other, cfg):
    first = compile_defaults(func)
    return first, tilelang.compile(other, pass_configs=cfg)
'''


PASSES = '''"""Pass contexts for lowering (a helper module)."""
import contextlib

import tvm













@contextlib.contextmanager
def passes(cfg):
    with tvm.transform.PassContext(opt_level=3, config=cfg):  # line 20: a jit decorator's line in main
        yield
'''


JITS = '''"""A jit preset (a helper module)."""
import tilelang
from tilelang import PassConfigKey

AUTO = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}



















def npu_jit(**options):
    return tilelang.jit(out_idx=[-1], pass_configs=AUTO, **options)  # line 20: another compile in main
'''


class Case(NamedTuple):
    name: str
    body: str
    reason: Optional[str]  # what the engine gets wrong; None once it agrees
    siblings: Dict[str, str] = {}

    @property
    def source(self):
        return HEAD + self.body


CASES = [
    Case("jit_factory_called_before_mutation", '''
CFG = {}


@tilelang.jit(out_idx=[-1], pass_configs=CFG)
def make(M):
    return build(M)


kernel = make(64)
CFG[PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE] = True
''', None),

    Case("finally_after_return_mutates_returned_dict", '''
def make_cfg():
    cfg = {}
    try:
        return cfg
    finally:
        cfg[PassConfigKey.TL_ASCEND_AUTO_SYNC] = True


kernel = tilelang.compile(build(1), pass_configs=make_cfg())
''', None),

    Case("try_raise_runs_the_handler", '''
CFG = {}
make = tilelang.jit(pass_configs=CFG)(build)
try:
    CFG[PassConfigKey.TL_ASCEND_AUTO_SYNC] = True
    raise ValueError("no device")
except ValueError:
    CFG[PassConfigKey.TL_ASCEND_AUTO_SYNC] = False
''', None),

    Case("while_continue_skips_first_store", '''
CFG = {}
n = 0
while n < 2:
    n += 1
    if n == 1:
        continue
    CFG[PassConfigKey.TL_ASCEND_AUTO_SYNC] = True
kernel = tilelang.compile(build(1), pass_configs=CFG)
''', None),

    Case("dataclass_positional_constructor_arg", '''
@dataclasses.dataclass
class Knobs:
    sync: bool = True

    def to_configs(self):
        return {PassConfigKey.TL_ASCEND_AUTO_SYNC: self.sync}


kernel = tilelang.compile(build(1), pass_configs=Knobs(False).to_configs())
''', None),

    Case("dataclass_keyword_constructor_arg", '''
@dataclasses.dataclass
class Knobs:
    sync: bool = True

    def to_configs(self):
        return {PassConfigKey.TL_ASCEND_AUTO_SYNC: self.sync}


kernel = tilelang.compile(build(1), pass_configs=Knobs(sync=False).to_configs())
''', None),

    Case("passconfigkey_call_by_value_as_key", '''
CFG = {PassConfigKey.TL_ASCEND_AUTO_CV_SYNC: True}
CFG[PassConfigKey("tl.ascend_auto_cross_core_sync")] = False
kernel = tilelang.compile(build(1), pass_configs=CFG)
''', None),

    Case("compile_in_dead_branch", '''
SLOW = False
CFG = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}
if SLOW:
    kernel = tilelang.compile(build(1), pass_configs=CFG)
kernel = tilelang.compile(build(2))
''', None),

    Case("undecided_factory_branch_attributes_site_to_both_kernels", '''
import sys


def build2(M, fast=sys.getrecursionlimit() > 10 ** 9):
    @T.prim_func
    def fast_kernel(A: T.Tensor((M,), "float16")):
        with T.Kernel(4, is_npu=True) as (cid, vid):
            T.copy(A[0], A[0])

    @T.prim_func
    def slow_kernel(A: T.Tensor((M,), "float16")):
        with T.Kernel(4, is_npu=True) as (cid, vid):
            T.copy(A[0], A[0])

    if fast:
        return fast_kernel
    return slow_kernel


kernel = tilelang.compile(build2(128), pass_configs={PassConfigKey.TL_ASCEND_AUTO_SYNC: True})
''', None),

    Case("imported_dict_mutated_after_from_import", '''
from gen_cfg import SHARED

SHARED[PassConfigKey.TL_ASCEND_AUTO_SYNC] = True
kernel = tilelang.compile(build(1), pass_configs=SHARED)
''', None,
         {"gen_cfg": SIBLING}),

    Case("imported_module_dict_mutated_through_attribute", '''
import gen_cfg

CFG = {}
gen_cfg.SHARED[PassConfigKey.TL_ASCEND_AUTO_SYNC] = True
CFG.update(gen_cfg.SHARED)
kernel = tilelang.compile(build(1), pass_configs=CFG)
''', None,
         {"gen_cfg": SIBLING}),

    Case("imported_dict_copied_before_mutation", '''
import gen_cfg

CFG = dict(gen_cfg.SHARED)
gen_cfg.SHARED[PassConfigKey.TL_ASCEND_AUTO_SYNC] = True
kernel = tilelang.compile(build(1), pass_configs=CFG)
''', None, {"gen_cfg": SIBLING}),

    Case("del_of_a_missing_key_raises", '''
CFG = {}
try:
    del CFG[PassConfigKey.TL_ASCEND_AUTO_CV_SYNC]
    CFG[PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE] = True
except KeyError:
    pass
kernel = tilelang.compile(build(1), pass_configs=CFG)
''', None),

    Case("pop_of_a_missing_key_raises", '''
CFG = {}
try:
    CFG.pop(PassConfigKey.TL_ASCEND_AUTO_CV_SYNC)
    CFG[PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE] = True
except KeyError:
    CFG[PassConfigKey.TL_ASCEND_AUTO_SYNC] = True
kernel = tilelang.compile(build(1), pass_configs=CFG)
''', None),

    Case("contextlib_suppress_skips_the_rest_of_the_block", '''
import contextlib

CFG = {}
with contextlib.suppress(KeyError):
    del CFG[PassConfigKey.TL_ASCEND_AUTO_CV_SYNC]
    CFG[PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE] = True
kernel = tilelang.compile(build(1), pass_configs=CFG)
''', None),

    Case("setattr_builtin_on_an_instance", '''
class Holder:
    sync = False


h = Holder()
setattr(h, "sync", True)
kernel = tilelang.compile(build(1), pass_configs={PassConfigKey.TL_ASCEND_AUTO_SYNC: getattr(h, "sync")})
''', None),

    Case("setattr_builtin_on_a_class", '''
class Holder:
    sync = False


h = Holder()
setattr(Holder, "sync", True)
kernel = tilelang.compile(build(1), pass_configs={PassConfigKey.TL_ASCEND_AUTO_SYNC: h.sync})
''', None),

    Case("attribute_store_on_instance_and_class", '''
class Holder:
    sync = False


h = Holder()
h.sync = True
Holder.sync = False
kernel = tilelang.compile(build(1), pass_configs={PassConfigKey.TL_ASCEND_AUTO_SYNC: h.sync})
''', None),

    Case("pass_context_config_mutated_through_an_alias", '''
import tvm

CFG = {}
alias = CFG
alias[PassConfigKey.TL_ASCEND_AUTO_SYNC] = True
with tvm.transform.PassContext(opt_level=3, config=CFG):
    artifact = tilelang.lower(build(1))
''', None),

    Case("pass_context_config_mutated_by_a_function", '''
import tvm

CFG = {}


def enable_sync(cfg):
    cfg[PassConfigKey.TL_ASCEND_AUTO_SYNC] = True


enable_sync(CFG)
with tvm.transform.PassContext(opt_level=3, config=CFG):
    artifact = tilelang.lower(build(1))
''', None),

    Case("compile_config_mutated_through_an_alias", '''
CFG = {}
alias = CFG
alias[PassConfigKey.TL_ASCEND_AUTO_SYNC] = True
kernel = tilelang.compile(build(1), pass_configs=CFG)
''', None),

    # agreements kept as guards (no reason: they must stay green)
    Case("finally_after_return_of_a_copy", '''
def make_cfg():
    cfg = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}
    try:
        return dict(cfg)
    finally:
        cfg[PassConfigKey.TL_ASCEND_AUTO_SYNC] = False


kernel = tilelang.compile(build(1), pass_configs=make_cfg())
''', None),

    Case("while_else_after_break", '''
CFG = {}
n = 0
while n < 2:
    n += 1
    if n == 1:
        break
    CFG[PassConfigKey.TL_ASCEND_AUTO_SYNC] = True
else:
    CFG[PassConfigKey.TL_ASCEND_AUTO_CV_SYNC] = True
kernel = tilelang.compile(build(1), pass_configs=CFG)
''', None),
    # issue #19 form 6: compiles and PassContexts inside another module's helpers (guards)
    Case("helper_mutates_the_callers_dict_then_compiles", '''
from gen_helpers import compile_with_sync

CFG = {PassConfigKey.TL_ASCEND_AUTO_SYNC: False}
first = compile_with_sync(build(1), CFG)
second = tilelang.compile(build(2), pass_configs=CFG)
''', None, {"gen_helpers": HELPERS}),

    Case("helper_compile_in_an_undecided_branch", '''
import sys
from gen_helpers import compile_with_sync

CFG = {}
if len(sys.argv) < 5:
    first = compile_with_sync(build(1), CFG)
second = tilelang.compile(build(2), pass_configs=CFG)
''', None, {"gen_helpers": HELPERS}),

    Case("helper_finally_restores_its_module_dict", '''
import gen_helpers

first = gen_helpers.compile_restoring(build(1))
second = gen_helpers.compile_defaults(build(2))
''', None, {"gen_helpers": HELPERS}),

    Case("helper_returns_a_jit_wrapper_called_later", '''
from gen_helpers import jit_with

CFG = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}
make = jit_with(build, CFG)
early = make(64)
CFG[PassConfigKey.TL_ASCEND_AUTO_SYNC] = False
late = make(128)
''', None, {"gen_helpers": HELPERS}),

    Case("helper_lowers_under_the_callers_pass_context", '''
import tvm
from gen_helpers import lower_here

with tvm.transform.PassContext(config={PassConfigKey.TL_ASCEND_AUTO_SYNC: True}):
    inside = lower_here(build(1))
outside = lower_here(build(2))
''', None, {"gen_helpers": HELPERS}),

    Case("generator_context_manager_mutates_before_its_yield", '''
from gen_helpers import DEFAULTS, compile_defaults, passes

with passes(TL_ASCEND_AUTO_SYNC=True):
    inside = tilelang.lower(build(1))
after = compile_defaults(build(2))
''', None, {"gen_helpers": HELPERS}),

    Case("class_context_manager_exit_mutates", '''
from gen_helpers import DEFAULTS, Scoped, compile_defaults

with Scoped({PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True}):
    inside = tilelang.lower(build(1))
    before_exit = compile_defaults(build(2))
after_exit = compile_defaults(build(3))
''', None, {"gen_helpers": HELPERS}),

    Case("helper_of_a_helper_module", '''
from gen_second import compile_twice

CFG = {PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: True}
pair = compile_twice(build(1), build(2), CFG)
''', None, {"gen_helpers": HELPERS, "gen_second": SECOND}),
    # found by the generator (helper_module): the PassContext a helper of another module
    # entered was placed at its own line, read as a line of the main module (a jit site there)
    Case("context_from_another_module_is_placed_at_the_with", '''
import gen_passes

BASE = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}


@tilelang.jit(out_idx=[-1], pass_configs=BASE)
def make(M):
    return build(M)


def build2(M):
    @T.prim_func
    def other(A: T.Tensor((M,), "float16")):
        with T.Kernel(4, is_npu=True) as (cid, vid):
            T.copy(A[0], A[0])
    return other


with gen_passes.passes({}):
    artifact = tilelang.lower(build2(128))
''', None, {"gen_passes": PASSES}),
    Case("jit_preset_from_another_module_is_placed_at_the_decorator", '''
from gen_jits import npu_jit


def build2(M):
    @T.prim_func
    def other(A: T.Tensor((M,), "float16")):
        with T.Kernel(4, is_npu=True) as (cid, vid):
            T.copy(A[0], A[0])
    return other


kernel2 = tilelang.compile(build2(128), pass_configs={})


@npu_jit()
def make(M):
    return build(M)


kernel = make(64)
''', None, {"gen_jits": JITS}),
    # Loops of unknown length run twice (a value one iteration leaves for the
    # next is seen) unless the first run changed nothing outside its frame's
    # names: each of these changes something through a call, so the second
    # run must happen (with one run, the engine decides the first iteration's
    # value and CPython records both).
    Case("unknown_loop_helper_mutates_the_dict_it_compiles", """
import sys

CFG = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}


def disable(cfg):
    cfg[PassConfigKey.TL_ASCEND_AUTO_SYNC] = False


for step in range(len(sys.argv) + 1):
    kernel = tilelang.compile(build(64), pass_configs=CFG)
    disable(CFG)
""", None),
    Case("unknown_loop_helper_rebinds_a_global", """
import sys

MODE = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}


def switch():
    global MODE
    MODE = {PassConfigKey.TL_ASCEND_AUTO_SYNC: False}


for step in range(len(sys.argv) + 1):
    kernel = tilelang.compile(build(64), pass_configs=MODE)
    switch()
""", None),
    Case("unknown_loop_method_sets_an_attribute", """
import sys


class Tuner:
    def __init__(self):
        self.cfg = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}

    def relax(self):
        self.cfg = {PassConfigKey.TL_ASCEND_AUTO_SYNC: False}


tuner = Tuner()
for step in range(len(sys.argv) + 1):
    kernel = tilelang.compile(build(64), pass_configs=tuner.cfg)
    tuner.relax()
""", None),
    Case("unknown_loop_helper_appends_to_a_list", """
import sys

CONFIGS = [{PassConfigKey.TL_ASCEND_AUTO_SYNC: True}]


def add(configs):
    configs.insert(0, {PassConfigKey.TL_ASCEND_AUTO_SYNC: False})


n = 0
while n <= len(sys.argv):
    kernel = tilelang.compile(build(64), pass_configs=CONFIGS[0])
    add(CONFIGS)
    n += 1
""", None),
    Case("unknown_loop_in_a_loop_mutates_before_the_inner_loop_reads", """
import sys

CFG = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}


def disable(cfg):
    cfg[PassConfigKey.TL_ASCEND_AUTO_SYNC] = False


for outer in range(len(sys.argv) + 1):
    for inner in range(len(sys.argv)):
        kernel = tilelang.compile(build(64), pass_configs=CFG)
    disable(CFG)
""", None),
    Case("unknown_loop_pure_reference_code_runs_once", """
import sys
import math

CFG = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}


def reference(xs):
    total = 0
    for i in range(len(xs)):
        for j in range(i):
            total += math.sqrt(abs(xs[i] - xs[j]))
    return total


for step in range(len(sys.argv) + 1):
    score = reference([step, 2, 3])
    kernel = tilelang.compile(build(64), pass_configs=CFG)
""", None),
    # Code run from a string, and namespaces handed out as dicts: the engine
    # does not read them, so every name of the module (and what the running
    # frames hold) is unknown after them, never the value from before.
    Case("namespace_exec_rewrites_the_config", """
CFG = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}
exec("CFG[PassConfigKey.TL_ASCEND_AUTO_SYNC] = False")
kernel = tilelang.compile(build(64), pass_configs=CFG)
""", None),
    Case("namespace_globals_rebinds_the_config", """
CFG = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}


def relax():
    globals()["CFG"] = {PassConfigKey.TL_ASCEND_AUTO_SYNC: False}


relax()
kernel = tilelang.compile(build(64), pass_configs=CFG)
""", None),
    Case("namespace_vars_writes_an_attribute", """
class Options:
    pass


opts = Options()
opts.cfg = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}
vars(opts)["cfg"] = {PassConfigKey.TL_ASCEND_AUTO_SYNC: False}
kernel = tilelang.compile(build(64), pass_configs=opts.cfg)
""", None),
    Case("namespace_eval_with_a_walrus", """
CFG = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}
eval("CFG.update({PassConfigKey.TL_ASCEND_AUTO_SYNC: False})")
kernel = tilelang.compile(build(64), pass_configs=CFG)
""", None),
    Case("namespace_sys_modules_setattr_rebinds_the_config", """
import sys

CFG = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}
setattr(sys.modules[__name__], "CFG", {PassConfigKey.TL_ASCEND_AUTO_SYNC: False})
kernel = tilelang.compile(build(64), pass_configs=CFG)
""", None),
    # A generator's or coroutine's body runs when it is iterated or awaited,
    # with the state of that moment, not when the function is called.
    Case("deferred_coroutine_compiles_when_it_is_run", """
import asyncio

CFG = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}


async def compile_all():
    return tilelang.compile(build(64), pass_configs=CFG)


pending = compile_all()
CFG[PassConfigKey.TL_ASCEND_AUTO_SYNC] = False
kernel = asyncio.run(pending)
""", None),
    Case("deferred_generator_compiles_when_it_is_iterated", """
CFG = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}


def compile_all():
    yield tilelang.compile(build(64), pass_configs=CFG)


pending = compile_all()
CFG[PassConfigKey.TL_ASCEND_AUTO_SYNC] = False
kernels = list(pending)
""", None),
    Case("deferred_coroutine_awaited_in_another", """
import asyncio

CFG = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}


async def build_one():
    return tilelang.compile(build(64), pass_configs=CFG)


async def main():
    job = build_one()
    CFG[PassConfigKey.TL_ASCEND_AUTO_SYNC] = False
    return await job


asyncio.run(main())
""", None),
    # `nonlocal`: the enclosing function's name is rebound, not a module name.
    Case("nonlocal_rebinds_the_enclosing_functions_config", """
def runner():
    cfg = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}

    def relax():
        nonlocal cfg
        cfg = {PassConfigKey.TL_ASCEND_AUTO_SYNC: False}

    relax()
    return tilelang.compile(build(64), pass_configs=cfg)


cfg = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}
kernel = runner()
other = tilelang.compile(build(64), pass_configs=cfg)
""", None),
    # Dicts changed through calls the engine does not model, or under a key it
    # does not know: the switch is unknown afterwards, never the old value.
    Case("mutation_through_library_calls_and_dunder_methods", """
import operator
import sys

A = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}
operator.setitem(A, PassConfigKey.TL_ASCEND_AUTO_SYNC, False)
k1 = tilelang.compile(build(64), pass_configs=A)

B = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}
dict.update(B, {PassConfigKey.TL_ASCEND_AUTO_SYNC: False})
k2 = tilelang.compile(build(64), pass_configs=B)

C = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}
setter = C.__setitem__
setter(PassConfigKey.TL_ASCEND_AUTO_SYNC, False)
k3 = tilelang.compile(build(64), pass_configs=C)

D = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}
D.__ior__({PassConfigKey.TL_ASCEND_AUTO_SYNC: False})
k4 = tilelang.compile(build(64), pass_configs=D)

E = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}
E[sys.argv[0] if len(sys.argv) > 99 else "tl.ascend_auto_sync"] = False
k5 = tilelang.compile(build(64), pass_configs=E)
""", None),
    Case("list_changed_by_del_slices_and_maybe_stores", """
import sys

ON = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}
OFF = {PassConfigKey.TL_ASCEND_AUTO_SYNC: False}

L1 = [ON, OFF]
del L1[0]
k1 = tilelang.compile(build(64), pass_configs=L1[0])

L2 = [ON]
L2[:] = [OFF]
k2 = tilelang.compile(build(64), pass_configs=L2[0])

L3 = [ON, OFF]
L3[0:1] = []
k3 = tilelang.compile(build(64), pass_configs=L3[0])

L4 = [ON]
if len(sys.argv) < 99:
    L4[0] = OFF
k4 = tilelang.compile(build(64), pass_configs=L4[0])
""", None),
    Case("instance_and_class_state_through_dunders_and_setters", """
class Opts:
    def __init__(self):
        self.cfg = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}


o1 = Opts()
o1.__dict__["cfg"] = {PassConfigKey.TL_ASCEND_AUTO_SYNC: False}
k1 = tilelang.compile(build(64), pass_configs=o1.cfg)


class Shared:
    cfg = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}

    def relax(self):
        self.__class__.cfg = {PassConfigKey.TL_ASCEND_AUTO_SYNC: False}


Shared().relax()
k2 = tilelang.compile(build(64), pass_configs=Shared.cfg)


class Inverting:
    def __init__(self):
        self._cfg = {PassConfigKey.TL_ASCEND_AUTO_SYNC: False}

    @property
    def cfg(self):
        return self._cfg

    @cfg.setter
    def cfg(self, value):
        self._cfg = {k: not v for k, v in value.items()}


w = Inverting()
w.cfg = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}
k3 = tilelang.compile(build(64), pass_configs=w.cfg)
""", None),
    Case("container_handed_to_something_unknown", """
import contextlib

CFG = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}
stack = contextlib.ExitStack()
stack.callback(CFG.update, {PassConfigKey.TL_ASCEND_AUTO_SYNC: False})
stack.close()
kernel = tilelang.compile(build(64), pass_configs=CFG)
""", None),
    Case("function_handed_to_map_and_sorted_changes_the_config", """
CFG = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}
list(map(lambda k: CFG.update({k: False}), [PassConfigKey.TL_ASCEND_AUTO_SYNC]))
k1 = tilelang.compile(build(64), pass_configs=CFG)

OTHER = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}


def relax(item):
    OTHER[PassConfigKey.TL_ASCEND_AUTO_SYNC] = False
    return item


ordered = sorted([2, 1], key=relax)
k2 = tilelang.compile(build(64), pass_configs=OTHER)
""", None),
    Case("keys_and_import_time_effects_of_other_modules", """
import operator

from keys import MODE
import switcher  # noqa: F401
import keys

LOCAL = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}
LOCAL[keys.SYNC] = False
k1 = tilelang.compile(build(64), pass_configs=LOCAL)
k2 = tilelang.compile(build(64), pass_configs=keys.SHARED)
k3 = tilelang.compile(build(64), pass_configs={keys.SYNC: MODE == "auto"})
operator.setitem(keys.OTHER, keys.SYNC, False)
k4 = tilelang.compile(build(64), pass_configs=keys.OTHER)
""", None, siblings={
        "keys": "import tilelang\n\nSYNC = tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC\n"
                "SHARED = {SYNC: True}\nOTHER = {SYNC: True}\nMODE = 'auto'\n",
        "switcher": "import keys\n\nkeys.SHARED[keys.SYNC] = False\nkeys.MODE = 'manual'\n",
    }),
    Case("properties_run_their_getter_and_setter", """
class Opts:
    def __init__(self, manual):
        self._manual = manual
        self.reads = 0

    @property
    def configs(self):
        self.reads += 1
        return {PassConfigKey.TL_ASCEND_AUTO_SYNC: not self._manual,
                PassConfigKey.TL_ASCEND_MEMORY_PLANNING: self.reads > 1}

    @property
    def manual(self):
        return self._manual

    @manual.setter
    def manual(self, value):
        self._manual = value


o = Opts(False)
k1 = tilelang.compile(build(64), pass_configs=o.configs)
o.manual = True
k2 = tilelang.compile(build(64), pass_configs=o.configs)
k3 = tilelang.compile(build(64), pass_configs={PassConfigKey.TL_ASCEND_AUTO_SYNC: o.manual})
""", None),
    Case("global_and_nonlocal_written_in_a_branch_that_may_not_run", """
import os

AUTO = True


def configure(mode):
    global AUTO
    if mode == "manual":
        AUTO = False


configure(os.environ.get("TL_ORACLE_UNSET_MODE", "auto"))
k1 = tilelang.compile(build(64), pass_configs={PassConfigKey.TL_ASCEND_AUTO_SYNC: AUTO})


def outer(flag):
    state = True

    def flip():
        nonlocal state
        if flag:
            state = False

    flip()
    return {PassConfigKey.TL_ASCEND_AUTO_SYNC: state}


k2 = tilelang.compile(build(64), pass_configs=outer(os.environ.get("TL_ORACLE_UNSET_FLAG") == "1"))
""", None),
    Case("effects_under_short_circuit_and_unknown_comprehensions", """
import os

CFG = {PassConfigKey.TL_ASCEND_AUTO_SYNC: False}


def enable():
    CFG[PassConfigKey.TL_ASCEND_AUTO_SYNC] = True
    return True


ready = os.getcwd() and enable()  # a path: truthy, not known statically
k1 = tilelang.compile(build(64), pass_configs=CFG)

OTHER = {PassConfigKey.TL_ASCEND_AUTO_SYNC: False}
[OTHER.update({PassConfigKey.TL_ASCEND_AUTO_SYNC: True}) for _ in os.getcwd()[:1]]
k2 = tilelang.compile(build(64), pass_configs=OTHER)
""", None),
    Case("assert_runs_its_test", """
CFG = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}


def relax():
    CFG[PassConfigKey.TL_ASCEND_AUTO_SYNC] = False
    return True


assert relax()
k1 = tilelang.compile(build(64), pass_configs=CFG)
assert tilelang.compile(build(64), pass_configs={PassConfigKey.TL_ASCEND_AUTO_SYNC: True}) is not None
""", None),
    Case("generator_consumed_by_any_stops_early_and_walrus_binds_outside", """
CFG = {PassConfigKey.TL_ASCEND_AUTO_SYNC: False}
KEYS = ["first", "second"]


def enable(name):
    CFG[PassConfigKey.TL_ASCEND_AUTO_SYNC] = name == "second"
    return True


ready = any(enable(k) for k in KEYS)
k1 = tilelang.compile(build(64), pass_configs=CFG)
picked = None
[(picked := k) for k in KEYS]
k2 = tilelang.compile(build(64), pass_configs={PassConfigKey.TL_ASCEND_AUTO_SYNC: picked == "second"})
""", None),
    Case("contextmanager_code_after_yield_runs_at_exit", """
import contextlib

CFG = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}


@contextlib.contextmanager
def overridden(cfg, key, value):
    old = cfg[key]
    cfg[key] = value
    try:
        yield cfg
    finally:
        cfg[key] = old


with overridden(CFG, PassConfigKey.TL_ASCEND_AUTO_SYNC, False) as inner:
    k1 = tilelang.compile(build(64), pass_configs=inner)
k2 = tilelang.compile(build(64), pass_configs=CFG)
""", None),
    Case("key_popped_in_a_suppress_body_then_read_in_a_try", """
import contextlib

BASE = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}
SEEN = {PassConfigKey.TL_ASCEND_AUTO_CV_SYNC: True}
with contextlib.suppress(KeyError):
    SEEN.pop(PassConfigKey.TL_ASCEND_AUTO_CV_SYNC)   # may raise: the key may be gone or not
    BASE[PassConfigKey.TL_ASCEND_AUTO_SYNC] = True
try:
    _seen = SEEN["tl.ascend_auto_cross_core_sync"]  # a KeyError where the module runs
    BASE[PassConfigKey.TL_ASCEND_AUTO_SYNC] = True
except KeyError:
    BASE[PassConfigKey.TL_ASCEND_AUTO_SYNC] = False
k1 = tilelang.compile(build(64), pass_configs=BASE)
""", None),
    Case("compile_site_reached_again_through_a_name_globals_rebound", """
EXPERT = {PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: False}
COMBINE = {PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: True}
for name, cfg in (("expert", EXPERT), ("combine", COMBINE)):
    # after the first turn every module name is unknown: the second compile is not followed
    globals()[name + "_kernel"] = tilelang.compile(build(64), pass_configs=cfg)
""", None),
    Case("registry_keyed_by_the_class_name_in_init_subclass", """
REGISTRY = {}


class Base:
    pass_configs = {PassConfigKey.TL_ASCEND_AUTO_SYNC: False}

    def __init_subclass__(cls):
        REGISTRY[cls.__name__] = cls

    def build(self):
        return tilelang.compile(build(64), pass_configs=self.pass_configs)


class Fused(Base):
    pass_configs = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}


Base().build()
REGISTRY["Fused"]().build()   # cls.__name__ was unknown: this compile was lost, the site decided off
""", None),
    Case("class_read_through_globals_then_its_method_called", """
class Base:
    pass_configs = {PassConfigKey.TL_ASCEND_AUTO_SYNC: False}

    def build(self):
        return tilelang.compile(build(64), pass_configs=self.pass_configs)


class Fused(Base):
    pass_configs = {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}


Base().build()
globals()["Fused"]().build()   # a class handed out: its methods may run with what is not known
""", None),
    Case("defaultdict_factory_hands_back_a_module_dict", """
import collections

DEFAULT = {PassConfigKey.TL_ASCEND_AUTO_SYNC: False}
PER_KERNEL = collections.defaultdict(lambda: DEFAULT)
PER_KERNEL["softmax"][PassConfigKey.TL_ASCEND_AUTO_SYNC] = True   # DEFAULT itself
k1 = tilelang.compile(build(64), pass_configs=DEFAULT)
""", None),
    Case("dict_update_handed_to_map_and_a_thread", """
import concurrent.futures
import threading

CFG = {PassConfigKey.TL_ASCEND_AUTO_SYNC: False}
list(map(CFG.update, [{PassConfigKey.TL_ASCEND_AUTO_SYNC: True}]))
k1 = tilelang.compile(build(64), pass_configs=CFG)
CFG2 = {PassConfigKey.TL_ASCEND_AUTO_SYNC: False}
probe = threading.Thread(target=CFG2.update, kwargs={"tl.ascend_auto_sync": True})
probe.start()
probe.join()
k2 = tilelang.compile(build(64), pass_configs=CFG2)
CFG3 = {PassConfigKey.TL_ASCEND_AUTO_SYNC: False}
with concurrent.futures.ThreadPoolExecutor(1) as pool:
    list(pool.map(CFG3.update, [{PassConfigKey.TL_ASCEND_AUTO_SYNC: True}]))
k3 = tilelang.compile(build(64), pass_configs=CFG3)
""", None),
    Case("pass_context_and_contextmanager_entered_through_an_exit_stack", """
import contextlib

import tvm

CFG = {PassConfigKey.TL_ASCEND_AUTO_SYNC: False}


@contextlib.contextmanager
def flip(value):
    old = CFG[PassConfigKey.TL_ASCEND_AUTO_SYNC]
    CFG[PassConfigKey.TL_ASCEND_AUTO_SYNC] = value
    try:
        yield CFG
    finally:
        CFG[PassConfigKey.TL_ASCEND_AUTO_SYNC] = old


with contextlib.ExitStack() as stack:
    stack.enter_context(tvm.transform.PassContext(config={PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True}))
    lowered = tilelang.lower(build(64))                       # planning on: the stack's context
    cfg = stack.enter_context(flip(True))
    k1 = tilelang.compile(build(64), pass_configs=cfg)        # sync on: flip ran to its yield
    stack.callback(CFG.__setitem__, PassConfigKey.TL_ASCEND_MEMORY_PLANNING, True)
k2 = tilelang.compile(build(64), pass_configs=CFG)            # restored, then the callback's store
lowered_after = tilelang.lower(build(64))                     # the stack closed: no context
""", None),
    Case("contextmanager_entered_and_left_by_hand", """
import contextlib

CFG = {PassConfigKey.TL_ASCEND_AUTO_SYNC: False}


@contextlib.contextmanager
def flip(value):
    old = CFG[PassConfigKey.TL_ASCEND_AUTO_SYNC]
    CFG[PassConfigKey.TL_ASCEND_AUTO_SYNC] = value
    try:
        yield
    finally:
        CFG[PassConfigKey.TL_ASCEND_AUTO_SYNC] = old


cm = flip(True)
cm.__enter__()                                                # setUp
k1 = tilelang.compile(build(64), pass_configs=CFG)
cm.__exit__(None, None, None)                                 # tearDown
k2 = tilelang.compile(build(64), pass_configs=CFG)
""", None),
    Case("switch_set_through_a_data_descriptor", """
class Field:
    def __init__(self, key):
        self.key = key

    def __get__(self, obj, objtype=None):
        return obj.configs.get(self.key, False)

    def __set__(self, obj, value):
        obj.configs[self.key] = value


class Opts:
    auto_sync = Field(PassConfigKey.TL_ASCEND_AUTO_SYNC)
    planning = Field(PassConfigKey.TL_ASCEND_MEMORY_PLANNING)

    def __init__(self):
        self.configs = {PassConfigKey.TL_ASCEND_AUTO_SYNC: False}


o = Opts()
o.auto_sync = True                                            # Field.__set__ stores into o.configs
k1 = tilelang.compile(build(64), pass_configs=o.configs)
k2 = tilelang.compile(build(64), pass_configs={PassConfigKey.TL_ASCEND_MEMORY_PLANNING: o.planning})
""", None),
    Case("match_class_patterns_on_classes_of_the_module", """
import dataclasses


class Strategy:
    pass


class Auto(Strategy):
    pass


@dataclasses.dataclass
class Manual(Strategy):
    planning: bool = False


def configs_for(strategy):
    match strategy:
        case Auto():
            return {PassConfigKey.TL_ASCEND_AUTO_SYNC: True}
        case Manual(planning=True):
            return {PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True}
        case Manual(planning=p):
            return {PassConfigKey.TL_ASCEND_MEMORY_PLANNING: p}
        case str():
            return {}
    return None


k1 = tilelang.compile(build(64), pass_configs=configs_for(Auto()))
k2 = tilelang.compile(build(64), pass_configs=configs_for(Manual(True)))
k3 = tilelang.compile(build(64), pass_configs=configs_for(Manual()))
""", None),
]
