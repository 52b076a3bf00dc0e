"""The language server's lint worker: a child process that runs
``pipeline.lint_source`` (and the switch-hover table) off the server's
event loop, so a slow or runaway lint never delays hover, code actions or
the next message.

The server (``lsp.py``) talks to it over a ``multiprocessing`` pipe, one job
at a time:

- job:    ``{"id", "display", "path", "text", "settings", "buffers", "cells"}`` where
  ``buffers`` maps a path to the text of an open editor buffer (or None:
  closed) -- only what changed since the last job; the worker keeps the rest
  and the cross-module loader reads them instead of the disk; ``cells``: the
  text is a notebook the server put together from an LSP notebook document,
  answer with cell-relative findings;
- answer: ``("lint", id, findings, standalone, table)`` -- ``table`` lists
  the switches this file's kernels see, for hover (``logic.config_table``,
  from the model the lint built) -- or ``("error", id, message)``.

The server kills the worker when a job runs past its time cap (or a newer
change supersedes a slow one) and starts another; the worker's address space
is capped (``MEMORY_LIMIT``) so a hostile buffer costs a MemoryError here,
never the editor's memory.
"""
from __future__ import annotations

import gc
import os
import sys
from typing import Dict, Optional

# the worker's address space; the server itself stays small
MEMORY_LIMIT = 4 << 30


def _quiet_stdout() -> None:
    """fd 1 is the LSP channel the worker inherited: never write to it."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
    except OSError:
        pass
    sys.stdout = sys.stderr


def _limit_memory(limit: int) -> None:
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        if soft == resource.RLIM_INFINITY or soft > limit:
            resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ImportError, ValueError, OSError):  # not POSIX, or not allowed: the time cap still holds
        pass


class _Buffers:
    """The editor's open buffers, by path and by real path."""

    def __init__(self) -> None:
        self.texts: Dict[str, str] = {}
        self.real: Dict[str, str] = {}

    def update(self, changes: Dict[str, Optional[str]]) -> None:
        for path, text in changes.items():
            if text is None:
                self.texts.pop(path, None)
            else:
                self.texts[path] = text
        self.real = {}
        for path in self.texts:
            try:
                self.real[os.path.realpath(path)] = path
            except (OSError, ValueError):
                pass

    def __call__(self, path: str) -> Optional[str]:
        text = self.texts.get(path)
        if text is not None:
            return text
        try:
            own = self.real.get(os.path.realpath(path))
        except (OSError, ValueError):
            return None
        return self.texts.get(own) if own is not None else None


def _table(captured, logic) -> list:
    """The switch-hover rows of the models the lint built (a function of
    its own: no model stays referenced from the loop's variables)."""
    table = []
    try:
        for tree, model, filename in captured:
            table.extend(logic.config_table(model, tree, filename))
    except (Exception, RecursionError):  # noqa: B902 - a hover is not worth an error
        table = []
    del captured[:]
    return table


def main(conn, memory_limit: int = MEMORY_LIMIT) -> None:
    _quiet_stdout()
    _limit_memory(memory_limit)
    from .. import engine
    from ..model import crossmod
    from ..pipeline import lint_source
    from ..source import SourceFile
    from . import logic

    buffers = _Buffers()
    crossmod.set_source_provider(buffers)
    captured = []

    def observe(tree, model, filename):
        captured.append((tree, model, filename))

    engine.MODEL_OBSERVERS.append(observe)
    gc.collect()
    gc.freeze()  # the modules and the interpreter's own objects: never walked again
    conn.send(("ready", os.getpid()))
    done = 0
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        job_id = job.get("id")
        gc.disable()  # collect after the answer went out, not in the middle of the lint
        try:
            buffers.update(job.get("buffers") or {})
            text = job["text"] if job.get("text") is not None else buffers(job["path"])
            src = SourceFile.from_text(text or "")
            del captured[:]
            if job.get("cells"):  # an LSP notebook document: findings per cell, cell-relative lines
                result = lint_source(job["display"], src.raw, job["settings"])
                del captured[:]  # the switch table's lines are the joined cells': no hover
            elif job["display"].lower().endswith(".ipynb"):  # the notebook's JSON: findings on its lines
                from ..notebook import document_findings

                result = lint_source(job["display"], src.raw, job["settings"])
                result = result._replace(findings=document_findings(result.findings, src))
                del captured[:]  # the switch table's lines are the joined cells', not the JSON's: no hover
            else:
                result = lint_source(job["display"], src.raw, job["settings"], source=src)
            table = _table(captured, logic)
            conn.send(("lint", job_id, result.findings, result.cacheable, table))
            del result, src, text, table
        except MemoryError:
            del captured[:]
            conn.send(("error", job_id, "out of memory (the worker's limit is %d MiB)" % (memory_limit >> 20)))
        except (Exception, RecursionError) as exc:  # noqa: B902 - answer, never die silently
            del captured[:]
            conn.send(("error", job_id, "%s: %s" % (type(exc).__name__, str(exc)[:200])))
        finally:
            del captured[:]
            job = None
            gc.enable()
            done += 1
            # the lint's garbage, while the server publishes (nothing of it is
            # referenced any more: it goes with the young generations); now and
            # then everything, for what an odd path kept longer
            gc.collect(2 if done % 50 == 0 else 1)
