"""The kernel model: built once per file, queried by every rule."""
from .config import Entry, PassConfig
from .model import FileModel, Kernel, KernelUse, MacroHop, build_model
from .nodes import CompileSite, Function, Launch, Use

__all__ = [
    "CompileSite", "Entry", "FileModel", "Function", "Kernel", "KernelUse", "Launch",
    "MacroHop", "PassConfig", "Use", "build_model",
]
