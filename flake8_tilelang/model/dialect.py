"""Which TileLang-Ascend dialect a kernel is written in.

tile-ai/tilelang-ascend has two backend routes with two dialects of
``tilelang.language``: Ascend C / PTO (branch ``ascendc_pto``, what every rule
here knows) and AscendNPU IR (branch ``npuir``, ``target="npuir"``). They
share names and mean different things: on npuir ``T.Scope("Vector")`` selects
the Vector core (``src/ir.cc``: ``scope_name == "Vector"``) and ``"V"`` would
be Cube; the pass configs are ``npuir.*`` keys, not the ``TL_ASCEND_*``
switches; ``T.Kernel`` takes up to two grid dimensions; ``T.alloc_local``
still exists. The evaluator reads each compile site's ``target``; this module
turns it into a dialect with the ``target`` setting (projects that are all
NPUIR: ``target = "npuir"``) for sites that give none.
"""
from __future__ import annotations

from typing import Optional

from .. import constants as C
from .project import Setting

NAMES = C.DIALECTS
# the dialect of a compile site with no target (or "auto"): the `target` setting
DEFAULT: "Setting[str]" = Setting("flake8_tilelang_target", C.ASCENDC)


def normalise(value: object) -> Optional[str]:
    """A ``target`` setting: "ascendc" (also "pto", "ascend-c") or "npuir"; None if neither."""
    if not isinstance(value, str):
        return None
    low = value.strip().lower().replace("-", "").replace("_", "")
    return {"ascendc": C.ASCENDC, "pto": C.ASCENDC, "npuir": C.NPUIR}.get(low)


def resolve(target: Optional[str]) -> Optional[str]:
    """A site's dialect from the evaluator's answer ("default" -> the setting)."""
    if target == C.DEFAULT_TARGET:
        return DEFAULT.get()
    return target


def npuir_only_scope(name: Optional[str]) -> bool:
    """A ``T.Scope`` name only the npuir dialect spells (its two scopes)."""
    return name in ("Cube", "Vector")
