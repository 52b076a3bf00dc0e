"""Hypothesis strategies that write small, realistic kernel modules for the
differential oracle.

A program is a module `gen_main.py` (plus, sometimes, a sibling module
`gen_cfg.py` it imports) that builds a few pass_configs dicts with one
*statement form* after another and compiles one to three kernels at sites
placed between those statements. Every compile site is exercised when the
module runs (the driver calls a never-called jit factory afterwards), so the
driver judges it strictly (`strict_sites`). Each statement form is named (see
FORMS); `programs(exclude=...)` leaves forms out.
"""
from __future__ import annotations

import sys

from hypothesis import strategies as st

SWITCH_NAMES = (
    "TL_ASCEND_AUTO_SYNC",
    "TL_ASCEND_MEMORY_PLANNING",
    "TL_ASCEND_AUTO_CV_COMBINE",
    "TL_ASCEND_AUTO_CV_SYNC",
)
RAW = {
    "TL_ASCEND_AUTO_SYNC": "tl.ascend_auto_sync",
    "TL_ASCEND_MEMORY_PLANNING": "tl.ascend_memory_planning",
    "TL_ASCEND_AUTO_CV_COMBINE": "tl.ascend_auto_cv_combine",
    "TL_ASCEND_AUTO_CV_SYNC": "tl.ascend_auto_cross_core_sync",
}
DICTS = ("BASE", "CFG_A", "CFG_B")

HEADER = '''import contextlib
import copy
import dataclasses
import enum
import functools
import operator
import typing

import tilelang
import tilelang.language as T
import tvm
from tilelang import PassConfigKey

FAST = True
SLOW = False
N_CORES = 2
K_SYNC = PassConfigKey.TL_ASCEND_AUTO_SYNC
K_CV = "tl.ascend_auto_cv_combine"
# true when the module runs, unknown to the engine (it does not model id()): the
# "unknown" form's branches, short-circuits and loops the engine cannot decide
RUNTIME_TRUE = id(print) > 0
RUNTIME_ONE = str(id(print))[:1]
'''

SIBLING = '''import tilelang
from tilelang import PassConfigKey

__all__ = ["SHARED", "shared_cfg"]

FAST = True
SLOW = False
N_CORES = 2
K_SYNC = PassConfigKey.TL_ASCEND_AUTO_SYNC
K_CV = "tl.ascend_auto_cv_combine"

SHARED = {
    PassConfigKey.TL_ASCEND_AUTO_SYNC: %s,
    PassConfigKey.TL_ASCEND_MEMORY_PLANNING: %s,
}
HIDDEN = {PassConfigKey.TL_ASCEND_AUTO_CV_SYNC: True}


def shared_cfg(flag):
    cfg = dict(SHARED)
    cfg[PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE] = flag
    return cfg
'''


_NO_KEY_CALL = [False]  # set by programs(exclude={"key_call"}): no PassConfigKey("raw") spelling


def _key(draw, name=None):
    name = name or draw(st.sampled_from(SWITCH_NAMES))
    form = draw(st.integers(0, 7))
    if form == 5 and _NO_KEY_CALL[0]:
        form = 0
    if form == 0:
        return "PassConfigKey.%s" % name
    if form == 1:
        return "tilelang.PassConfigKey.%s" % name
    if form == 2:
        return '"%s"' % RAW[name]
    if form == 3:
        return 'getattr(PassConfigKey, "%s")' % name
    if form == 4:
        return 'PassConfigKey["%s"]' % name
    if form == 5:
        return 'PassConfigKey("%s")' % RAW[name]
    if form == 6 and name == "TL_ASCEND_AUTO_SYNC":
        return "K_SYNC"
    if form == 6 and name == "TL_ASCEND_AUTO_CV_COMBINE":
        return "K_CV"
    if form == 7:  # a raw key put together with str methods
        raw = RAW[name]
        return draw(st.sampled_from((
            '"tl.{}".format("%s")' % raw[3:],
            '".".join(("tl", "%s"))' % raw[3:],
            '"%s|x".split("|")[0]' % raw,
            '"%s@".replace("@", "")' % raw,
            '"  %s ".strip()' % raw,
        )))
    return "PassConfigKey.%s" % name


def _val(draw):
    return draw(st.sampled_from((
        "True", "False", "True", "False", "1", "0", "FAST", "SLOW", "not FAST",
        "N_CORES > 1", "N_CORES == 1", "bool(N_CORES - 2)",
    )))


def _entries(draw, lo=1, hi=3):
    names = draw(st.lists(st.sampled_from(SWITCH_NAMES), min_size=lo, max_size=hi, unique=True))
    return "{%s}" % ", ".join("%s: %s" % (_key(draw, n), _val(draw)) for n in names)


def _ind(lines, n=1):
    return ["    " * n + line if line else line for line in lines]


# -- statement forms: each draws and returns module lines -------------------

def f_setitem(draw, i):
    return ["%s[%s] = %s" % (draw(st.sampled_from(DICTS)), _key(draw), _val(draw))]


def f_update(draw, i):
    d = draw(st.sampled_from(DICTS))
    other = draw(st.sampled_from(DICTS))
    return [draw(st.sampled_from((
        "%s.update(%s)" % (d, _entries(draw)),
        "%s.update(%s)" % (d, other),
        "%s |= %s" % (d, _entries(draw)),
        "%s = %s | %s" % (d, other, _entries(draw)),
        "%s = {**%s, **%s}" % (d, other, _entries(draw)),
        "%s = {**%s, %s: %s}" % (d, other, _key(draw), _val(draw)),
        "%s = dict(%s, **{%s: %s})" % (d, other, _key(draw), _val(draw)),
        "%s = functools.reduce(operator.or_, [%s, %s])" % (d, other, _entries(draw)),
        "%s = functools.reduce(lambda a, b: {**a, **b}, (%s, %s), {})" % (d, other, _entries(draw)),
        "functools.reduce(lambda a, b: a.update(b) or a, [%s, %s])" % (d, _entries(draw)),
    )))]


def f_setdefault_pop_del(draw, i):
    d = draw(st.sampled_from(DICTS))
    k = _key(draw)
    return draw(st.sampled_from((
        ["%s.setdefault(%s, %s)" % (d, k, _val(draw))],
        ["%s.pop(%s, None)" % (d, k)],
        ["if %s in %s:" % (k, d), "    del %s[%s]" % (d, k)],
        ["_popped_%d = %s.pop(%s, %s)" % (i, d, k, _val(draw)),
         "%s[%s] = _popped_%d" % (draw(st.sampled_from(DICTS)), _key(draw), i)],
        ["%s.clear()" % d],
    )))


def f_rebind(draw, i):
    d = draw(st.sampled_from(DICTS))
    other = draw(st.sampled_from(DICTS))
    return [draw(st.sampled_from((
        "%s = %s" % (d, other),                 # an alias: later mutations show through both
        "%s = dict(%s)" % (d, other),
        "%s = %s.copy()" % (d, other),
        "%s = %s" % (d, _entries(draw)),
        "%s = dict.fromkeys([%s, %s], %s)" % (d, _key(draw), _key(draw), _val(draw)),
    )))]


def f_comprehension(draw, i):
    d = draw(st.sampled_from(DICTS))
    other = draw(st.sampled_from(DICTS))
    names = draw(st.lists(st.sampled_from(SWITCH_NAMES), min_size=1, max_size=3, unique=True))
    return [draw(st.sampled_from((
        "%s = {getattr(PassConfigKey, n): %s for n in %r}" % (d, _val(draw), list(names)),
        "%s = {k: v for k, v in %s.items() if v}" % (d, other),
        "%s = {k: not v for k, v in %s.items()}" % (d, other),
        "%s = {PassConfigKey(k): %s for k in %r}" % (d, _val(draw), [RAW[n] for n in names])
        if not _NO_KEY_CALL[0] else "%s = {k: %s for k in %r}" % (d, _val(draw), [RAW[n] for n in names]),
        "%s.update({k: %s for k in [%s]})" % (d, _val(draw), ", ".join(_key(draw, n) for n in names)),
    )))]


def f_for(draw, i):
    d = draw(st.sampled_from(DICTS))
    names = draw(st.lists(st.sampled_from(SWITCH_NAMES), min_size=1, max_size=4, unique=True))
    stop = draw(st.integers(0, len(names)))
    body = ["if _i == %d:" % stop, "    %s" % draw(st.sampled_from(("break", "continue")))]
    if draw(st.booleans()):
        body = ["%s[_k] = %s" % (d, _val(draw))] + body
    else:
        body = body + ["%s[_k] = %s" % (d, _val(draw))]
    lines = ["for _i, _k in enumerate([%s]):" % ", ".join(_key(draw, n) for n in names)] + _ind(body)
    if draw(st.booleans()):
        lines += ["else:", "    %s[%s] = %s" % (d, _key(draw), _val(draw))]
    return lines


def f_while(draw, i):
    """A counting loop with a break or continue; a halving search (`while
    block * n > cap: block //= 2`, as tile-size helpers write it); `while
    True` left by a break; a test that turns unknown after a few iterations
    (or runs past what the engine unrolls); a walrus in the test."""
    d = draw(st.sampled_from(DICTS))
    kind = draw(st.sampled_from(("count", "halve", "true", "turns_unknown", "long", "walrus")))
    k1, v1, k2, v2 = _key(draw), _val(draw), _key(draw), _val(draw)
    n = draw(st.integers(0, 3))
    if kind == "count":
        lines = ["_n%d = 0" % i, "while _n%d < %d:" % (i, n),
                 "    _n%d += 1" % i,
                 "    if _n%d == %d:" % (i, draw(st.integers(1, 3))),
                 "        %s" % draw(st.sampled_from(("break", "continue"))),
                 "    %s[%s] = %s" % (d, k1, v1)]
    elif kind == "halve":
        cap = draw(st.sampled_from((1, 100, 4096, 65536, 1 << 20)))
        lines = ["_b%d = 256" % i, "while _b%d * 1024 > %d:" % (i, cap), "    _b%d //= 2" % i,
                 "    if _b%d < 16:" % i, "        break",
                 "if _b%d >= 64:" % i, "    %s[%s] = %s" % (d, k1, v1)]
        return lines
    elif kind == "true":
        lines = ["_n%d = 0" % i, "while True:", "    _n%d += 1" % i, "    %s[%s] = %s" % (d, k1, v1),
                 "    if _n%d > %d:" % (i, n), "        break"]
    elif kind == "turns_unknown":
        lines = ["_n%d = 0" % i, "while _n%d < %d or RUNTIME_TRUE:" % (i, n), "    _n%d += 1" % i,
                 "    if _n%d > %d:" % (i, n + 1), "        break",
                 "    %s[%s] = %s" % (d, k1, v1)]
    elif kind == "long":
        lines = ["_n%d = 0" % i, "while _n%d < %d:" % (i, 20 + n), "    _n%d += 1" % i,
                 "    if _n%d == %d:" % (i, 17 + n), "        %s[%s] = %s" % (d, k1, v1)]
    else:
        lines = ["_q%d = [%s, %s]" % (i, k1, k2), "while (_k%d := (_q%d.pop() if _q%d else None)) is not None:" % (i, i, i),
                 "    %s[_k%d] = %s" % (d, i, v1)]
    if draw(st.booleans()):
        lines += ["else:", "    %s[%s] = %s" % (d, k2, v2)]
    return lines


def f_try(draw, i):
    d = draw(st.sampled_from(DICTS))
    raise_it = draw(st.booleans())
    other = draw(st.sampled_from(DICTS))
    lines = ["try:", "    " + draw(st.sampled_from((
        "%s[%s] = %s" % (d, _key(draw), _val(draw)),
        "%s.update(%s)" % (d, _entries(draw)),
        "%s.update(%s)" % (d, other),
        "%s.setdefault(%s, %s)" % (d, _key(draw), _val(draw)),
        "%s.pop(%s, None)" % (d, _key(draw)),
        "%s = %s.copy()" % (d, other),
    )))]
    if raise_it:
        lines += ["    raise %s(\"no device\")" % draw(st.sampled_from(("ValueError", "KeyError", "RuntimeError")))]
    elif draw(st.booleans()):
        # a statement that raises where the module runs, which the engine cannot tell
        lines += ["    " + draw(st.sampled_from((
            "int(RUNTIME_ONE + 'x')",
            "{'a': 1}[RUNTIME_ONE]",
            "import tla_surely_missing_module  # noqa: F401",
            "for _n in (%s, RUNTIME_ONE):\n        %s[%s] = _n == 1\n        int(_n)" % ("1", d, _key(draw)),
            "len(RUNTIME_ONE)",
        )))]
    lines += ["    %s[%s] = %s" % (d, _key(draw), _val(draw))]
    lines += ["except (ValueError, KeyError, ImportError):", "    %s[%s] = %s" % (d, _key(draw), _val(draw))]
    lines += ["except RuntimeError:", "    %s" % draw(st.sampled_from(("pass", "%s.clear()" % d)))]
    if draw(st.booleans()):
        lines += ["else:", "    %s[%s] = %s" % (d, _key(draw), _val(draw))]
    if draw(st.booleans()):
        lines += ["finally:", "    %s[%s] = %s" % (d, _key(draw), _val(draw))]
    return lines


def f_return_in_try(draw, i):
    src = draw(st.sampled_from(DICTS))
    d = draw(st.sampled_from(DICTS))
    ret = draw(st.sampled_from(("cfg", "dict(cfg)")))
    lines = ["def _cfg_%d():" % i,
             "    cfg = dict(%s)" % src,
             "    try:",
             "        cfg[%s] = %s" % (_key(draw), _val(draw)),
             "        return %s" % ret,
             "    finally:",
             "        cfg[%s] = %s" % (_key(draw), _val(draw))]
    if draw(st.booleans()):
        lines += ["        %s[%s] = %s" % (src, _key(draw), _val(draw))]
    lines += ["", "", "%s = _cfg_%d()" % (d, i)]
    return lines


def f_function(draw, i):
    d = draw(st.sampled_from(DICTS))
    src = draw(st.sampled_from(DICTS))
    arg = _val(draw)
    lines = ["def _make_%d(flag, base=None):" % i,
             "    cfg = dict(base or {})",
             "    if flag:",
             "        cfg[%s] = True" % _key(draw),
             "    else:",
             "        cfg[%s] = False" % _key(draw),
             "    return cfg",
             "", ""]
    call = draw(st.sampled_from(("_make_%d(%s)" % (i, arg), "_make_%d(%s, %s)" % (i, arg, src),
                                 "_make_%d(flag=%s, base=%s)" % (i, arg, src))))
    lines.append("%s = %s" % (d, call))
    return lines


def f_closure(draw, i):
    d = draw(st.sampled_from(DICTS))
    lines = ["def _preset_%d(value):" % i,
             "    extra = {%s: not value}" % _key(draw),
             "",
             "    def build():",
             "        cfg = {%s: value}" % _key(draw),
             "        cfg.update(extra)",
             "        return cfg",
             "    return build",
             "", ""]
    lines.append(draw(st.sampled_from(("%s = _preset_%d(%s)()" % (d, i, _val(draw)),
                                       "%s.update(_preset_%d(%s)())" % (d, i, _val(draw))))))
    return lines


def f_decorator(draw, i):
    d = draw(st.sampled_from(DICTS))
    lines = ["def _force_%d(fn):" % i,
             "    @functools.wraps(fn)",
             "    def wrapper(*args, **kwargs):",
             "        cfg = fn(*args, **kwargs)",
             "        cfg[%s] = %s" % (_key(draw), _val(draw)),
             "        return cfg",
             "    return wrapper",
             "", "",
             "@_force_%d" % i,
             "def _cfg_%d(flag):" % i,
             "    return {%s: flag}" % _key(draw),
             "", "",
             "%s = _cfg_%d(%s)" % (d, i, _val(draw))]
    return lines


def f_partial(draw, i):
    d = draw(st.sampled_from(DICTS))
    lines = ["def _pair_%d(a, b):" % i,
             "    return {%s: a, %s: b}" % (_key(draw, "TL_ASCEND_AUTO_SYNC"), _key(draw, "TL_ASCEND_AUTO_CV_COMBINE")),
             "", "",
             ""]
    if draw(st.booleans()):  # bind b by keyword, pass a
        lines += ["_half_%d = functools.partial(_pair_%d, b=%s)" % (i, i, _val(draw)),
                  "%s = _half_%d(%s)" % (d, i, draw(st.sampled_from(("a=" + _val(draw), _val(draw)))))]
    else:  # bind a by position, pass b
        lines += ["_half_%d = functools.partial(_pair_%d, %s)" % (i, i, _val(draw)),
                  "%s = _half_%d(%s)" % (d, i, draw(st.sampled_from(("b=" + _val(draw), _val(draw)))))]
    return lines


def f_class(draw, i):
    d = draw(st.sampled_from(DICTS))
    lines = ["class _Opts%d:" % i,
             "    sync = %s" % _val(draw),
             "    combine = %s" % _val(draw),
             "",
             "    def __init__(self, sync=None):",
             "        if sync is not None:",
             "            self.sync = sync",
             "",
             "    def as_configs(self):",
             "        return {PassConfigKey.TL_ASCEND_AUTO_SYNC: self.sync,",
             "                PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: self.combine}",
             "", ""]
    ctor = draw(st.sampled_from(("_Opts%d()" % i, "_Opts%d(%s)" % (i, _val(draw)),
                                 "_Opts%d(sync=%s)" % (i, _val(draw)))))
    if draw(st.booleans()):
        lines += ["_opts_%d = %s" % (i, ctor), "_opts_%d.combine = %s" % (i, _val(draw)),
                  "%s = _opts_%d.as_configs()" % (d, i)]
    else:
        lines += ["%s = %s.as_configs()" % (d, ctor)]
    return lines


def f_super(draw, i):
    """A subclass whose methods reach its base's through `super()` (zero
    arguments or `super(Cls, self)`): `__init__` before or after its own
    assignments, a method whose result it extends, a classmethod."""
    d = draw(st.sampled_from(DICTS))
    call = draw(st.sampled_from(("super()", "super(_Sub%d, self)" % i)))
    own = "        self.cfg[%s] = %s" % (_key(draw), _val(draw))
    init = ["        %s.__init__()" % call]
    body = [own] + init if draw(st.booleans()) else init + [own]
    lines = ["class _Base%d:" % i,
             "    def __init__(self):",
             "        self.cfg = {%s: %s}" % (_key(draw), _val(draw)),
             "",
             "    def extra(self):",
             "        return {%s: %s}" % (_key(draw), _val(draw)),
             "",
             "    @classmethod",
             "    def preset(cls):",
             "        return {%s: cls.FLAG}" % _key(draw),
             "", "",
             "class _Sub%d(_Base%d):" % (i, i),
             "    FLAG = %s" % _val(draw),
             "",
             "    def __init__(self):",
             "        self.cfg = {}"] + body + [
             "",
             "    def extra(self):",
             "        out = %s.extra()" % call,
             "        out[%s] = %s" % (_key(draw), _val(draw)),
             "        return out",
             "",
             "    @classmethod",
             "    def preset(cls):",
             "        return dict(super().preset())",
             "", ""]
    lines += draw(st.sampled_from((
        ["%s.update(_Sub%d().cfg)" % (d, i)],
        ["%s.update(_Sub%d().extra())" % (d, i)],
        ["%s.update(_Sub%d.preset())" % (d, i)],
    )))
    return lines


def f_cache(draw, i):
    """A config helper behind `functools.lru_cache` / `functools.cache`: the
    dict a call returns is the one a later call with the same arguments
    returns (changed in between, maybe), a different spelling of the
    arguments is another entry, a small maxsize evicts, `cache_clear`."""
    d = draw(st.sampled_from(DICTS))
    deco = draw(st.sampled_from(("@functools.cache", "@functools.lru_cache", "@functools.lru_cache(maxsize=None)",
                                 "@functools.lru_cache(maxsize=1)", "@functools.lru_cache(2, typed=True)")))
    k1, k2 = _key(draw), _key(draw)
    first = draw(st.sampled_from(("True", "False", "1", "flag=True")))
    later = draw(st.sampled_from(("True", "False", "1", "flag=True", "RUNTIME_TRUE")))
    lines = [deco, "def _cfg_%d(flag):" % i, "    return {%s: flag}" % k1, "", ""]
    first_call = ["_c%d = _cfg_%d(%s)" % (i, i, first), "_c%d[%s] = %s" % (i, k2, _val(draw))]
    if draw(st.booleans()):
        lines += first_call
    else:  # made in a branch the engine cannot decide: the entry may be there or not
        lines += ["if RUNTIME_TRUE:"] + ["    " + x for x in first_call]
    if draw(st.booleans()):
        lines.append("_cfg_%d(%s)" % (i, draw(st.sampled_from(("False", "0", "2", "flag=False")))))
    if draw(st.booleans()):
        lines.append("_cfg_%d.cache_clear()" % i)
    lines.append("%s.update(_cfg_%d(%s))" % (d, i, later))
    return lines


def f_alias(draw, i):
    """A dict reached through a value the engine cannot tell (a preset
    picked by a runtime key, `max(..., key=...)`, one of two dicts joined
    by a runtime branch, a slice, `copy.copy` of a table, a handler picked
    by a runtime key) and changed through it: the dict the module compiles
    with may be the one changed."""
    d = draw(st.sampled_from(DICTS))
    k, v = _key(draw), _val(draw)
    pick = draw(st.sampled_from(("_t%d[RUNTIME_ONE]" % i, "_t%d.get(RUNTIME_ONE, %s)" % (i, d),
                                 "max((%s, _t%d['1']), key=len)" % (d, i),
                                 "(%s if RUNTIME_TRUE else _t%d['1'])" % (d, i),
                                 "[%s, _t%d['1']][-1:][0]" % (d, i),
                                 "copy.copy({'x': %s})['x']" % d, "copy.deepcopy(%s)" % d,
                                 "copy.copy(%s)" % d, "copy.deepcopy([%s, %s])[1]" % (d, d))))
    lines = ["_t%d = {'1': %s, '2': {%s: %s}}" % (i, d, _key(draw), _val(draw))]
    form = draw(st.integers(0, 2))
    if form == 0:
        lines += ["_p%d = %s" % (i, pick), "_p%d[%s] = %s" % (i, k, v)]
    elif form == 1:
        # an augmented assignment through a subscript or an attribute: `|=` changes the
        # dict in place, so every alias of it (the module's name too) sees the change
        lines += [draw(st.sampled_from((
            "_t%d['1'] |= {%s: %s}" % (i, k, v),
            "_t%d['1'] = _t%d['1'] | {%s: %s}" % (i, i, k, v),
            "_ns%d = type('NS', (), {})()\n_ns%d.cfg = %s\n_ns%d.cfg |= {%s: %s}" % (i, i, d, i, k, v),
        )))]
    else:
        lines += ["def _on_%d():" % i, "    %s[%s] = %s" % (d, k, v), "", "",
                  "def _off_%d():" % i, "    pass", "", "",
                  "_h%d = {'1': _on_%d, '2': _off_%d}" % (i, i, i),
                  "_h%d[RUNTIME_ONE]()" % i]
    return lines


def f_instance_join(draw, i):
    """One of two instances of a class, picked by a branch the engine cannot
    decide: what both agree on is known, a change through the pick may be a
    change to either."""
    d = draw(st.sampled_from(DICTS))
    v1, v2 = _val(draw), _val(draw)
    lines = ["class _Tun%d:" % i,
             "    def __init__(self, sync):",
             "        self.sync = sync",
             "        self.cfg = {%s: sync}" % _key(draw),
             "", "",
             "_a%d = _Tun%d(%s)" % (i, i, v1),
             "_b%d = _Tun%d(%s)" % (i, i, v2),
             "_o%d = _a%d if RUNTIME_TRUE else _b%d" % (i, i, i)]
    lines += draw(st.sampled_from((
        ["%s[PassConfigKey.TL_ASCEND_AUTO_SYNC] = _o%d.sync" % (d, i)],
        ["_o%d.sync = %s" % (i, _val(draw)), "%s[PassConfigKey.TL_ASCEND_AUTO_SYNC] = _a%d.sync" % (d, i)],
        ["_o%d.cfg[%s] = %s" % (i, _key(draw), _val(draw)), "%s.update(_b%d.cfg)" % (d, i)],
        ["_a%d.sync = %s" % (i, _val(draw)), "%s[PassConfigKey.TL_ASCEND_AUTO_SYNC] = _o%d.sync" % (d, i)],
    )))
    return lines


def f_dataclass(draw, i):
    d = draw(st.sampled_from(DICTS))
    kind = draw(st.sampled_from(("dataclass", "frozen", "namedtuple")))
    if kind == "namedtuple":
        head = ["class _Knobs%d(typing.NamedTuple):" % i]
    else:
        head = ["@dataclasses.dataclass%s" % ("(frozen=True)" if kind == "frozen" else ""),
                "class _Knobs%d:" % i]
    lines = head + [
        "    sync: bool = %s" % _val(draw),
        "    planning: bool = %s" % _val(draw),
        "",
        "    def to_configs(self):",
        "        return {",
        "            PassConfigKey.TL_ASCEND_AUTO_SYNC: self.sync,",
        "            PassConfigKey.TL_ASCEND_MEMORY_PLANNING: self.planning,",
        "        }",
        "", ""]
    ctor = draw(st.sampled_from((
        "_Knobs%d()" % i, "_Knobs%d(%s)" % (i, _val(draw)), "_Knobs%d(planning=%s)" % (i, _val(draw)),
        "_Knobs%d(%s, %s)" % (i, _val(draw), _val(draw)))))
    if kind == "namedtuple" and draw(st.booleans()):
        ctor = "%s._replace(sync=%s)" % (ctor, _val(draw))
    elif kind != "namedtuple" and draw(st.booleans()):
        ctor = "dataclasses.replace(%s, sync=%s)" % (ctor, _val(draw))
    lines.append("%s = %s.to_configs()" % (d, ctor))
    return lines


def f_enum(draw, i):
    d = draw(st.sampled_from(DICTS))
    member = draw(st.sampled_from(("DEV", "EXPERT")))
    int_enum = draw(st.booleans())
    if int_enum or draw(st.booleans()):
        # numbered members: auto(), an alias (a value an earlier member has), IntEnum
        dev = draw(st.sampled_from(("1", "enum.auto()", "3")))
        expert = draw(st.sampled_from(("2", "enum.auto()", "1")))  # "1" after DEV = 1: an alias
        legacy = draw(st.sampled_from(("1", "2", "5")))
        values = (dev, expert, legacy)
    else:
        values = ('"developer"', '"expert"', draw(st.sampled_from(('"developer"', '"legacy"'))))
    lines = ["class _Mode%d(%s):" % (i, "enum.IntEnum" if int_enum else "enum.Enum"),
             "    DEV = %s" % values[0],
             "    EXPERT = %s" % values[1],
             "    LEGACY = %s" % values[2],
             "",
             "    def is_dev(self):",
             "        return self is _Mode%d.DEV" % i,
             "", "",
             "_TABLE_%d = {" % i,
             "    _Mode%d.DEV: %s," % (i, _entries(draw)),
             "    _Mode%d.EXPERT: %s," % (i, _entries(draw)),
             "}"]
    literal = values[0] if member == "DEV" else values[1]
    picks = ["%s = dict(_TABLE_%d[_Mode%d.%s])" % (d, i, i, member),
             "%s = _TABLE_%d[_Mode%d[%r]]" % (d, i, i, member)]
    if "auto" not in literal:  # by value: the member (or the one it is an alias of)
        picks.append("%s.update(_TABLE_%d.get(_Mode%d(%s), {}))" % (d, i, i, literal))
    lines.append(draw(st.sampled_from(picks)))
    other = draw(st.sampled_from(("DEV", "EXPERT", "LEGACY")))
    test = draw(st.sampled_from((
        "_sel is _Mode%d.%s" % (i, other),
        "_sel == _Mode%d.%s" % (i, other),
        "_sel != _Mode%d.%s" % (i, other),
        "_sel in (_Mode%d.%s, None)" % (i, other),
        "_sel == %s" % values[2].replace("enum.auto()", "2"),
        "_sel.is_dev()",
        "_sel is None",
        "_sel.name == %r" % other,
        "[m.name for m in _Mode%d] == ['DEV', 'EXPERT', 'LEGACY']" % i,
        "_sel in {%s: 0}" % values[2],
    )))
    lines.append("_sel = _Mode%d.%s" % (i, member))
    if sys.version_info < (3, 10) or draw(st.booleans()):  # `match` is Python 3.10+
        lines += ["if %s:" % test,
                  "    %s[%s] = %s" % (d, _key(draw), _val(draw))]
    else:
        lines += ["match _sel:",
                  "    case _Mode%d.%s:" % (i, other),
                  "        %s[%s] = %s" % (d, _key(draw), _val(draw)),
                  "    case _:",
                  "        pass"]
    return lines


def f_if(draw, i):
    d = draw(st.sampled_from(DICTS))
    test = draw(st.sampled_from(("FAST", "SLOW", "not FAST", "N_CORES == 2", "N_CORES > 2",
                                 "%s in %s" % (_key(draw), draw(st.sampled_from(DICTS))),
                                 "%s.get(%s)" % (draw(st.sampled_from(DICTS)), _key(draw)))))
    lines = ["if %s:" % test, "    %s[%s] = %s" % (d, _key(draw), _val(draw))]
    if draw(st.booleans()):
        lines += ["else:", "    %s[%s] = %s" % (d, _key(draw), _val(draw))]
    return lines


_NO_IMPORT_MUTATION = [False]  # programs(exclude={"import_mutation"}): the main module never mutates gen_cfg's dicts


def f_sibling(draw, i):
    d = draw(st.sampled_from(DICTS))
    if _NO_IMPORT_MUTATION[0]:
        return ["%s = dict(gen_cfg.SHARED)" % d]
    return [draw(st.sampled_from((
        "%s = dict(gen_cfg.SHARED)" % d,
        "%s = gen_cfg.shared_cfg(%s)" % (d, _val(draw)),
        "gen_cfg.SHARED[%s] = %s" % (_key(draw), _val(draw)),
        "%s.update(gen_cfg.SHARED)" % d,
        "%s = {**gen_cfg.SHARED, %s: %s}" % (d, _key(draw), _val(draw)),
        "%s = dict(gen_cfg.HIDDEN)" % d,
    )))]


def f_star(draw, i):
    """Names that came with `from gen_cfg import *` (only __all__'s), and the
    main module's own HIDDEN, which the star import does not replace."""
    d = draw(st.sampled_from(DICTS))
    if _NO_IMPORT_MUTATION[0]:
        return [draw(st.sampled_from(("%s = dict(SHARED)" % d, "%s = dict(HIDDEN)" % d,
                                      "%s = shared_cfg(%s)" % (d, _val(draw)))))]
    return [draw(st.sampled_from((
        "%s = dict(SHARED)" % d,
        "%s = shared_cfg(%s)" % (d, _val(draw)),
        "SHARED[%s] = %s" % (_key(draw), _val(draw)),
        "%s = dict(HIDDEN)" % d,
        "%s.update(HIDDEN)" % d,
        "_alias_%d = SHARED" % i + "\n_alias_%d[%s] = %s" % (i, _key(draw), _val(draw)),
    )))]


def f_global(draw, i):
    d = draw(st.sampled_from(DICTS))
    k, v = _key(draw), _val(draw)
    body = draw(st.sampled_from((
        ["    global %s" % d, "    %s = {**%s, %s: %s}" % (d, d, k, v)],
        ["    global %s" % d, "    %s = dict(%s)" % (d, draw(st.sampled_from(DICTS))), "    %s[%s] = %s" % (d, k, v)],
        ["    %s[%s] = %s" % (d, k, v)],  # a store needs no global
        ["    %s = {%s: %s}  # a local: the module's dict is untouched" % (d, k, v)],
    )))
    lines = ["def _configure_%d():" % i] + body + ["", ""]
    lines.append(draw(st.sampled_from(("_configure_%d()" % i, "if FAST:\n    _configure_%d()" % i,
                                       "if SLOW:\n    _configure_%d()" % i))))
    return lines


def f_unknown(draw, i):
    """Code the engine cannot decide but CPython runs: a branch on a runtime
    value, a helper writing a global in such a branch, `and`/`or` with a
    call after an unknown operand, and a comprehension over an unknown
    sequence. The engine must say unknown where the outcome depends on it."""
    d = draw(st.sampled_from(DICTS))
    k, v = _key(draw), _val(draw)
    return draw(st.sampled_from((
        ["if RUNTIME_TRUE:", "    %s[%s] = %s" % (d, k, v)],
        ["if not RUNTIME_TRUE:", "    %s[%s] = %s" % (d, k, v), "else:", "    %s.pop(%s, None)" % (d, k)],
        ["def _flip_%d():" % i, "    global %s" % d, "    if RUNTIME_TRUE:", "        %s = {%s: %s}" % (d, k, v),
         "", "", "_flip_%d()" % i],
        ["def _set_%d():" % i, "    %s[%s] = %s" % (d, k, v), "    return True", "", "",
         "_ok_%d = RUNTIME_TRUE and _set_%d()" % (i, i)],
        ["_ok_%d = not RUNTIME_TRUE or %s.update({%s: %s})" % (i, d, k, v)],
        ["[%s.update({%s: %s}) for _ in RUNTIME_ONE]" % (d, k, v)],
        ["def _nl_%d(cfg):" % i, "    out = dict(cfg)", "", "    def inner():",
         "        nonlocal out", "        if RUNTIME_TRUE:", "            out = {%s: %s}" % (k, v), "",
         "    inner()", "    return out", "", "", "%s = _nl_%d(%s)" % (d, i, d)],
    )))


def f_lambda_zip(draw, i):
    d = draw(st.sampled_from(DICTS))
    names = draw(st.lists(st.sampled_from(SWITCH_NAMES), min_size=1, max_size=3, unique=True))
    keys = ", ".join(_key(draw, n) for n in names)
    vals = ", ".join(_val(draw) for _ in names)
    return [draw(st.sampled_from((
        "%s = dict(zip([%s], [%s]))" % (d, keys, vals),
        "%s = dict((k, %s) for k in [%s])" % (d, _val(draw), keys),
        "_on_%d = lambda flag: {%s: flag}\n%s = _on_%d(%s)" % (i, _key(draw), d, i, _val(draw)),
        "%s = {k: %s for k in PassConfigKey if k.name.startswith(\"TL_ASCEND_%s\")}" % (
            d, _val(draw), draw(st.sampled_from(("AUTO", "MEMORY", "AUTO_CV", "")))),
        "%s.update({k: %s for k in PassConfigKey if k.value in (%s,)})" % (
            d, _val(draw), ", ".join('"%s"' % RAW[n] for n in names)),
    )))]


def f_nested(draw, i):
    d = draw(st.sampled_from(DICTS))
    lines = ["_PRESETS_%d = {\"dev\": %s, \"expert\": %s}" % (i, _entries(draw), _entries(draw, 0, 2))]
    lines += draw(st.sampled_from((
        ["%s = _PRESETS_%d[\"dev\"]" % (d, i), "_PRESETS_%d[\"dev\"][%s] = %s" % (i, _key(draw), _val(draw))],
        ["%s = dict(_PRESETS_%d[\"expert\"])" % (d, i), "_PRESETS_%d[\"expert\"][%s] = %s" % (i, _key(draw), _val(draw))],
        ["for _cfg in _PRESETS_%d.values():" % i, "    _cfg[%s] = %s" % (_key(draw), _val(draw)),
         "%s = _PRESETS_%d[%r]" % (d, i, draw(st.sampled_from(("dev", "expert"))))],
        ["for _cfg in (%s, %s):" % (draw(st.sampled_from(DICTS)), draw(st.sampled_from(DICTS))),
         "    _cfg[%s] = %s" % (_key(draw), _val(draw))],
        ["%s = _PRESETS_%d.get(%r, {})" % (d, i, draw(st.sampled_from(("dev", "expert", "missing"))))],
    )))
    return lines


def f_gotchas(draw, i):
    """Python semantics an evaluator can get subtly wrong."""
    d = draw(st.sampled_from(DICTS))
    e = draw(st.sampled_from(DICTS))
    name = draw(st.sampled_from(SWITCH_NAMES))
    k1, k2 = _key(draw, name), _key(draw, name)  # two spellings of one key
    return draw(st.sampled_from((
        ["%s = {%s: %s, %s: %s}" % (d, k1, _val(draw), k2, _val(draw))],   # one key twice: the last wins
        ["%s.update({%s: %s})" % (d, k2, _val(draw)), "%s.setdefault(%s, %s)" % (d, k1, _val(draw))],
        ["%s = %s = {%s: %s}" % (d, e, _key(draw), _val(draw)), "%s[%s] = %s" % (e, _key(draw), _val(draw))],
        ["%s = %s or %s" % (d, draw(st.sampled_from(("{}", "None", e, "dict()"))), e)],
        ["%s = %s if %s else %s" % (d, e, e, _entries(draw))],
        ["%s = copy.copy(%s)" % (d, e), "%s[%s] = %s" % (e, _key(draw), _val(draw))],
        ["%s = copy.deepcopy(%s)" % (d, e), "%s[%s] = %s" % (e, _key(draw), _val(draw))],
        ["%s, %s = %s, %s" % (d, e, e, d)],
        ["_first_%d, *_rest_%d = [%s, %s]" % (i, i, e, d), "%s = _first_%d" % (d, i)],
        ["if (_tmp_%d := %s.get(%s)) is not None:" % (i, e, _key(draw)),
         "    %s[%s] = not _tmp_%d" % (d, _key(draw), i)],
        ["%s.update([(%s, %s)])" % (d, _key(draw), _val(draw))],
        ["for _x in range(2):", "    for _y in range(3):", "        if _y == 1:", "            break",
         "        %s[%s] = _x == %d" % (d, _key(draw), draw(st.integers(0, 1)))],
    )))


def f_keyerror(draw, i):
    """Statements that raise KeyError when the key is missing (del, pop
    without a default, a lookup), under try/except or contextlib.suppress."""
    d = draw(st.sampled_from(DICTS))
    e = draw(st.sampled_from(DICTS))
    raising = draw(st.sampled_from(("del %s[%s]" % (e, _key(draw)), "%s.pop(%s)" % (e, _key(draw)),
                                    "_seen_%d = %s[%s]" % (i, e, _key(draw)))))
    rest = "%s[%s] = %s" % (d, _key(draw), _val(draw))
    if draw(st.booleans()):
        return ["with contextlib.suppress(KeyError):", "    " + raising, "    " + rest]
    return ["try:", "    " + raising, "    " + rest, "except KeyError:",
            "    %s[%s] = %s" % (d, _key(draw), _val(draw))]


_NO_SETATTR = [False]  # programs(exclude={"setattr"}): no setattr() builtin


def f_instance(draw, i):
    d = draw(st.sampled_from(DICTS))
    lines = ["class _Holder%d:" % i,
             "    CFG = {%s: %s}" % (_key(draw), _val(draw)),
             "    sync = %s" % _val(draw),
             "", ""]
    lines += ["_h_%d = _Holder%d()" % (i, i)]
    lines += draw(st.sampled_from((
        ["_h_%d.CFG[%s] = %s" % (i, _key(draw), _val(draw)), "%s = dict(_Holder%d.CFG)" % (d, i)],
        ["_h_%d.CFG = {%s: %s}" % (i, _key(draw), _val(draw)), "%s = dict(_Holder%d.CFG)" % (d, i)],
        [("setattr(_h_%d, \"sync\", %s)" if not _NO_SETATTR[0] else "_h_%d.sync = %s") % (i, _val(draw)),
         "%s[PassConfigKey.TL_ASCEND_AUTO_SYNC] = getattr(_h_%d, \"sync\")" % (d, i)],
        ["_Holder%d.sync = %s" % (i, _val(draw)), "%s[PassConfigKey.TL_ASCEND_AUTO_SYNC] = _h_%d.sync" % (d, i)],
    )))
    return lines


def f_list_ops(draw, i):
    """Keys kept in a list changed in place (pop, insert, clear, reverse,
    append), then drained into a dict by a loop or read by an index."""
    d = draw(st.sampled_from(DICTS))
    names = draw(st.lists(st.sampled_from(SWITCH_NAMES), min_size=0, max_size=3, unique=True))
    lines = ["_l%d = [%s]" % (i, ", ".join(_key(draw, n) for n in names))]
    for _ in range(draw(st.integers(0, 3))):
        lines.append(draw(st.sampled_from((
            "_l%d.insert(0, %s)" % (i, _key(draw)), "_l%d.append(%s)" % (i, _key(draw)),
            "if _l%d:\n    _l%d.pop()" % (i, i), "if _l%d:\n    _l%d.pop(0)" % (i, i),
            "_l%d.reverse()" % i, "_l%d.clear()" % i, "_l%d.insert(-1, %s)" % (i, _key(draw)),
        ))))
    lines += draw(st.sampled_from((
        ["while _l%d:" % i, "    %s[_l%d.pop(0)] = %s" % (d, i, _val(draw))],
        ["for _k in _l%d:" % i, "    %s[_k] = %s" % (d, _val(draw))],
        ["if _l%d:" % i, "    %s[_l%d[-1]] = %s" % (d, i, _val(draw))],
    )))
    return [part for line in lines for part in line.split("\n")]


# Besides FORMS, `exclude` takes "jit_call" (no module-level call of a jit
# factory), "key_call" (no `PassConfigKey("tl.ascend_...")` key spelling),
# "import_mutation" (the main module never stores into gen_cfg's dicts),
# "setattr" (no setattr() builtin), "ctx_name" (the config of a PassContext
# that `tilelang.lower` compiles under is a dict literal) and
# the site kinds SITE_KINDS.
FORMS = {
    "setitem": f_setitem,
    "update": f_update,
    "setdefault_pop_del": f_setdefault_pop_del,
    "rebind": f_rebind,
    "comprehension": f_comprehension,
    "for": f_for,
    "while": f_while,
    "try": f_try,
    "return_in_try": f_return_in_try,
    "function": f_function,
    "closure": f_closure,
    "decorator": f_decorator,
    "partial": f_partial,
    "class": f_class,
    "dataclass": f_dataclass,
    "enum": f_enum,
    "if": f_if,
    "sibling": f_sibling,
    "star": f_star,
    "global": f_global,
    "unknown": f_unknown,
    "lambda_zip": f_lambda_zip,
    "nested": f_nested,
    "gotchas": f_gotchas,
    "instance": f_instance,
    "keyerror": f_keyerror,
    "list_ops": f_list_ops,
    "super": f_super,
    "cache": f_cache,
    "alias": f_alias,
    "instance_join": f_instance_join,
}

# The helper module of the `helper_*` site kinds (issue #19 form 6): compiles and
# PassContexts inside another module's functions.
BUILD_HELPERS = '''import contextlib
import functools

import tilelang
import tvm
from tilelang import PassConfigKey

SYNC = PassConfigKey.TL_ASCEND_AUTO_SYNC
PLANNED = {PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True}
compile_planned = functools.partial(tilelang.compile, out_idx=[-1], pass_configs=PLANNED)


def jit_with(cfg):
    return tilelang.jit(out_idx=[-1], pass_configs=cfg)


def compile_cfg(func, cfg):
    return tilelang.compile(func, out_idx=[-1], pass_configs=cfg)


def compile_sync(func, cfg):
    if cfg is not None:
        cfg[SYNC] = True
    return tilelang.compile(func, pass_configs=cfg)


def compile_each(funcs, cfg):
    return [tilelang.compile(f, pass_configs=cfg) for f in funcs]


@contextlib.contextmanager
def passes(cfg):
    with tvm.transform.PassContext(opt_level=3, config=cfg):
        yield


class Passes:
    def __init__(self, cfg):
        self.ctx = tvm.transform.PassContext(config=cfg)

    def __enter__(self):
        self.ctx.__enter__()
        return self

    def __exit__(self, *exc):
        return self.ctx.__exit__(*exc)
'''

# -- compile sites -----------------------------------------------------------

SITE_KINDS = ("jit", "jit_bare", "compile", "lower", "compile_in_function", "jit_star", "method",
              "static_jit", "partial_compile", "lower_bare", "compile_in_ctx", "dead", "select",
              "default_arg", "kwargs_spread", "loop_compile", "helper_twice", "helper_module")


def _kernel(n, indent, name=None, ret=True):
    body = ["@T.prim_func",
            "def %s(A: T.Tensor((M, 128), \"float16\"), B: T.Tensor((M, 128), \"float16\")):" % (
                name or "kern_%d" % n),
            "    with T.Kernel(M // 64, is_npu=True) as (cid, vid):",
            "        a = T.alloc_ub((32, 128), \"float16\")",
            "        T.copy(A[cid * 64 + vid * 32, 0], a)",
            "        T.copy(a, B[cid * 64 + vid * 32, 0])",
            ""] + (["return %s" % (name or "kern_%d" % n)] if ret else [])
    return _ind(body, indent)


def _config_expr(draw):
    d = draw(st.sampled_from(DICTS))
    return draw(st.sampled_from((
        d, d, d, "dict(%s)" % d, "{**%s, %s: %s}" % (d, _key(draw), _val(draw)),
        "%s | %s" % (d, _entries(draw, 1, 1)), "None" if draw(st.integers(0, 5)) == 0 else d,
    )))


_NO_CTX_NAME = [False]  # programs(exclude={"ctx_name"}): a PassContext's config is a dict literal


def _ctx(draw, expr):
    """The config of a `PassContext` that `tilelang.lower` compiles under."""
    return _entries(draw, 0, 3) if _NO_CTX_NAME[0] else expr


def _site(draw, n, kinds=SITE_KINDS, jit_call=True):
    """(definition lines placed before the statements, call lines placed at a
    drawn position or None, kind). `jit_call`: a jit factory may be called at
    module level (else the driver calls it after the module ran)."""
    kind = draw(st.sampled_from(kinds))
    expr = _config_expr(draw)
    if kind in ("jit", "jit_bare", "jit_star"):
        if kind == "jit":
            deco = ["@tilelang.jit(out_idx=[-1]%s, pass_configs=%s)" % (draw(_TARGETS), expr)]
        elif kind == "jit_bare":
            deco = ["@tilelang.jit"]
        else:
            deco = ["@tilelang.jit(", "    out_idx=[-1],", "    pass_configs=%s," % expr, ")"]
        define = deco + ["def make_%d(M):" % n] + _kernel(n, 1)
        call = None
        if jit_call and draw(st.booleans()):
            call = ["kernel_%d = make_%d(%d)" % (n, n, 64 * (n + 1))]
            kind += "+jit_call"
        return define, call, kind
    if kind == "method":
        define = ["class Op%d:" % n,
                  "    CFG = %s" % expr,
                  "",
                  "    def __init__(self, M):",
                  "        self.M = M",
                  "",
                  "    def kernel(self):",
                  "        M = self.M"] + _kernel(n, 2) + [
                  "",
                  "    def compile(self):",
                  "        return tilelang.compile(self.kernel(), out_idx=[-1], pass_configs=%s)"
                  % draw(st.sampled_from(("self.CFG", "type(self).CFG", "Op%d.CFG" % n)))]
        return define, ["kernel_%d = Op%d(128).compile()" % (n, n)], kind
    if kind == "static_jit":
        define = ["class Lib%d:" % n,
                  "    @staticmethod",
                  "    @tilelang.jit(out_idx=[-1], pass_configs=%s)" % expr,
                  "    def make(M):"] + _kernel(n, 2)
        call = None
        if jit_call and draw(st.booleans()):
            call = ["kernel_%d = Lib%d.make(128)" % (n, n)]
            kind += "+jit_call"
        return define, call, kind
    if kind == "select":
        fast = draw(st.sampled_from(("FAST", "SLOW", "True", "False")))
        define = ["def build_%d(M, fast=%s):" % (n, fast)] + _kernel(n, 1, ret=False) + _kernel(
            n, 1, name="kern_%d_b" % n, ret=False) + [
            "    if fast:", "        return kern_%d" % n, "    return kern_%d_b" % n]
        arg = draw(st.sampled_from(("", ", fast=True", ", fast=False", ", SLOW", ", not SLOW")))
        return define, ["kernel_%d = tilelang.compile(build_%d(128%s), pass_configs=%s)" % (n, n, arg, expr)], kind
    if kind == "kwargs_spread":
        form = draw(st.integers(0, 2))
        if form == 0:
            define = ["JIT_KW_%d = {\"out_idx\": [-1], \"pass_configs\": %s}" % (n, expr), "",
                      "@tilelang.jit(**JIT_KW_%d)" % n, "def make_%d(M):" % n] + _kernel(n, 1)
            call = ["kernel_%d = make_%d(128)" % (n, n)] if jit_call and draw(st.booleans()) else None
            return define, call, kind
        define = ["def build_%d(M):" % n] + _kernel(n, 1)
        if form == 1:
            return define, ["kernel_%d = tilelang.compile(build_%d(128), **{\"pass_configs\": %s})" % (n, n, expr)], kind
        return define, ["with tvm.transform.PassContext(**{\"opt_level\": 3, \"config\": %s}):" % _ctx(draw, expr),
                        "    artifact_%d = tilelang.lower(build_%d(128))" % (n, n)], kind
    define = ["def build_%d(M):" % n] + _kernel(n, 1)
    if kind == "helper_module":
        form = draw(st.integers(0, 6))
        if form == 5:
            define = ["@gen_build.jit_with(%s)" % expr, "def make_%d(M):" % n] + _kernel(n, 1)
            call = ["kernel_%d = make_%d(128)" % (n, n)] if jit_call and draw(st.booleans()) else None
            return define, call, kind
        if form == 6:
            return define, ["kernel_%d = gen_build.compile_planned(build_%d(128))" % (n, n)], kind
        if form == 0:
            call = ["kernel_%d = gen_build.compile_cfg(build_%d(128), %s)" % (n, n, expr)]
        elif form == 1:
            call = ["kernel_%d = gen_build.compile_sync(build_%d(128), %s)" % (n, n, expr)]
        elif form == 2:
            call = ["kernels_%d = gen_build.compile_each([build_%d(64), build_%d(128)], %s)" % (n, n, n, expr)]
        else:
            manager = "passes" if form == 3 else "Passes"
            call = ["with gen_build.%s(%s):" % (manager, _ctx(draw, expr)),
                    "    artifact_%d = tilelang.lower(build_%d(128))" % (n, n)]
        return define, call, kind
    if kind == "loop_compile":
        a, b = _config_expr(draw), _config_expr(draw)
        call = draw(st.sampled_from((
            ["kernels_%d = []" % n, "for _cfg in (%s, %s):" % (a, b),
             "    kernels_%d.append(tilelang.compile(build_%d(128), pass_configs=_cfg))" % (n, n)],
            ["kernels_%d = [tilelang.compile(build_%d(128), pass_configs=c) for c in (%s, %s)]" % (n, n, a, b)],
        )))
        return define, call, kind
    if kind == "helper_twice":
        define += ["", "", "def compile_%d(cfg):" % n,
                   "    return tilelang.compile(build_%d(128), pass_configs=cfg)" % n, "",
                   "", "kernel_%d_a = compile_%d(%s)" % (n, n, _config_expr(draw))]
        return define, ["kernel_%d_b = compile_%d(%s)" % (n, n, expr)], kind
    if kind == "default_arg":
        # the default is evaluated once, where the def runs: a later rebinding of the
        # name does not change it, a mutation of the dict does
        define += ["", "", "def compile_%d(prog, cfg=%s):" % (n, expr),
                   "    return tilelang.compile(prog, pass_configs=cfg)"]
        call = ["kernel_%d = compile_%d(build_%d(128))" % (n, n, n)]
    elif kind == "partial_compile":
        define += ["", "", "compile_%d = functools.partial(tilelang.compile, out_idx=[-1], pass_configs=%s)"
                   % (n, expr)]
        call = ["kernel_%d = compile_%d(build_%d(128))" % (n, n, n)]
    elif kind == "lower_bare":
        call = ["artifact_%d = tilelang.lower(build_%d(128))" % (n, n)]
    elif kind == "compile_in_ctx":
        call = ["with tvm.transform.PassContext(opt_level=3, config=%s):" % _config_expr(draw),
                "    kernel_%d = tilelang.compile(build_%d(128), pass_configs=%s)" % (n, n, expr)]
    elif kind == "dead":
        call = ["if %s:" % draw(st.sampled_from(("SLOW", "not FAST", "N_CORES > 2"))),
                "    kernel_%d = tilelang.compile(build_%d(128), pass_configs=%s)" % (n, n, expr)]
    elif kind == "compile":
        call = ["kernel_%d = tilelang.compile(build_%d(128), out_idx=[-1]%s, pass_configs=%s)" % (
            n, n, draw(_TARGETS), expr)]
    elif kind == "lower":
        call = ["with tvm.transform.PassContext(opt_level=3, config=%s):" % _ctx(draw, expr),
                "    artifact_%d = tilelang.lower(build_%d(128))" % (n, n)]
    else:
        define += ["", "", "def compile_%d(cfg):" % n,
                   "    return tilelang.compile(build_%d(128), pass_configs=cfg)" % n]
        call = ["kernel_%d = compile_%d(%s)" % (n, n, expr)]
    return define, call, kind


# the `target` of a compile site (issue #19, form 2): none, each route, a module
# constant's branch, an unknown value
_TARGETS = st.sampled_from(("", "", ', target="npuir"', ', target="pto"', ', target="auto"',
                            ', target="npuir" if SLOW else "ascendc"', ', target=str(N_CORES)'))


@st.composite
def programs(draw, exclude=frozenset()):
    """(main source, {sibling module name: source}, [form names used])."""
    forms = sorted(f for f in FORMS if f not in exclude)
    _NO_KEY_CALL[0] = "key_call" in exclude
    _NO_IMPORT_MUTATION[0] = "import_mutation" in exclude
    _NO_SETATTR[0] = "setattr" in exclude
    _NO_CTX_NAME[0] = "ctx_name" in exclude
    used = []
    sibling = draw(st.booleans()) and "sibling" in forms
    lines = HEADER.splitlines()
    siblings = {}
    star = False
    if sibling:
        text = SIBLING % (draw(st.sampled_from(("True", "False", "1", "0"))),
                          draw(st.sampled_from(("True", "False", "1", "0"))))
        for _ in range(draw(st.integers(0, 2))):  # the sibling's own module-level mutations
            text += "\n" + draw(st.sampled_from((
                "SHARED[%s] = %s" % (_key(draw), _val(draw)),
                "SHARED.update(%s)" % _entries(draw, 1, 2),
                "SHARED.pop(%s, None)" % _key(draw),
                "HIDDEN[%s] = %s" % (_key(draw), _val(draw)),
            ))) + "\n"
        siblings["gen_cfg"] = text
        star = "star" in forms and draw(st.booleans())
        if star:
            lines.append("HIDDEN = {%s: %s}" % (_key(draw), _val(draw)))
        lines.append("import gen_cfg" + ("\nfrom gen_cfg import *" if star else ""))
    forms = [f for f in forms if (f != "sibling" or sibling) and (f != "star" or star)]
    lines += ["", "BASE = %s" % _entries(draw, 0, 3), "CFG_A = %s" % _entries(draw, 0, 3),
              "CFG_B = dict(BASE)"]
    if sibling and star and draw(st.booleans()):
        lines.append("CFG_B = dict(SHARED)")
    kinds = [k for k in SITE_KINDS if k not in exclude]
    n_sites = draw(st.integers(1, 3))
    sites = [_site(draw, n, kinds, jit_call="jit_call" not in exclude) for n in range(n_sites)]
    if any(kind == "helper_module" for _, _, kind in sites):
        siblings["gen_build"] = BUILD_HELPERS
        lines.insert(len(HEADER.splitlines()), "import gen_build")
    for define, _, _ in sites:
        lines += ["", ""] + define
    n_stmts = draw(st.integers(1, 6))
    body = []
    for i in range(n_stmts):
        name = draw(st.sampled_from(forms))
        used.append(name)
        body.append(FORMS[name](draw, i))
    calls = [(draw(st.integers(0, n_stmts)), call) for _, call, _ in sites if call is not None]
    lines.append("")
    for i in range(n_stmts + 1):
        for pos, call in calls:
            if pos == i:
                lines += [""] + call
        if i < n_stmts:
            lines += [""] + body[i]
    for _, _, kind in sites:
        used += kind.split("+")
    return "\n".join(lines) + "\n", siblings, used
