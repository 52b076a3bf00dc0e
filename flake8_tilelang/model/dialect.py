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

import ast
from typing import Optional

from .. import constants as C
from .calls import argument
from .project import Setting

NAMES = C.DIALECTS
# the `target` setting: the dialect of a compile site with no target (or "auto");
# None when the project does not set it (then Ascend C, see `default`)
DEFAULT: "Setting[Optional[str]]" = Setting("flake8_tilelang_target", None)


def default() -> str:
    """The dialect of a site that names no target: the setting, else Ascend C."""
    return DEFAULT.get() or C.ASCENDC


def configured() -> bool:
    """Whether the project chose the default dialect (``target`` is set):
    only then does it outweigh a kernel written in the other dialect."""
    return DEFAULT.get() is not None


def normalise(value: object) -> Optional[str]:
    """A ``target`` setting: "ascendc" (also "pto", "ascend-c") or "npuir"; None if neither."""
    if not isinstance(value, str):
        return None
    low = value.strip().lower().replace("-", "").replace("_", "")
    return {"ascendc": C.ASCENDC, "pto": C.ASCENDC, "npuir": C.NPUIR}.get(low)


def resolve(target: Optional[str]) -> Optional[str]:
    """A site's dialect from the evaluator's answer ("default" -> the setting)."""
    if target == C.DEFAULT_TARGET:
        return default()
    return target


def npuir_only_scope(name: Optional[str]) -> bool:
    """A ``T.Scope`` name only the npuir dialect spells (its two scopes)."""
    return name in ("Cube", "Vector")


# primitives of the Ascend C / PTO branch's `tilelang/language/ascend.py` that the
# npuir branch's `tilelang.language` does not define (with `T.tile.*`: Ascend C signs)
ASCENDC_ONLY = frozenset({
    "barrier_all", "gemm_v0", "set_cross_flag", "wait_cross_flag", "sync_all", "set_deq_scale",
    "reinterpretcast", "dump_tensor", "printf", "shmem_get_nbi", "shmem_put_nbi", "shmem_ub_get_nbi",
    "shmem_ub_put_nbi", "annotate_address",
})


def npuir_pipe(call) -> bool:
    """A sync call whose pipe is a literal ``"PIPE_..."``: the npuir spelling
    (``T.pipe_barrier("PIPE_MTE2")``); Ascend C writes ``"mte2"`` and
    prefixes it itself."""
    pipe = argument(call, 0, "pipe") if isinstance(call, ast.Call) else None
    return isinstance(pipe, ast.Constant) and isinstance(pipe.value, str) and pipe.value.startswith("PIPE_")
