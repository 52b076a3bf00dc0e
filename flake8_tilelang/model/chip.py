"""The chip table: every hardware number a rule compares a kernel with, and
where it comes from. One module, so a number is changed in one place.

``target-chip`` (pyproject / server setting) picks a row: ``"A2"``,
``"A3"`` or ``"A5"``; the default ``"A2/A3"`` is the Atlas A2 / A3 training
and inference series (910B / 910_93), whose numbers are the same. Rules whose
facts differ by chip say in their message which chip they assumed.
"""
from __future__ import annotations

from typing import Dict, Optional, Tuple

from .project import Setting

DEFAULT = "A2/A3"
NAMES = ("A2", "A3", "A5")
MEMORIES = ("UB", "L1", "L0A", "L0B", "L0C")


class Fact:
    """A number and its source."""

    __slots__ = ("value", "source")

    def __init__(self, value, source: str):
        self.value = value
        self.source = source

    def __repr__(self) -> str:
        return "Fact(%r)" % (self.value,)


class Chip:
    __slots__ = ("name", "capacity", "event_ids", "fp32_cube", "notes")

    def __init__(self, name: str, capacity: Dict[str, Fact], event_ids: Fact, fp32_cube: Fact):
        self.name = name
        self.capacity = capacity  # memory -> bytes per core (UB: per AIV)
        self.event_ids = event_ids  # (low, high) inclusive, T.set_flag / T.wait_flag
        # True: gemm_v0/mma on float32 A/B is supported; False: not (NaN); None: not known
        self.fp32_cube = fp32_cube

    def bytes(self, memory: str) -> Optional[int]:
        fact = self.capacity.get(memory)
        return None if fact is None else fact.value

    def __repr__(self) -> str:
        return "<Chip %s>" % self.name


_CATLASS = "catlass include/catlass/arch/arch.hpp (AtlasA2::UB_SIZE = 192*1024, L1_SIZE = 512*1024, L0A/L0B 64 KiB)"
_UB_A2 = Fact(196608, "physical 192 KiB per AIV: " + _CATLASS + "; TileLang's planner registers 256 B less "
              "(ASCEND_SHARED_MEM_SIZE 196352, src/transform/ascend_memory_planning.cc:34) but an upstream "
              "example uses exactly 192 KiB and runs, so the physical size is the limit")
_L1 = Fact(524288, "physical 512 KiB per AIC: " + _CATLASS + "; planner 524032 "
           "(ASCEND_SHARED_DYN_MEM_SIZE, ascend_memory_planning.cc:35)")
_L0A = Fact(65536, "64 KiB: catlass arch.hpp; ASCEND_WMMA_MATRIX_A_MEM_SIZE (ascend_memory_planning.cc:36)")
_L0B = Fact(65536, "64 KiB: catlass arch.hpp; ASCEND_WMMA_MATRIX_B_MEM_SIZE (ascend_memory_planning.cc:37; "
            "131072 before commit 267341cd 'fix incorrect l0b size')")
_L0C_A2 = Fact(131072, "128 KiB: ops-transformer gmm/common/groupedmatmul_act/utils/arch.h; "
               "ASCEND_WMMA_ACCUMULATOR_MEM_SIZE (ascend_memory_planning.cc:38)")
_EVENTS = Fact((0, 7), "CANN SetFlag/WaitFlag (atlasascendc_api_07_0270): event id 0-7 on Atlas A2, A3 and "
               "Ascend 950; cce intrinsics cceapi_0106: 3-bit event id; commit 0212f4cc wraps the compiler's "
               "own ids with % 8")
_FP32_A2 = Fact(False, "#13, #1093, #1725: float32 A/B through gemm_v0 gives NaN on 910B (fp32 16x8 fractal "
                "cannot be transposed); PR #1760 (open) would enable it")

A2A3 = {"UB": _UB_A2, "L1": _L1, "L0A": _L0A, "L0B": _L0B, "L0C": _L0C_A2}

CHIPS: Dict[str, Chip] = {
    "A2/A3": Chip("A2/A3", A2A3, _EVENTS, _FP32_A2),
    "A2": Chip("A2", A2A3, _EVENTS, _FP32_A2),
    "A3": Chip("A3", A2A3, _EVENTS, _FP32_A2),
    "A5": Chip("A5", {
        "UB": Fact(262144, "256 KiB: codegen_ascend.cc:30-40 (pipe.InitBuffer on A5); the planner still "
                           "registers 196352 (ascend_memory_planning.cc:113), so planning-on kernels may "
                           "fail earlier"),
        "L1": _L1, "L0A": _L0A, "L0B": _L0B,
        "L0C": Fact(262144, "256 KiB: codegen_ascend.cc:39 (__NPU_ARCH__ == 3101)"),
    }, _EVENTS, Fact(None, "A5 pto-isa: float32 A/B not documented either way")),
}

# The chip the current lint assumes (set by the engine from the settings; a
# context variable, so the language server's threads do not share it).
TARGET: "Setting[str]" = Setting("flake8_tilelang_target_chip", DEFAULT)


def normalise(name: object) -> Optional[str]:
    """The table's key for a setting's value, or None when it is not one."""
    if not isinstance(name, str):
        return None
    key = name.strip().upper().replace(" ", "")
    if key in ("A2/A3", "A2A3", "A3/A2", ""):
        return DEFAULT
    return key if key in CHIPS else None


def current() -> Chip:
    return CHIPS.get(TARGET.get(), CHIPS[DEFAULT])


def capacities(chip: Optional[Chip] = None) -> Tuple[Tuple[str, int], ...]:
    chip = chip or current()
    return tuple((m, chip.capacity[m].value) for m in MEMORIES)
