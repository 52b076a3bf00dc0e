"""The differential oracle's driver: run a module under CPython with the
recording `tilelang` stub, ask the engine, compare.

What is compared (the oracle's definition of "agree")
-----------------------------------------------------
A *kernel* is a `T.prim_func`, named by the line of its `def`. A *compile* is
one call that turns a prim_func into a kernel: the wrapper made by
`tilelang.jit` (when the factory is called), `tilelang.compile`, or
`tilelang.lower` (under the current `PassContext`). Each recorded compile has

- the kernel it compiled (the prim_func object the call received);
- the effective value of the four Ascend switches (`tl.ascend_auto_sync`,
  `tl.ascend_memory_planning`, `tl.ascend_auto_cv_combine`,
  `tl.ascend_auto_cross_core_sync`) as TVM's PassContext reads the dict *at
  that moment*: absent or `pass_configs=None` = off; bool and int values by
  truth; any other value is "indeterminate" (the oracle claims nothing);
- its *site*: the source span of the call that decided the configuration —
  the `tilelang.jit(...)` call (for a bare `@tilelang.jit`, the decorator
  line), the `tilelang.compile(...)` call, the `PassContext(...)` call that
  was current for `tilelang.lower` (the `lower(...)` call outside any).

The engine's answer is the `kernels` inventory (`inventory.describe_file`):
per kernel (def line) a list of sites, each with a line (the line of the
pass_configs / config value or of the decorator) and per switch on / off /
unknown. An engine site *is at* a recorded compile when its line lies in the
compile's site span.

The rule — the engine agrees with CPython or says unknown, never differs:

1. wrong value: take the engine's sites of kernel K at one line (a helper
   compiled twice may be listed twice) and the compiles of K recorded at that
   site. Each engine site must match one recorded compile, and each recorded
   compile must be matched by one engine site (or by a site of K the engine
   could not place, which has no line), where a site matches a compile when
   they are equal on every switch the site decides (on/off). So a site that
   compiled K under both values of a switch says unknown for it or lists
   both.
2. wrong kernel: an engine site of K that decides a switch, at a site where
   only *other* kernels were compiled.
3. phantom compile (generated programs only, where every compile site is
   exercised): an engine site of K that decides a switch where CPython never
   compiled anything (dead code, a factory that returns another kernel).
   Except: when K has compiles recorded at none of its engine site lines (a
   `functools.partial(tilelang.compile, pass_configs=...)` is decided where
   the partial is made, recorded where it is called), such a site is judged
   against those compiles instead (each of its vectors must match one).
   In fixtures an unexercised site is skipped: CPython may simply not reach
   it (a function nobody calls).

4. wrong target: each recorded compile also has the dialect its `target`
   selects ("ascendc" for "ascendc" / "pto" / "auto" (the default setting),
   "npuir", or "other"); for a kernel the engine has sites for, the dialect of
   every recorded compile of it must be among the engine's `targets` of the
   kernel, or the engine must list "unknown" there.

A recorded compile with no engine site for it is *unknown* (silence), not a
disagreement. A compile whose config the real PassContext would reject (a key
that is not a PassConfigKey value) is left out.

*Decided exactly*: a recorded compile for which an engine site at it gives
all four switches, equal to the recorded ones. The share of compiles decided
exactly is what the oracle reports besides the disagreements.

How modules run: in this process, with `tests/oracle/stub` first on
sys.path and every `tilelang` / `tvm` module the stub's; each program's own
modules are dropped from sys.modules before and after; a wall-clock timer
stops a run after `timeout` seconds. After the module body, every jit factory
that was never called is called once with dummy arguments (the compile an
importer would make, with the dict's final state); a factory already called
at module level is not called again.
"""
from __future__ import annotations

import ast
import contextlib
import inspect
import os
import runpy
import signal
import sys
import threading
from typing import Dict, List, Optional, Tuple

STUB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "stub")
SWITCH_KEYS = (
    "tl.ascend_auto_sync",
    "tl.ascend_memory_planning",
    "tl.ascend_auto_cv_combine",
    "tl.ascend_auto_cross_core_sync",
)
ENUM_OF = {
    "tl.ascend_auto_sync": "TL_ASCEND_AUTO_SYNC",
    "tl.ascend_memory_planning": "TL_ASCEND_MEMORY_PLANNING",
    "tl.ascend_auto_cv_combine": "TL_ASCEND_AUTO_CV_COMBINE",
    "tl.ascend_auto_cross_core_sync": "TL_ASCEND_AUTO_CV_SYNC",
}
INDET = "indeterminate"
_STATE = {"on": True, "off": False, "unknown": None}


class RunError(Exception):
    """The module could not run under the stub (the reason is the message)."""


class _Timeout(BaseException):
    pass


@contextlib.contextmanager
def stub_installed():
    """The stub on sys.path and in sys.modules for the duration; the previous
    state (no tilelang at all, normally) is restored after."""
    current = sys.modules.get("tilelang")
    if current is not None and os.path.abspath(getattr(current, "__file__", "") or "").startswith(STUB):
        yield  # already installed (nested use)
        return
    saved_path = list(sys.path)
    saved = {name: mod for name, mod in sys.modules.items() if _is_stub_name(name)}
    for name in saved:
        del sys.modules[name]
    sys.path.insert(0, STUB)
    try:
        import tilelang  # noqa: F401  (the stub)
        from tilelang import _record  # noqa: F401
        yield
    finally:
        from tilelang import _finder
        _finder.uninstall()
        for name in [n for n in sys.modules if _is_stub_name(n)]:
            del sys.modules[name]
        sys.modules.update(saved)
        sys.path[:] = saved_path


def _is_stub_name(name):
    return name.split(".")[0] in ("tilelang", "tvm")


def _alarm(signum, frame):
    raise _Timeout()


def _dummy_args(fn):
    try:
        sig = inspect.signature(inspect.unwrap(fn))
    except (TypeError, ValueError):
        return None
    args = []
    for p in sig.parameters.values():
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty:
            args.append(64)
        elif p.kind == p.KEYWORD_ONLY and p.default is p.empty:
            return None
    return args


def _names_called(path):
    """The names the file calls anywhere (`run(...)`, `self.run(...)`)."""
    import ast

    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            out.add(f.id if isinstance(f, ast.Name) else getattr(f, "attr", None))
    return out


def _param_calls(fn):
    """The calls pytest makes of a test under `@pytest.mark.parametrize`
    (every combination of stacked marks): a list of (args, kwargs), a
    fixture it takes given a dummy value; None when it has no such mark."""
    marks = [m for m in getattr(fn, "pytestmark", []) if getattr(m, "name", None) == "parametrize"]
    if not marks:
        return None
    combos = [{}]
    for mark in marks:
        names, values = mark.args[0], mark.args[1]
        if isinstance(names, str):
            names = [n.strip() for n in names.split(",") if n.strip()]
        rows = []
        for v in values:
            if type(v).__name__ == "ParameterSet":  # pytest.param(...): its values, one per name
                rows.append(tuple(v.values))
            else:
                rows.append((v,) if len(names) == 1 else tuple(v))
        combos = [dict(c, **dict(zip(names, row))) for c in combos for row in rows]
    try:
        sig = inspect.signature(inspect.unwrap(fn))
    except (TypeError, ValueError):
        return None
    calls = []
    for combo in combos:
        kwargs = dict(combo)
        for p in sig.parameters.values():
            if p.name not in kwargs and p.default is p.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
                kwargs[p.name] = 64  # a fixture
        calls.append(((), kwargs))
    return calls


def _module_name(path):
    """(sys.path root, dotted module name) of a file, walking up packages."""
    folder, name = os.path.split(os.path.abspath(path))
    parts = [name[:-3]]
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        folder, pkg = os.path.split(folder)
        parts.insert(0, pkg)
    if parts[-1] == "__init__":
        parts.pop()
    return folder, ".".join(parts)


def _drop_modules_under(root):
    root = os.path.join(os.path.abspath(root), "")
    for name, mod in list(sys.modules.items()):
        f = getattr(mod, "__file__", None)
        if isinstance(f, str) and os.path.abspath(f).startswith(root):
            del sys.modules[name]


def run_module(path: str, timeout: float = 5.0, run_name: Optional[str] = None,
               call_uncalled: bool = True, inert=(), call_functions: bool = False) -> List[dict]:
    """Run `path` under the (installed) stub; the recorded compiles as dicts.
    A module inside packages runs as `pkg.mod` (relative imports work).
    `run_name`: `__name__` for the run (default: the module's dotted name).
    `inert`: third-party top-level packages to fake when not installed.
    `call_functions`: afterwards call, with dummy arguments, every module-level
    function of the file the run never called (fixtures: `def run(): ...
    tilelang.compile(...)` is how test scripts compile).
    Every module loaded from the file's sys.path root is dropped from
    sys.modules before and after. Raises RunError when the module fails."""
    from tilelang import _record, _finder

    root, modname = _module_name(path)
    _record.reset()
    _drop_modules_under(root)
    sys.path.insert(0, root)
    saved_extra = set(_finder.EXTRA_ROOTS)
    _finder.EXTRA_ROOTS.update(inert)
    saved_bytecode = sys.dont_write_bytecode
    sys.dont_write_bytecode = True
    saved_hook = threading.excepthook
    threading.excepthook = lambda args: None  # a thread a fixture starts fails quietly
    saved_argv = sys.argv
    sys.argv = [os.path.abspath(path)]  # argparse at module level sees no options
    old = signal.signal(signal.SIGALRM, _alarm)
    # fires again every 50 ms: a signal that arrives while a C function is raising can lose
    # the handler's exception (a loop whose `except` catches that error would then run on)
    signal.setitimer(signal.ITIMER_REAL, timeout, 0.05)
    called = set()
    here = os.path.abspath(path)

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename == here:
            called.add(frame.f_code)

    try:
        try:
            if call_functions:
                sys.setprofile(profile)
                threading.setprofile(profile)  # a pool's worker threads call functions too
            with open(os.devnull, "w") as devnull, contextlib.redirect_stdout(devnull):
                if "." in modname:
                    namespace = runpy.run_module(modname, run_name=run_name or modname)
                else:
                    namespace = runpy.run_path(here, run_name=run_name or modname)
        except _Timeout:
            raise RunError("timeout after %.1fs" % timeout)
        except SystemExit as exc:
            raise RunError("the module exits (SystemExit %s)" % exc.code)
        except BaseException as exc:  # the module's own failure: no verdict
            raise RunError("%s: %s" % (type(exc).__name__, exc))
        finally:
            sys.setprofile(None)
            threading.setprofile(None)
        if call_functions:
            # as the engine's sweep: first the functions nothing calls by name (tests, entry
            # points; a parametrized test once per row), then the rest the first ones did not call
            by_name = _names_called(here)
            for second in (False, True):
                for value in list(namespace.values()):
                    code = getattr(value, "__code__", None)
                    if (not inspect.isfunction(value) or code.co_filename != here or code in called
                            or hasattr(value, "__jit_impl__") or (not second and value.__name__ in by_name)):
                        continue
                    calls = _param_calls(value)
                    if calls is None:
                        args = _dummy_args(value)
                        if args is None:
                            continue
                        calls = [(args, {})]
                    for args, kwargs in calls:
                        sys.setprofile(profile)
                        threading.setprofile(profile)
                        try:
                            with open(os.devnull, "w") as devnull, contextlib.redirect_stdout(devnull):
                                value(*args, **kwargs)
                        except _Timeout:
                            raise RunError("timeout after %.1fs" % timeout)
                        except Exception:
                            pass  # needs real arguments: not exercised
                        finally:
                            sys.setprofile(None)
                            threading.setprofile(None)
        if call_uncalled:
            for wrapper in list(_record.JIT_WRAPPERS):
                if wrapper.__oracle_called__():
                    continue
                args = _dummy_args(wrapper)
                if args is None:
                    continue
                try:
                    wrapper(*args)
                except _Timeout:
                    raise RunError("timeout after %.1fs" % timeout)
                except Exception:
                    pass  # a factory that needs real arguments: not exercised
        return [c.as_dict() for c in _record.COMPILES]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        sys.dont_write_bytecode = saved_bytecode
        sys.argv = saved_argv
        threading.excepthook = saved_hook
        _finder.EXTRA_ROOTS.clear()
        _finder.EXTRA_ROOTS.update(saved_extra)
        sys.path.remove(root)
        sys.path_importer_cache.pop(root, None)
        _drop_modules_under(root)
        for name in [n for n in sys.modules if n.split(".")[0] in inert]:
            del sys.modules[name]


def def_lines(path: str) -> Dict[Tuple[str, int], int]:
    """(function name, code first line) -> def line, for every function in
    the file (a decorated function's code starts at its first decorator)."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([d.lineno for d in node.decorator_list] + [node.lineno])
            out[(node.name, first)] = node.lineno
    return out


def engine_answer(path: str) -> List[dict]:
    """The engine's public answer for one file: the `kernels` inventory."""
    from flake8_tilelang.inventory import describe_file

    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    out = []
    for entry in describe_file(path, tree, []):
        sites = []
        for site in entry["sites"]:
            sites.append({
                "line": site["line"],
                "switches": {k: _STATE[site["switches"][ENUM_OF[k]]["state"]] for k in SWITCH_KEYS},
            })
        defined = entry.get("defined_in")  # another module's kernel, compiled in this file
        key = entry["line"] if not defined else (os.path.abspath(defined["file"]), defined["line"])
        out.append({"line": entry["line"], "key": key, "name": entry["kernel"], "sites": sites,
                    "targets": list(entry.get("targets", ["unknown"]))})
    return out


class Verdict:
    def __init__(self):
        self.compiles = 0       # recorded compiles judged
        self.decided = 0        # of those, decided exactly by the engine
        self.disagreements: List[str] = []
        self.skipped_sites = 0  # engine sites CPython never reached (fixtures)

    def __repr__(self):
        return "Verdict(compiles=%d, decided=%d, disagreements=%r)" % (
            self.compiles, self.decided, self.disagreements)


def _fmt(switches):
    short = {"tl.ascend_auto_sync": "sync", "tl.ascend_memory_planning": "mem",
             "tl.ascend_auto_cv_combine": "cv", "tl.ascend_auto_cross_core_sync": "cvsync"}
    return "{%s}" % ", ".join("%s=%s" % (short[k], {True: "on", False: "off", None: "?"}.get(v, "indet"))
                              for k, v in switches.items())


def _covers(engine_sw, recorded_sw):
    return all(e is None or (r != INDET and e == r) for e, r in
               ((engine_sw[k], recorded_sw[k]) for k in SWITCH_KEYS))


def compare(path: str, recorded: List[dict], engine: List[dict], strict_sites: bool) -> Verdict:
    """Judge the engine's answer for `path` against what CPython recorded (see
    the module docstring). `strict_sites`: every site was exercised, so an
    engine site with no recorded compile is a phantom (generated programs)."""
    verdict = Verdict()
    path = os.path.abspath(path)
    lines = def_lines(path)
    compiles = []  # (kernel def line or None, first, last, switches), valid configs only
    rejected = []  # the same for configs the real PassContext rejects: not judged
    for rec in recorded:
        k = rec["kernel"]
        kline = None
        if k is not None and os.path.abspath(k["file"]) == path:
            kline = lines.get((k["name"], k["firstlineno"]))
        elif k is not None:  # a kernel of another module: known by its file and def line
            kfile = os.path.abspath(k["file"])
            kline = (kfile, def_lines(kfile).get((k["name"], k["firstlineno"])))
        span_file, first, last = rec["span"]
        if os.path.abspath(span_file) != path:
            first = last = -1  # decided in another module: no engine line can be at it
        (compiles if rec["valid"] else rejected).append((kline, first, last, rec["switches"]))

    by_kernel: Dict[object, dict] = {}  # a kernel of another module has an entry per compile call here
    for e in engine:
        key = e.get("key", e["line"])
        if key in by_kernel:
            by_kernel[key] = dict(by_kernel[key], sites=by_kernel[key]["sites"] + e["sites"])
        else:
            by_kernel[key] = e

    def at(line, c):
        return c[1] <= (line if line is not None else -2) <= c[2]

    # 1-3: the engine's sites of each kernel, grouped by line, are judged together
    for kernel in engine:
        groups: Dict[object, list] = {}
        for site in kernel["sites"]:
            groups.setdefault(site["line"], []).append(site["switches"])
        # compiles of this kernel at none of its engine site lines: a site the
        # engine places elsewhere than the deciding call (a functools.partial
        # of tilelang.compile is decided where the partial is made)
        key = kernel.get("key", kernel["line"])
        orphans = [c for c in compiles if c[0] == key and not any(at(line, c) for line in groups)]
        unlocated = groups.get(None, [])  # a site the engine could not place: it may be any call
        for line, every in groups.items():
            claims = [c for c in every if any(v is not None for v in c.values())]
            if not claims:
                continue
            here = [c for c in compiles if at(line, c)]
            mine = [c for c in here if c[0] == key]
            if not mine and any(at(line, c) for c in rejected):
                continue  # a compile that fails in the real library: nothing to judge
            where = "kernel %s (line %d), site line %s" % (kernel["name"], kernel["line"], line)
            shown = " / ".join(_fmt(c) for c in claims)
            if mine:
                bad = [c for c in claims if not any(_covers(c, r[3]) for r in mine)]
                missed = [r for r in mine if not any(_covers(c, r[3]) for c in every + unlocated)]
                if bad or missed:
                    verdict.disagreements.append("wrong value: %s: engine %s, CPython %s" % (
                        where, shown, " / ".join(_fmt(r[3]) for r in mine)))
            elif here:
                verdict.disagreements.append("wrong kernel: %s: engine %s, CPython compiled only %s there" % (
                    where, shown, sorted({str(c[0]) for c in here})))
            elif orphans:
                if any(not any(_covers(c, r[3]) for r in orphans) for c in claims):
                    verdict.disagreements.append("wrong value: %s: engine %s, CPython %s (elsewhere)" % (
                        where, shown, " / ".join(_fmt(r[3]) for r in orphans)))
            elif strict_sites:
                verdict.disagreements.append("phantom compile: %s: engine %s, CPython compiled nothing there" % (
                    where, shown))
            else:
                verdict.skipped_sites += 1
    # 4: the target of every recorded compile of a kernel the engine has sites for
    for rec in recorded:
        k = rec["kernel"]
        if k is None or os.path.abspath(k["file"]) != path:
            continue
        kernel = by_kernel.get(lines.get((k["name"], k["firstlineno"])))
        targets = kernel.get("targets", ["unknown"]) if kernel is not None else []
        if kernel is None or not kernel["sites"] or "unknown" in targets:
            continue
        if rec.get("dialect", "ascendc") not in targets:
            verdict.disagreements.append("wrong target: kernel %s (line %d): engine %s, CPython %s" % (
                kernel["name"], kernel["line"], "/".join(targets), rec.get("dialect")))
    # the share decided exactly
    for kline, first, last, switches in compiles:
        if kline is None:
            continue
        verdict.compiles += 1
        kernel = by_kernel.get(kline)
        if kernel is None:
            continue
        sites = [s for s in kernel["sites"] if at(s["line"], (kline, first, last))]
        if not sites:  # an orphan compile: the engine's sites of K where no compile of K was recorded
            sites = [s for s in kernel["sites"] if not any(c[0] == kline and at(s["line"], c) for c in compiles)]
        if any(all(s["switches"][k] is not None and s["switches"][k] == switches[k] for k in SWITCH_KEYS)
               for s in sites):
            verdict.decided += 1
    return verdict


def check_file(path: str, strict_sites: bool = False, timeout: float = 5.0,
               run_name: Optional[str] = None, inert=(), call_functions: bool = False) -> Verdict:
    """Run + ask the engine + compare, for one file (the stub must be installed)."""
    recorded = run_module(path, timeout=timeout, run_name=run_name, inert=inert,
                          call_functions=call_functions)
    return compare(path, recorded, engine_answer(path), strict_sites)


def check_source(main: str, siblings: Optional[Dict[str, str]] = None, folder: str = "",
                 strict_sites: bool = True, timeout: float = 5.0) -> Verdict:
    """Write a generated program (`gen_main.py` plus sibling modules) into
    the fresh folder `folder` and check it."""
    for name, text in (siblings or {}).items():
        with open(os.path.join(folder, name + ".py"), "w", encoding="utf-8") as f:
            f.write(text)
    path = os.path.join(folder, "gen_main.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(main)
    return check_file(path, strict_sites=strict_sites, timeout=timeout)
