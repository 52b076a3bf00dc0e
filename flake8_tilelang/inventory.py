"""``flake8-tilelang kernels``: every kernel, its mode, its switches and what
it does by hand, to plan an Expert-to-Developer migration.

Mode of a kernel under one compile site's pass_configs:

- Developer: all four Ascend switches on and no Expert primitive
  (``T.Scope``, hand-written syncs, cross-core flags, Expert allocations);
- Expert: all four switches off;
- Mixed: anything else;
- unknown: a switch that cannot be resolved, or no compile site found.

A kernel compiled at several sites gets the common mode, Mixed when the sites
disagree, unknown when any site is unknown.
"""
from __future__ import annotations

import ast
import os
from typing import Dict, Iterable, List, Optional, Sequence

from . import constants as C
from .model.config import shown_path

DEVELOPER, EXPERT, MIXED, UNKNOWN = "Developer", "Expert", "Mixed", "unknown"
MODES = (DEVELOPER, EXPERT, MIXED, UNKNOWN)
SHORT = {
    C.AUTO_SYNC: "AUTO_SYNC",
    C.MEMORY_PLANNING: "MEM_PLAN",
    C.AUTO_CV_COMBINE: "CV_COMBINE",
    C.AUTO_CV_SYNC: "CV_SYNC",
}
STATE = {True: "on", False: "off", None: "unknown"}


def counts(kernel) -> Dict[str, int]:
    out = {"scopes": 0, "manual_syncs": 0, "cross_core_flags": 0, "expert_allocs": 0}
    for use in kernel.uses:
        prim = use.prim
        if prim == "Scope":
            out["scopes"] += 1
        elif prim in C.INTRA_CORE_SYNC:
            out["manual_syncs"] += 1
        elif prim in C.CROSS_CORE_SYNC:
            out["cross_core_flags"] += 1
        elif prim in C.EXPERT_ALLOCS:
            out["expert_allocs"] += 1
    return out


def config_mode(config, expert_prims: bool, vector_only: bool = False, only_scopes: bool = False) -> str:
    """``only_scopes``: the kernel's only Expert primitives are ``T.Scope``
    blocks (a pure Vector kernel keeps its ``T.Scope("V")`` while COMBINE is
    off: upstream rejects unscoped code since #1606/#1753, see TLA013)."""
    states = [config.state(key) for key in C.SWITCHES]
    if any(s is None for s in states):
        return UNKNOWN
    if all(states):
        return MIXED if expert_prims else DEVELOPER
    if not any(states):
        return EXPERT
    if vector_only and config.state(C.AUTO_SYNC) and config.state(C.MEMORY_PLANNING) \
            and not config.state(C.AUTO_CV_SYNC) and (
                not expert_prims or (only_scopes and not config.state(C.AUTO_CV_COMBINE))):
        return DEVELOPER  # the mode guide's §2.2 row for pure Vector kernels: AUTO_SYNC + MEMORY_PLANNING
    return MIXED


def pure_vector(kernel) -> bool:
    """No Cube work at all (no `T.gemm_v0`/`T.mma`, no Cube buffer): the
    guide's pure Vector kernel, whose Developer config is AUTO_SYNC +
    MEMORY_PLANNING."""
    from .model.sides import CUBE_ALLOCS, CUBE_OPS, INFERRED_CUBE

    cube = tuple(CUBE_OPS | CUBE_ALLOCS | INFERRED_CUBE | {"gemm"})
    return not any(True for _ in kernel.uses_of(*cube, maybe=True))


def kernel_mode(site_modes: Sequence[str]) -> str:
    if not site_modes or UNKNOWN in site_modes:
        return UNKNOWN
    return site_modes[0] if len(set(site_modes)) == 1 else MIXED


def _display(path: str) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def _factory(kernel) -> Optional[str]:
    parent = getattr(kernel.func, "parent", None)
    names = []
    while parent is not None and getattr(parent, "kind", "module") != "module":
        names.append(parent.name)
        parent = getattr(parent, "parent", None)
    return ".".join(reversed(names)) or None


def _threads(kernel):
    values = []
    for launch in kernel.launches:
        count = launch.threads_count
        if count is None and isinstance(launch.threads, int) and not isinstance(launch.threads, bool):
            count = launch.threads
        values.append(count)
    if not values:
        return None
    return values[0] if len(values) == 1 else values


def _site_threads(kernel) -> List[Dict[str, object]]:
    """``threads=`` per compile site for a launch whose value differs between
    sites (a factory parameter): [{"line", "threads"}], "?" when unknown."""
    out = []
    for launch in kernel.launches:
        if launch.threads_count is not None:
            continue
        for line, value in launch.site_threads:
            if isinstance(value, (list, tuple)) and len(value) == 1:
                value = value[0]
            out.append({"line": line, "threads": value if value is None or type(value) is int else "?"})
    return out


def _span(kernel):
    node = kernel.func.node
    return node.lineno, getattr(node, "end_lineno", node.lineno)


def describe_file(display: str, tree: ast.Module, findings: Sequence) -> List[Dict[str, object]]:
    """The inventory entries of one parsed file; ``findings`` are what
    ``check`` reports for it (assigned to the kernel whose lines or configs
    they are on)."""
    from .model import build_model

    model = build_model(tree, display)
    out = []
    for kernel in list(model.kernels) + list(model.foreign):
        n = counts(kernel)
        expert = any(n.values())
        vector_only = pure_vector(kernel)
        only_scopes = not any(v for k, v in n.items() if k != "scopes")
        sites = []
        for config in kernel.configs:
            switches = {}
            for key in C.SWITCHES:
                entry = config.entries.get(key)
                switches[C.SWITCH_ENUM[key]] = {
                    "state": STATE[config.state(key)],
                    "where": config.where(key),
                    "file": _display(entry.filename) if entry is not None else None,
                    "line": entry.line if entry is not None else None,
                }
            origin_line = getattr(config.origin, "lineno", None)
            sites.append({
                "origin": config.origin_desc or "pass_configs",
                "line": origin_line,
                "mode": config_mode(config, expert, vector_only, only_scopes),
                "switches": switches,
            })
        first, last = _span(kernel)
        config_lines = {e.line for c in kernel.configs for e in c.entries.values()
                        if os.path.abspath(e.filename) == os.path.abspath(display)}
        config_lines |= {getattr(c.origin, "lineno", -1) for c in kernel.configs}
        defined_in = None
        if kernel.compiled_at is not None:
            # another module's kernel, compiled (and judged) at a call of this file
            defined_in = {"file": _display(kernel.func.filename), "line": kernel.line}
            first = last = kernel.compiled_at.lineno
            config_lines = set()
        diags = [{"code": f.code, "line": f.line, "column": f.char_col, "message": f.message,
                  "severity": f.severity}
                 for f in findings if first <= f.line <= last or f.line in config_lines]
        # the TL_ASCEND modes are Ascend C's: an npuir kernel (or one that may be) has none
        ascendc = kernel.applies((C.ASCENDC,))
        out.append({
            "file": display,
            "line": kernel.line if defined_in is None else first,
            "kernel": kernel.name,
            "defined_in": defined_in,
            "factory": _factory(kernel),
            "target": kernel.dialect or "unknown",
            "targets": [t or "unknown" for t in kernel.targets],
            "mode": kernel_mode([s["mode"] for s in sites]) if ascendc else "unknown",
            "sites": sites,
            "threads": _threads(kernel),
            "site_threads": _site_threads(kernel),
            "counts": n,
            "footprint": footprint(model, kernel) if ascendc else None,  # Ascend C's memory planning
            "diagnostics": diags,
        })
    return out


def footprint(model, kernel) -> Dict[str, object]:
    """Bytes per on-chip memory against the chip, per compile site: the
    buffer table's totals laid out as the compiler does (see
    ``model.buffers.SiteFacts.footprint``); ``bytes`` is None when the
    planning state or an annotated address is unknown."""
    from .model import chip as chips
    from .model.buffers import facts

    chip = chips.current()
    sites = []
    kf = facts(model, kernel)
    if kf.alloc_uses:
        for site in kf.sites:
            memories = {}
            for fp in site.footprints():
                count = sum(1 for b in site.buffers.values() if b.memory == fp.memory)
                if not count:
                    continue
                memories[fp.memory] = {
                    "bytes": fp.bytes, "capacity": chip.bytes(fp.memory), "method": fp.method,
                    "buffers": count, "complete": fp.complete,
                }
            planning = site.site.planning()
            sites.append({
                "site": site.site.label, "line": site.site.line, "defaults": site.site.defaults,
                "planning": STATE[planning], "memories": memories,
            })
    unknown = sum(1 for name in kf.alloc_uses if kf.memory.get(name) is None)
    return {"chip": chip.name, "sites": sites, "unplaced_buffers": unknown}


def inventory(files: Iterable, settings, findings_by_path: Dict[str, list]):
    """(entries, errors) for ``(display, bytes)`` pairs."""
    from .pipeline import parse

    entries: List[Dict[str, object]] = []
    errors: List[Dict[str, object]] = []
    for display, data in files:
        nb = None
        found = findings_by_path.get(display, [])
        if display.lower().endswith(".ipynb"):
            from .notebook import program, virtual_findings

            nb, _, tree, error = program(display, data)
            if nb is not None:
                found = virtual_findings(nb, found)
        else:
            _, tree, error = parse(display, data)
        if tree is None:
            errors.append({"file": display, "code": error.code, "message": error.message})
            continue
        try:
            from .model.chip import TARGET
            from .model.dialect import DEFAULT as DIALECT

            token = TARGET.set(getattr(settings, "target_chip", None) or "A2/A3")
            from .model.project import SRC

            dialect = DIALECT.set(getattr(settings, "target", None))  # None: not set (Ascend C)
            src = SRC.set(tuple(getattr(settings, "src", None) or ()))
            try:
                described = describe_file(display, tree, found)
                entries.extend(described if nb is None else [_in_cells(nb, display, e) for e in described])
            finally:
                SRC.reset(src)
                DIALECT.reset(dialect)
                TARGET.reset(token)
        except (RecursionError, MemoryError) as exc:  # like `check`: one file never ends the run
            errors.append({"file": display, "code": "E999", "message": "%s: %s" % (
                type(exc).__name__, str(exc) or "cannot build the kernel model")})
    entries.sort(key=lambda e: (e["file"], e.get("cell") or 0, e["line"]))
    return entries, errors


def _in_cells(nb, display: str, entry: Dict[str, object]) -> Dict[str, object]:
    """An entry of a notebook's joined cells with every line of that
    notebook as (cell, line in cell): ``cell`` beside each ``line``, and
    ``line 28`` in texts as ``cell 6, line 1``."""
    from .notebook import relabel

    def place(d: Dict[str, object]) -> None:
        line = d.get("line")
        if isinstance(line, int) and line > 0:
            d["cell"], d["line"] = nb.locate(line)

    place(entry)
    for site in entry["sites"]:  # type: ignore[union-attr]
        place(site)
        for switch in site["switches"].values():
            if switch.get("file") in (display, _display(display)) or switch.get("file") is None:
                place(switch)
                switch["where"] = relabel(nb, switch["where"])
    for diag in entry["diagnostics"]:  # type: ignore[union-attr]
        place(diag)  # its message says cells already (check's finding)
    for site in entry.get("site_threads") or ():  # type: ignore[union-attr]
        place(site)
    fp = entry.get("footprint")
    if isinstance(fp, dict):
        for site in fp.get("sites", []):
            place(site)
    return entry


def summary(entries: Sequence[Dict[str, object]]) -> Dict[str, object]:
    """Kernels counted once, in the file that defines them; a kernel another
    module defines and a file compiles is counted apart (``compiled_from_elsewhere``)."""
    by_mode = {m: 0 for m in MODES}
    own = [e for e in entries if not e.get("defined_in")]
    for e in own:
        by_mode[str(e["mode"])] += 1
    return {"kernels": len(own), "files": len({e["file"] for e in own}), "modes": by_mode,
            "compiled_from_elsewhere": len(entries) - len(own)}


def _switch_cell(entry: Dict[str, object], enum: str) -> str:
    cells = []
    for site in entry["sites"]:  # type: ignore[union-attr]
        sw = site["switches"][enum]
        state = {"on": "on", "off": "off", "unknown": "?"}[sw["state"]]
        if sw["line"] is None:
            cells.append(state)
        elif os.path.abspath(sw["file"]) == os.path.abspath(str(entry["file"])):
            cells.append("%s@%s%d" % (state, "c%d:" % sw["cell"] if sw.get("cell") else "", sw["line"]))
        else:
            cells.append("%s@%s:%d" % (state, shown_path(sw["file"], str(entry["file"])), sw["line"]))
    return "/".join(cells) or "-"


def _kib(n: int) -> str:
    k = n / 1024.0
    return ("%d" % k if k == int(k) else "%.1f" % k) + "K"


def _footprint_cell(entry: Dict[str, object]) -> str:
    fp = entry.get("footprint") or {}
    sites = fp.get("sites") or []  # type: ignore[union-attr]
    cells = []
    for memory in ("UB", "L1", "L0A", "L0B", "L0C"):
        best = None
        for site in sites:
            m = site["memories"].get(memory)
            if m is None:
                continue
            if best is None or (m["bytes"] or -1) > (best[0]["bytes"] or -1):
                best = (m, site)
        if best is None:
            continue
        m, site = best
        if m["bytes"] is None or (not m["bytes"] and not m["complete"]):
            cells.append("%s ?" % memory)
            continue
        mark = ("!" if m["bytes"] > m["capacity"] else "") + ("*" if site["defaults"] else "") + \
            ("" if m["complete"] else "~")
        cells.append("%s %s/%s%s" % (memory, _kib(m["bytes"]), _kib(m["capacity"]), mark))
    return " ".join(cells) or "-"


def _threads_cell(value, per_site=None) -> str:
    if value is None and per_site:  # differs between compile sites: one value each, as the switches
        return "/".join("none" if t["threads"] is None else str(t["threads"]) for t in per_site)
    if value is None:
        return "-"
    if isinstance(value, list):
        return ",".join("?" if v is None else str(v) for v in value)
    return str(value)


def _diag_cell(diags: Sequence[Dict[str, object]]) -> str:
    per: Dict[str, int] = {}
    for d in diags:
        per[str(d["code"])] = per.get(str(d["code"]), 0) + 1
    return " ".join("%s x%d" % (c, n) if n > 1 else c for c, n in sorted(per.items())) or "-"


def to_table(entries: Sequence[Dict[str, object]], errors: Sequence[Dict[str, object]],
             width: Optional[int] = None) -> str:
    """The inventory as a table; ``width``: the terminal's columns (long
    locations, names and diagnostic lists are cut with an ellipsis, the
    notes wrapped; a terminal too narrow for the columns gets one block per
    kernel instead)."""
    from .output.text import fit_table, records, wrap_note

    header = ["LOCATION", "KERNEL", "FACTORY", "TARGET", "MODE"] + [SHORT[k] for k in C.SWITCHES] + [
        "THREADS", "SCOPES", "SYNCS", "XFLAGS", "ALLOCS", "FOOTPRINT", "DIAGNOSTICS"]
    rows = [header]
    for e in entries:
        n: Dict[str, int] = e["counts"]  # type: ignore[assignment]
        diags: List[Dict[str, object]] = e["diagnostics"]  # type: ignore[assignment]
        rows.append(
            ["%s:%s%s" % (e["file"], "cell %s:" % e["cell"] if e.get("cell") else "", e["line"]),
             str(e["kernel"]) + (" (%s:%s)" % (shown_path(e["defined_in"]["file"], str(e["file"])),
                                               e["defined_in"]["line"])
                                 if e.get("defined_in") else ""),  # type: ignore[index]
             str(e["factory"] or "-"),
             "/".join(e["targets"]), str(e["mode"])]  # type: ignore[arg-type]
            + [_switch_cell(e, C.SWITCH_ENUM[k]) for k in C.SWITCHES]
            + [_threads_cell(e["threads"], e.get("site_threads")), str(n["scopes"]), str(n["manual_syncs"]),
               str(n["cross_core_flags"]), str(n["expert_allocs"]), _footprint_cell(e), _diag_cell(diags)])
    # LOCATION (cut at its start), KERNEL, FACTORY, FOOTPRINT and DIAGNOSTICS give way
    last = len(header) - 1
    lines = fit_table(rows, width, shrink=(0, 1, 2, last - 1, last), left=(0,))
    if width is not None and len(rows) > 1 and max(len(line) for line in lines) > width:
        lines = records(rows, width)  # too narrow for the columns: one block per kernel
    s = summary(entries)
    modes = s["modes"]
    lines.append("")
    lines.append(wrap_note("%d kernel%s in %d file%s: %s.%s" % (
        s["kernels"], "" if s["kernels"] == 1 else "s", s["files"], "" if s["files"] == 1 else "s",
        ", ".join("%d %s" % (modes[m], m) for m in MODES),  # type: ignore[index]
        " Also %d compiled by a file other than the one defining it (KERNEL (file:line), at the compile "
        "call, with that call's configs)." % s["compiled_from_elsewhere"] if s["compiled_from_elsewhere"] else ""),
        width))
    lines.append(wrap_note("Target: the dialect of each compile site (ascendc = Ascend C / PTO, npuir = AscendNPU IR, "
                           "where the site names none: the `target` setting); Modes and the TL_ASCEND switches are "
                           "Ascend C's.", width))
    in_notebooks = any(e.get("cell") for e in entries)
    lines.append(wrap_note("Switch cells: on@14 = set on at line 14 (file:line when set in another module%s); "
                           "off without a line = not set, so off; ? = unknown; one value per compile site, "
                           "separated by /." % ("; on@c3:4 = cell 3, line 4 of the notebook" if in_notebooks else ""),
                           width))
    chip = next((e["footprint"]["chip"] for e in entries if e.get("footprint")), None)  # type: ignore[index]
    if chip is not None:
        lines.append(wrap_note("Footprint cells: bytes per memory as the compiler lays the buffers out, against "
                               "the %s capacity (K = KiB; the largest over the compile sites, * = from the "
                               "factory's defaults, ! = over, ? = unknown planning or size, ~ = some sizes "
                               "unknown)." % chip, width))
    for err in errors:
        lines.append(wrap_note("%s: %s %s (not inventoried)" % (err["file"], err["code"], err["message"]), width))
    return "\n".join(lines) + "\n"
