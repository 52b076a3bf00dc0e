"""Reading the arguments of a call: one place for the keyword/positional
rules every part of the model and the rules rely on."""
from __future__ import annotations

import ast
from typing import Dict, Optional


def keyword_arg(call: ast.Call, name: str) -> Optional[ast.expr]:
    """The value passed as ``name=...``, or None."""
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return None


def argument(call: ast.Call, index: int, name: Optional[str] = None) -> Optional[ast.expr]:
    """The argument at a parameter position, passed by keyword ``name`` or
    positionally at ``index`` (None after a ``*args``, whose length is unknown)."""
    if name is not None:
        value = keyword_arg(call, name)
        if value is not None:
            return value
    if index < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args[:index + 1]):
        return call.args[index]
    return None


def root_name(expr) -> Optional[str]:
    """The name an attribute, subscript or call chain starts from
    (``configs.CFG.update`` and ``EPILOGUES[name](x)`` -> ``configs``,
    ``EPILOGUES``), or None."""
    while isinstance(expr, (ast.Attribute, ast.Subscript, ast.Call)):
        expr = expr.func if isinstance(expr, ast.Call) else expr.value
    return expr.id if isinstance(expr, ast.Name) else None


def bind_arguments(func: ast.AST, call: ast.Call, skip_first: bool = False) -> Dict[str, ast.expr]:
    """parameter name -> the expression ``call`` passes for it, for the
    parameters that can be told (``skip_first`` drops ``self``/``cls``)."""
    args = func.args  # type: ignore[attr-defined]
    positional = [a.arg for a in list(args.posonlyargs) + list(args.args)]
    if skip_first:
        positional = positional[1:]
    bound: Dict[str, ast.expr] = {}
    for name, value in zip(positional, call.args):
        if isinstance(value, ast.Starred):
            break
        bound[name] = value
    for kw in call.keywords:
        if kw.arg is not None:
            bound[kw.arg] = kw.value
    return bound


def parameter_default(func: ast.AST, name: str) -> Optional[ast.expr]:
    """The default expression of parameter ``name`` of a def, or None."""
    args = func.args  # type: ignore[attr-defined]
    positional = list(args.posonlyargs) + list(args.args)
    for param, default in zip(positional[len(positional) - len(args.defaults):], args.defaults):
        if param.arg == name:
            return default
    for param, default in zip(args.kwonlyargs, args.kw_defaults):
        if param.arg == name:
            return default
    return None
