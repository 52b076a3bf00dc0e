"""The pass_configs dict itself: keys, values, keys that do nothing."""
from __future__ import annotations

import ast
from typing import Iterator, Set, Tuple

from .. import constants as C
from ..model.sides import CUBE_ALLOCS, CUBE_OPS, INFERRED_CUBE
from ..diagnostic import Report
from . import _fix
from ..registry import ERROR, INFO, report, rule
from ._text import name as _name, quoted

_ENUM_NAMES = sorted(C.PASS_CONFIG_ENUM)
_RAW_KEYS = sorted(C.KNOWN_KEYS)


def _entries(model) -> Iterator[Tuple[object, object]]:
    """(site, entry) for every key written in this file, once per key position."""
    seen: Set[Tuple[int, int, str]] = set()
    for site in model.sites:
        for entry in site.config.entries.values():
            if entry.filename != model.filename:
                continue
            mark = (entry.line, entry.node.col_offset, entry.key)  # type: ignore[attr-defined]
            if mark not in seen:
                seen.add(mark)
                yield site, entry


@rule(
    code="TLA050",
    autofix="""
Unsafe (`--fix --unsafe-fixes`), and only for a known slip, never a
nearest-spelling guess: a raw key written without its `tl.` namespace or as
the enum member's name (`"TL_ASCEND_AUTO_SYNC"`), the raw key spelt after its
enum member (`"tl.ascend_auto_cv_sync"` -> `"tl.ascend_auto_cross_core_sync"`),
the enum member spelt after its raw key (`TL_ASCEND_AUTO_CROSS_CORE_SYNC` ->
`TL_ASCEND_AUTO_CV_SYNC`), or a case slip. Unsafe because the rename makes a
switch take effect: the compiler then does something else. Display-only when
the registered key is already in the same dict (the rename would duplicate
it), and for a misspelling: the help names the close keys (`TL_ASCEND_AUTO_CV`
is CV_SYNC or CV_COMBINE) and a human picks.
""",
    name="unknown-pass-config-key",
    severity=ERROR,
    confidence="high",
    summary="a pass_configs key that TileLang does not register",
    what="""
Reports a `PassConfigKey.<NAME>` member that does not exist, and a raw-string
key in TileLang's own `tl.` namespace that is not registered (for example a
typo, or `"tl.dynamic_vectorize_size_bits"`, which the jit docstrings mention
but nothing registers), and a raw string that names a registered key without
its namespace (`"TL_ASCEND_AUTO_SYNC"`, `"ascend_auto_sync"`: the enum member's
name is not the key), or in another letter case or with a stray blank
(`"TL.ASCEND_AUTO_SYNC"`, `" tl.ascend_auto_sync"`: keys are matched exactly).
The help text offers the nearest valid key. Raw keys of
other namespaces (`tir.`, `cuda.`, ...) belong to TVM and are not judged.
`tl.ascend_auto_sync_vs` (added after PR #1346) is accepted.
""",
    why="""
TVM's `PassContext` validates every key when the kernel is compiled: an
unknown key aborts the compile with `AttributeError: Invalid config option
'<key>' candidates are: ...`. A misspelt enum member fails even earlier, with
an `AttributeError` on `PassConfigKey` when the module is imported.
""",
    fix="Use the key the help text suggests (the registered spelling).",
    known_false_positives="""
A key registered by a newer TileLang-Ascend than the one this rule knows;
`# noqa: TLA050` it and tell us. Files with no sign of TileLang-Ascend (no NPU
launch, Ascend switch or Ascend-only primitive) are not judged: upstream CUDA
TileLang registers other keys.
""",
    references="""
- `tilelang/transform/pass_config.py` (the enum); TVM `PassConfigManager::Legalize`
- `tilelang/jit/__init__.py:75` (documents the unregistered `tl.dynamic_vectorize_size_bits`)
""",
)
def unknown_pass_config_key(model) -> Iterator[Report]:
    if not model.is_ascend:  # upstream (CUDA) TileLang has other keys and no Ascend pipeline
        return
    # every enum member written anywhere in the file: a bad one fails on import
    for node, name in model.config_key_refs:
        if name in C.PASS_CONFIG_ENUM:
            continue
        meant = _ENUM_SLIPS.get(name) or _ENUM_SLIPS.get(name.upper())
        advice = _enum_help(name, meant)
        edits = None
        if meant and not _already_in_dict(node, C.PASS_CONFIG_ENUM[meant]):
            edits = _fix.replace_attr_name(node, meant)
        yield report(
            node,
            "`PassConfigKey.%s` does not exist: importing or compiling fails with AttributeError" % name,
            help=advice,
            fix=_fix.fix(advice, edits, _fix.UNSAFE),
        )
    for _, entry in _entries(model):
        key = entry.key
        member = key.split(".", 1)[1] if key.startswith("PassConfigKey.") else None
        if member in C.PASS_CONFIG_ENUM:
            # `str(PassConfigKey.X)` (or `"%s" % ...`): the member's name, not its value
            advice = "Use `PassConfigKey.%s` itself, or its `.value`" % member
            yield report(
                entry.node,
                "pass config key %s is not registered: `str()` of a PassConfigKey member is its name, not "
                "its value, and the compile aborts with `AttributeError: Invalid config option`" % quoted(key),
                help=advice,
                fix=_fix.fix(advice, None, _fix.DISPLAY_ONLY),
            )
        elif member is not None and not isinstance(getattr(entry.node, "attr", None), str):
            # getattr(PassConfigKey, "NAME") or a comprehension over names
            name = member
            yield report(
                entry.node,
                "PassConfigKey member %s does not exist: compiling fails with AttributeError" % _name(name),
                help=_enum_help(name, None),
                fix=_fix.fix(_enum_help(name, None), None, _fix.DISPLAY_ONLY),
            )
        elif (key.strip()[:3].lower() == "tl." or _unqualified(key)) and key not in C.KNOWN_KEYS:
            # an enum member's name, a key without its `tl.` namespace or in the wrong case
            # (`"TL.ASCEND_AUTO_SYNC"`: keys are matched exactly) is not a key either
            meant = _unqualified(key) or _RAW_SLIPS.get(key) or _RAW_SLIPS.get(key.lower()) \
                or _BY_LOWER.get(key.strip().lower())
            near = [meant] if meant else _close(key if key.startswith("tl.") else key.lower(), _RAW_KEYS, n=3)
            advice = _advice(near, "`%s`", "Use a key registered in `PassConfigKey`, or remove it")
            edits = None
            if meant and not _already_in_dict(entry.node, meant):
                edits = _fix.replace_string(entry.node, meant)
            yield report(
                entry.node,
                "pass config key %s is not registered: the compile aborts with "
                "`AttributeError: Invalid config option`" % quoted(key),
                help=advice,
                fix=_fix.fix(advice, edits, _fix.UNSAFE),
            )


def _slips():
    """The known slips, derived from the enum, never guessed: the enum member
    named after its raw key (`TL_ASCEND_AUTO_CROSS_CORE_SYNC`, the member is
    `TL_ASCEND_AUTO_CV_SYNC`), and the raw key spelt after its member
    (`"tl.ascend_auto_cv_sync"`, the key is `"tl.ascend_auto_cross_core_sync"`)."""
    enum, raw = {}, {}
    for member, key in C.PASS_CONFIG_ENUM.items():
        if not key.startswith("tl."):
            continue
        alias = "TL_" + key[3:].upper()
        if alias != member and alias not in C.PASS_CONFIG_ENUM:
            enum[alias] = member
        spelt = "tl." + member[3:].lower() if member.startswith("TL_") else None
        if spelt and spelt != key and spelt not in C.KNOWN_KEYS:
            raw[spelt] = key
    for key in C.KNOWN_KEYS:  # a case slip of a registered key (`tl.simplify`)
        if key.lower() != key and key.lower() not in C.KNOWN_KEYS:
            raw[key.lower()] = key
    return enum, raw


_ENUM_SLIPS, _RAW_SLIPS = _slips()
_BY_LOWER = {k.lower(): k for k in C.KNOWN_KEYS if k.startswith("tl.")}


def _already_in_dict(node, key: str) -> bool:
    """The dict display that holds ``node`` as a key already has ``key`` (or
    the fix could not tell): renaming would write a duplicate key."""
    ctx = _fix.current()
    if ctx is None or ctx.tree is None:
        return True
    holder = ctx.dict_of_key(node)
    if holder is None:
        return False  # not a dict display key (a subscript assignment, a call argument)
    for other in holder.keys:
        if other is node:
            continue
        if other is None:
            return True  # `**base` may hold it
        if isinstance(other, ast.Constant) and isinstance(other.value, str):
            spelt = other.value
        elif isinstance(other, ast.Attribute):
            spelt = C.PASS_CONFIG_ENUM.get(other.attr, "?")
        else:
            return True
        if spelt == key:
            return True
    return False


def _advice(near, form: str, otherwise: str) -> str:
    if not near:
        return otherwise
    if len(near) == 1:
        return "Use " + form % near[0]
    return "Did you mean " + " or ".join(form % n for n in near) + "? (more than one key is close: check by hand)"


def _unqualified(key: str):
    """The registered key a raw string means without its namespace:
    ``"TL_ASCEND_AUTO_SYNC"`` / ``"ascend_auto_sync"`` -> ``"tl.ascend_auto_sync"``."""
    if key.upper() in C.PASS_CONFIG_ENUM:
        return C.PASS_CONFIG_ENUM[key.upper()]
    if not key.startswith("tl.") and "tl." + key.lower() in C.KNOWN_KEYS:
        return "tl." + key.lower()
    return None


def _enum_help(name: str, meant) -> str:
    near = [meant] if meant else ([n for n in _ENUM_NAMES if n.startswith(name) and n != name][:4]
                                  or _close(name, _ENUM_NAMES, n=3))
    return _advice(near, "`PassConfigKey.%s`", "Use a member of `PassConfigKey`, or remove the key")


@rule(
    code="TLA051",
    autofix="""
Unsafe (`--fix --unsafe-fixes`) when the value spells one boolean: the
strings `"True"`/`"true"`/`"1"`/`"on"`/`"yes"` -> `True`, `"False"`/`"false"`/
`"0"`/`"off"`/`"no"` -> `False`, the floats `1.0`/`0.0` -> `True`/`False`,
written where the key is. Unsafe because the switch then takes effect (today
the compile aborts): the compiler does something else. `None`, a list or any
other string has no single meaning: display-only.
""",
    name="non-bool-pass-config-value",
    severity=ERROR,
    confidence="high",
    summary="a boolean pass_configs switch set to a string, None, a float or a list",
    what="""
Reports a boolean key (every Ascend switch, and the other boolean options)
whose value is a string (`"True"`), `None`, a float or a list/tuple/dict.
`True`/`False` and the integers `1`/`0` are fine. Options that are not
booleans are not judged: `tl.Simplify` and `tir.Simplify` take a dict of
SimplifyConfig fields, `tl.config_index_bitwidth` and `tl.dynamic_alignment`
an integer, `cuda.kernels_output_dir` a path, `tir.add_lower_pass` a list.
""",
    why="""
TVM converts each value to the option's type when the kernel is compiled:
`None` fails with `AttributeError: <key> is None`, and a string or float
fails with `expect config <key> to have type IntImm`. The string `"False"`
would not even mean false.
""",
    fix="Write `True` or `False`.",
    known_false_positives="None known.",
    references="TVM `PassConfigManager::Legalize`; rules-reference §a.3.",
)
def non_bool_pass_config_value(model) -> Iterator[Report]:
    if not model.is_ascend:  # upstream (CUDA) TileLang has other keys and no Ascend pipeline
        return
    for _, entry in _entries(model):
        if entry.key not in C.KNOWN_KEYS or entry.key in C.NON_BOOL_KEYS or not entry.raw_known:
            continue
        raw = entry.raw
        if isinstance(raw, bool) or (type(raw) is int):
            continue
        if raw is None:
            shown = "None"
        elif isinstance(raw, (list, tuple, dict)):
            shown = "a %s" % type(raw).__name__
        else:
            shown = "%s (%s)" % (quoted(raw, 40), type(raw).__name__)
        yield report(
            entry.value_node or entry.node,
            "%s is set to %s, not a boolean: the compile aborts"
            % (C.SWITCH_ENUM.get(entry.key, quoted(entry.key)), shown),
            help=_bool_fix(entry).title,
            fix=_bool_fix(entry),
        )


_TRUE = ("true", "1", "on", "yes")
_FALSE = ("false", "0", "off", "no")


def _bool_fix(entry):
    """`"True"` -> `True`, `"false"` -> `False`, `1.0` -> `True`: the one
    boolean the value spells; anything else (None, a list, "maybe") has no
    candidate and the fix is only shown."""
    node, raw = entry.value_node, entry.raw
    meant = None
    if isinstance(raw, str):
        low = raw.strip().lower()
        meant = "True" if low in _TRUE else "False" if low in _FALSE else None
    elif isinstance(raw, float) and raw in (0.0, 1.0):
        meant = "True" if raw else "False"
    edits = None
    if meant and isinstance(node, ast.Constant) and node.value == raw and type(node.value) is type(raw):
        edits = _fix.replace_node(node, meant)
    return _fix.fix("Write %s" % meant if meant else "Write True or False", edits, _fix.UNSAFE)


@rule(
    code="TLA052",
    autofix="""
Unsafe (`--fix --unsafe-fixes`): deletes the entry (its whole line when it
has one, else the entry and its comma). Unsafe because a config shared with
kernels in other files may need the key there; the `TL_ASCEND_AUTO_CV_SYNC`
entry of a module-level dict another module of the project may import is not
deleted at all (display-only).
""",
    name="inert-pass-config",
    severity=INFO,
    confidence="medium",
    summary="a pass_configs key with no effect on the Ascend pipeline",
    what="""
Reports a key that no pass on the Ascend pipeline reads (`tl.Simplify`,
`tl.disable_tma_lower`, `tir.disable_cse_tir`, ...), and
`TL_ASCEND_AUTO_CV_SYNC` turned on (with COMBINE on) for kernels that are pure
Vector work: no `T.gemm_v0`/`T.mma` and no Cube allocation, so there is no
Cube->Vector handoff to synchronise. The latter only when every kernel the
config reaches is pure Vector. Opt-in.
""",
    why="""
The key does nothing here, and it misleads readers about what the compiler
does for this kernel (rules-reference §a.2 lists each key and its reader).
""",
    fix="Remove the key.",
    known_false_positives="""
A config shared with kernels in other files may need the key there. Which
keys are inert was read from the compiler source, not measured [inferred].
""",
    references="rules-reference §a.2; `tilelang/engine/phase.py:49-112` (the Ascend pass list).",
    default_enabled=False,
)
def inert_pass_config(model) -> Iterator[Report]:
    if not model.is_ascend:  # upstream (CUDA) TileLang has other keys and no Ascend pipeline
        return
    for _, entry in _entries(model):
        if entry.key in C.INERT_KEYS:
            yield report(
                entry.node,
                "pass config %s has no effect on the Ascend pipeline: no pass reads it" % quoted(entry.key),
                help="Remove the key",
                fix=_fix.fix("Remove the key", _fix.delete_dict_entry(entry.node), _fix.UNSAFE),
            )
    by_entry = {}
    for site in model.sites:
        entry = site.config.entries.get(C.AUTO_CV_SYNC)
        if entry is None or entry.filename != model.filename or not site.config.is_on(C.AUTO_CV_SYNC) \
                or not site.config.is_on(C.AUTO_CV_COMBINE):
            continue
        by_entry.setdefault(id(entry.node), (entry, []))[1].append(site)
    for entry, sites in by_entry.values():
        kernels = [k for s in sites for k in s.kernels]
        if not kernels or any(s.kernels == [] for s in sites):
            continue
        if all(_pure_vector(k) for k in kernels):
            from ..sharing import shared_beyond

            ctx = _fix.current()
            # another module of the project may read the dict for a Cube kernel: no edit
            edits = None if shared_beyond(model.filename, ctx.tree if ctx else None, entry.node) \
                else _fix.delete_dict_entry(entry.node)
            yield report(
                entry.node,
                "TL_ASCEND_AUTO_CV_SYNC has nothing to synchronise: the kernels it reaches (%s) do no "
                "Cube work" % _names(sorted({k.display_name for k in kernels})),
                help="Remove the key",
                fix=_fix.fix("Remove the key", edits, _fix.UNSAFE),
            )


def _names(names, limit=3) -> str:
    if len(names) > limit:
        return "%s and %d more" % (", ".join(names[:limit]), len(names) - limit)
    return ", ".join(names)


def _pure_vector(kernel) -> bool:
    cube = tuple(CUBE_OPS | CUBE_ALLOCS | INFERRED_CUBE)
    return not any(True for _ in kernel.uses_of(*cube, maybe=True)) and any(
        kernel.side(u) == "V" or u.prim == "Parallel" for u in kernel.uses_for(None))


@rule(
    code="TLA053",
    name="lower-without-pass-context",
    severity=INFO,
    confidence="high",
    summary="`tilelang.lower(...)` outside any PassContext: every Ascend switch is off",
    what="""
Reports `tilelang.lower(...)` / `tilelang.engine.lower(...)` that runs with
no `tvm.transform.PassContext` (or `tilelang.transform.PassContext`) entered:
not inside its `with`, nor in a function the module calls from inside one.
The `kernels` inventory shows such a site with every switch off. Opt-in.
""",
    why="""
`lower()` takes no `pass_configs`: it reads the ambient PassContext, so
outside one every `TL_ASCEND_*` switch is off and the generated code differs
from what `@tilelang.jit` produces for the same kernel (#1816). That is fine
for a consistent Expert kernel, which is why this is information only.
""",
    fix="Wrap the call: `with tvm.transform.PassContext(opt_level=3, config=PASS_CONFIGS): "
        "tilelang.lower(func)`.",
    known_false_positives="""
A function nothing in the module calls is read as called with no
PassContext entered: a caller in another module that enters one around it is
not seen.
""",
    references="`tilelang/engine/lower.py:193-233`; tile-ai/tilelang-ascend #1816, #1824.",
    default_enabled=False,
)
def lower_without_pass_context(model) -> Iterator[Report]:
    if not model.is_ascend:  # upstream (CUDA) TileLang has other keys and no Ascend pipeline
        return
    for site in model.sites:
        if site.outside_pass_context:
            yield report(
                site.site.node,
                "`tilelang.lower(...)` outside any PassContext compiles with every TL_ASCEND_* switch off",
                help="Wrap it in `with tvm.transform.PassContext(config=...)` if you meant the jit configs",
            )


def _close(word, candidates, n=1, cutoff=0.6):
    import difflib  # only when there is a typo to suggest a fix for

    return difflib.get_close_matches(word, candidates, n=n, cutoff=cutoff)
