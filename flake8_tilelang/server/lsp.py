"""The language server: pygls glue around ``pipeline.lint_source``.

- Diagnostics on open and on change for the editor's buffer, with the real
  range, severity, code, source and ``codeDescription`` when a docs URL is
  configured; a module that other open files import (an open buffer, a save,
  a file changed on disk) re-lints those files.
- Linting runs in a worker process (``worker.py``), one job at a time, never
  on the event loop: a newer change supersedes the lint of an older version
  (its result is not published; a lint still running after ``CANCEL_AFTER``
  is cancelled by restarting the worker), a lint past the time cap is killed
  and reported, the worker's memory is capped. While a buffer does not parse
  (an unclosed string as you type), the findings of the last version that
  did stay, moved past the edit, beside the syntax error.
- Hover: a finding's rule summary, switch and fix with a link to the rule's
  page; a code in a ``# noqa`` comment; where a ``pass_configs`` switch gets
  its value (also on a key of a dict in another module that an open kernel
  uses).
- Code actions: each finding's fix (unsafe ones only with ``unsafeFixes``),
  "disable CODE for this line" (``# noqa``), and
  ``source.fixAll.flake8-tilelang``; the command
  ``flake8-tilelang.applyAutofix`` applies the latter through
  ``workspace/applyEdit``.
- Settings: the closest configured pyproject.toml per file (Ruff's rule),
  overridden by the initialization options (or ``didChangeConfiguration``).
- Position encoding: UTF-8 when the client offers it, else UTF-16.
- Notebooks: an LSP notebook document (VS Code's and JupyterLab's notebook
  editors) is linted as one module, its code cells in order, like
  ``check`` reads a ``.ipynb`` file; diagnostics are published on each cell,
  with hover, quick fixes and "fix all" (a fix's edits may be in other cells:
  each edit names its cell) and "disable CODE for this line" there. A ``.ipynb`` opened
  as a JSON text document gets its findings on the JSON's lines.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import re
import sys
import time
from typing import Dict, List, Optional

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method
from pygls.uris import from_fs_path, to_fs_path

from .. import __version__
from ..diagnostic import SAFE
from ..output import rule_url
from ..pipeline import Finding, simple
from ..settings import IO_ERROR, SYNTAX_ERROR, Settings, SettingsFinder, build_settings
from ..source import DecodeError, SourceFile, decode
from . import logic

logger = logging.getLogger(__name__)

NAME = "flake8-tilelang"
FIX_ALL_KIND = "source.fixAll.flake8-tilelang"
APPLY_AUTOFIX = "flake8-tilelang.applyAutofix"
DEFAULT_DEBOUNCE_MS = 0  # an idle worker lints at once; changes made meanwhile are coalesced
DEFAULT_LINT_TIMEOUT = 10.0  # seconds: a lint running longer is killed and reported
CANCEL_AFTER = 0.5  # seconds: a newer version of the same buffer restarts a lint running this long
FRESH_WAIT = 5.0  # seconds a code action waits for the lint of the buffer's current version
MAX_MESSAGE_BYTES = 64 << 20  # a larger LSP message is skipped (and said so), never read into memory
MAX_HEADER_LINE = 64 << 10


# -- settings from the client -------------------------------------------------------

_LIST_KEYS = {"select": "select", "extendselect": "extend_select", "ignore": "ignore",
              "extendignore": "extend_ignore", "exclude": "exclude", "extendexclude": "extend_exclude"}
_BOOL_KEYS = {"isolated": "isolated", "reportunusednoqa": "report_unused_noqa",
              "disablenoqa": "disable_noqa"}


def _norm(key: str) -> str:
    return key.replace("-", "").replace("_", "").lower()


def client_settings(options) -> Dict[str, object]:
    """The settings part of initialization options or a configuration
    change: a flat table, or one under ``settings`` or ``flake8-tilelang``
    (keys in camelCase, kebab-case or snake_case)."""
    if not isinstance(options, dict):
        return {}
    for nested in ("settings", NAME, "flake8Tilelang", "flake8_tilelang"):
        inner = options.get(nested)
        if isinstance(inner, dict):
            return {_norm(k): v for k, v in inner.items()}
    return {_norm(k): v for k, v in options.items()}


def namespace(opts: Dict[str, object], root: str) -> argparse.Namespace:
    """What the command line's flags would be: they override pyproject."""
    ns = argparse.Namespace()
    for key, attr in _LIST_KEYS.items():
        value = opts.get(key)
        if isinstance(value, str):
            value = [value]
        setattr(ns, attr, [str(v) for v in value] if isinstance(value, list) else None)
    for key, attr in _BOOL_KEYS.items():
        setattr(ns, attr, bool(opts.get(key, False)))
    pfi = opts.get("perfileignores")
    if isinstance(pfi, dict):
        pfi = ["%s:%s" % (pattern, ",".join(codes) if isinstance(codes, list) else codes)
               for pattern, codes in pfi.items()]
    elif isinstance(pfi, str):
        pfi = [pfi]
    ns.per_file_ignores = [str(v) for v in pfi] if isinstance(pfi, list) else None
    chip = opts.get("targetchip")
    ns.target_chip = str(chip) if isinstance(chip, str) and chip else None
    target = opts.get("target")
    ns.target = str(target) if isinstance(target, str) and target else None
    ns.docs_url = opts.get("docsurl")  # validated (and a non-string refused) by build_settings
    config = opts.get("config")
    ns.config = os.path.join(root, os.path.expanduser(config)) if isinstance(config, str) and config else None
    return ns


class DocState:
    __slots__ = ("version", "src", "findings", "standalone", "path", "good", "table")

    def __init__(self, version, src: SourceFile, findings: List[Finding], standalone: bool,
                 path: Optional[str], good=None, table=()):
        self.version = version
        self.src = src
        self.findings = findings
        self.standalone = standalone  # its result cannot depend on another file
        self.path = path
        self.good = good  # (src, findings) of the last version that parsed
        self.table = list(table)  # switch-hover rows (logic.config_table)


class _Protocol(LanguageServerProtocol):
    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams):
        general = params.capabilities.general
        offered = list(general.position_encodings or []) if general is not None else []
        if general is not None and offered:
            # pygls takes the client's first choice; ours is UTF-8, else UTF-16
            general.position_encodings = [logic.choose_encoding(offered)]
        return (yield from super().lsp_initialize(params))

    def _handle_notification(self, method_name, params):
        # pygls 2.1 files the future of a notification handled by a generator
        # (its own didOpen/didChange/didClose) in ``_request_futures`` under a
        # fresh uuid and never removes it: one leaked future per keystroke.
        # Drop those once done (a request the server sent meanwhile stays until
        # its answer comes).
        futures = getattr(self, "_request_futures", None)
        if not isinstance(futures, dict):  # another pygls: nothing to tidy
            return super()._handle_notification(method_name, params)
        before = set(futures)
        super()._handle_notification(method_name, params)
        for key in [k for k in futures if k not in before]:
            future = futures[key]
            if future.done():
                futures.pop(key, None)
            else:
                future.add_done_callback(lambda _f, key=key: futures.pop(key, None))

    # -- every request gets an answer ----------------------------------------------
    def handle_body(self, body: bytes) -> None:
        """One message body: parsed, typed and handled; a body that is not
        JSON gets a parse error, a request whose params do not fit its
        method gets an InvalidParams error, never silence."""
        try:
            raw = json.loads(body)
        except (ValueError, RecursionError) as exc:
            self._send_error(None, -32700, "Parse error: %s" % str(exc)[:200])
            return
        if not isinstance(raw, dict):
            self._send_error(None, -32600, "Invalid Request: a message must be a JSON object")
            return
        try:
            message = json.loads(body, object_hook=self.structure_message)
        except (Exception, RecursionError) as exc:  # noqa: B902 - whatever the converter raises
            method = raw.get("method")
            if "id" in raw and isinstance(method, str):
                self._send_error(raw.get("id"), -32602, "Invalid params for %s: %s" % (
                    method, str(exc.__cause__ or exc)[:300] or type(exc).__name__))
            else:
                logger.warning("dropped a notification with invalid params: %s", method)
            return
        try:
            self.handle_message(message)
        except (Exception, RecursionError):  # noqa: B902 - one bad message never ends the server
            logger.exception("Unable to handle message")
            if "id" in raw and isinstance(raw.get("method"), str):
                self._send_error(raw.get("id"), -32603, "Internal error")

    def _send_error(self, msg_id, code: int, message: str) -> None:
        if msg_id is not None and not isinstance(msg_id, (int, str)):
            msg_id = None
        self._send_data({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}})


_RECEIVE = object()  # _on_worker: read the answer from the pipe

# every notebook type; its Python cells are synced (markdown cells are not)
NOTEBOOK_SYNC = types.NotebookDocumentSyncOptions(notebook_selector=[
    types.NotebookDocumentFilterWithCells(cells=[types.NotebookCellLanguage(language="python")], notebook="*")])


def notebook_json(nb, text_of) -> str:
    """An LSP notebook document as the nbformat 4 text ``check`` reads: its
    cells in order (so cell N is the notebook's cell N), a cell whose text
    the client does not sync (markdown, another language) as a raw cell."""
    cells = []
    for cell in nb.cells:
        text = text_of(cell.document)
        if cell.kind == types.NotebookCellKind.Code and text is not None:
            cells.append({"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                          "source": text})
        else:
            cells.append({"cell_type": "raw", "metadata": {}, "source": ""})
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)


class _Worker:
    """The lint worker process (``worker.main``) and its pipe."""

    def __init__(self, loop, on_message):
        import multiprocessing

        from .worker import main as worker_main

        ctx = multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=worker_main, args=(child,), daemon=True, name="flake8-tilelang-lint")
        self.proc.start()
        child.close()
        self.ready = False
        self.sent: Dict[str, object] = {}  # path -> version of the buffer the worker holds
        self.loop = loop
        self.reader = None
        try:
            self.loop.add_reader(self.conn.fileno(), on_message, self)
        except NotImplementedError:  # Windows' proactor loop: a thread hands the answers over
            import threading

            self.reader = threading.Thread(target=self._read, args=(on_message,), daemon=True)
            self.reader.start()

    def _read(self, on_message) -> None:
        while True:
            try:
                message = self.conn.recv()
            except (EOFError, OSError):
                message = None
            except Exception as exc:  # noqa: B902 - an unpicklable answer
                message = ("error", None, "bad answer: %s" % exc)
            try:
                self.loop.call_soon_threadsafe(on_message, self, message)
            except RuntimeError:  # the loop is closed
                return
            if message is None:
                return

    def send(self, job) -> None:
        self.conn.send(job)

    def stop(self) -> None:
        if self.reader is None:
            try:
                self.loop.remove_reader(self.conn.fileno())
            except (ValueError, OSError, NotImplementedError):
                pass
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(5)
        self.conn.close()


class _Job:
    __slots__ = ("id", "uri", "version", "started", "timer", "src", "path")

    def __init__(self, job_id, uri, version, src, path):
        self.id = job_id
        self.uri = uri
        self.version = version
        self.src = src
        self.path = path
        self.started = time.monotonic()
        self.timer = None


class TilelangServer(LanguageServer):
    def __init__(self):
        super().__init__(NAME, __version__, protocol_cls=_Protocol,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                         notebook_document_sync=NOTEBOOK_SYNC)
        self.opts: Dict[str, object] = {}
        self.root = os.getcwd()
        self.finder: Optional[SettingsFinder] = None
        self.fallback: Optional[Settings] = None
        self.codec = logic.Codec()
        self.docs: Dict[str, DocState] = {}
        self.open_uris: Dict[str, None] = {}
        self.timers: Dict[str, asyncio.TimerHandle] = {}
        self.shown_errors: set = set()
        self._reporting_error = False
        self.provider_installed = True  # the worker's loader reads the open buffers
        self.worker: Optional[_Worker] = None
        self.worker_failures = 0
        self.pending: Dict[str, None] = {}  # uris to lint, in order
        self.running: Optional[_Job] = None
        self.next_job = 0
        self.waiters: Dict[str, List[asyncio.Future]] = {}
        self.exclusions: Dict[tuple, tuple] = {}  # (id(settings), path) -> (excluded, settings)
        self.exit_code = 0
        # open LSP notebook documents: notebook uri -> the cell uris last published
        self.notebooks: Dict[str, List[str]] = {}
        self.cell_owner: Dict[str, str] = {}  # cell uri -> its notebook's uri

    def report_server_error(self, error, source):
        """pygls shows a server error to the user by sending a message; when
        sending is what failed (the client closed the pipe at `exit` while a
        late answer was going out), that message fails too and reports
        itself again, one level deeper each time, logging every traceback:
        minutes before the process can end. Report once, never from inside a
        report, and not after `shutdown`."""
        if self._reporting_error or getattr(self.protocol, "_shutdown", False):
            logger.warning("server error not shown to the client: %s", error)
            return
        self._reporting_error = True
        try:
            super().report_server_error(error, source)
        except Exception:  # noqa: B902 - the report itself could not be sent
            logger.warning("server error not shown to the client: %s", error)
        finally:
            self._reporting_error = False

    # -- settings ---------------------------------------------------------------
    @property
    def unsafe_fixes(self) -> bool:
        return bool(self.opts.get("unsafefixes", False))

    @property
    def debounce(self) -> float:
        value = self.opts.get("debounce", DEFAULT_DEBOUNCE_MS)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
            return DEFAULT_DEBOUNCE_MS / 1000.0
        return min(float(value), 10000.0) / 1000.0

    @property
    def lint_timeout(self) -> float:
        value = self.opts.get("linttimeout", DEFAULT_LINT_TIMEOUT)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            return DEFAULT_LINT_TIMEOUT
        return min(float(value), 3600.0)

    def reset_settings(self) -> None:
        self.finder = None
        self.fallback = None
        self.exclusions = {}

    def _error(self, message: str) -> None:
        if message in self.shown_errors:
            return
        self.shown_errors.add(message)
        self.window_show_message(types.ShowMessageParams(type=types.MessageType.Error,
                                                         message="%s: %s" % (NAME, message)))

    def docs_url(self, path: Optional[str]) -> Optional[str]:
        """The ``docs-url`` template for ``path`` (client option ``docsUrl``,
        else its pyproject's ``docs-url``); None: no link."""
        return self.settings_for(path).docs_url

    def settings_for(self, path: Optional[str]) -> Settings:
        """The settings of ``path``; on any configuration failure (a bad key,
        a file the parser cannot take), the editor's settings alone, said
        once."""
        try:
            if self.finder is None:
                self.finder = SettingsFinder(namespace(self.opts, self.root), self.root)
            return self.finder.for_path(path) if path else self.finder.base
        except (Exception, RecursionError) as exc:  # noqa: B902 - a config never stops linting
            from ..output import printable

            text = printable(str(exc).splitlines()[0][:300]) if str(exc) else type(exc).__name__
            self._error("%s (checking with the editor's settings alone)" % text)
            if self.fallback is None:
                # the client's options without any file, else the defaults
                args = namespace(self.opts, self.root)
                args.isolated, args.config = True, None
                try:
                    self.fallback = build_settings(args, self.root)
                except (Exception, RecursionError) as bad:  # noqa: B902
                    self._error(str(bad)[:300])
                    self.fallback = build_settings(argparse.Namespace(isolated=True), self.root)
            return self.fallback

    # -- documents ----------------------------------------------------------------
    def path_of(self, uri: str) -> Optional[str]:
        if not uri.startswith("file:"):
            return None
        try:
            path = to_fs_path(uri)
        except (ValueError, TypeError):
            return None
        if not path or "\x00" in path:  # `%00`: no file has that name
            return None
        return os.path.abspath(path)

    def display_of(self, uri: str, path: Optional[str]) -> str:
        if path:
            return path
        from ..output import printable

        name = uri.rsplit("/", 1)[-1] or "untitled.py"
        return printable(name.replace("\x00", ""))[:200] or "untitled.py"

    def current(self, uri: str):
        """(text, version) of an open buffer as it is now: a text document,
        or a notebook document put together as nbformat text."""
        if uri in self.notebooks:
            nb = self.workspace.get_notebook_document(notebook_uri=uri)
            if nb is not None:
                return notebook_json(nb, self.cell_text), nb.version
        doc = self.workspace.get_text_document(uri)
        return doc.source, doc.version

    def cell_text(self, cell_uri: str) -> Optional[str]:
        """The text of a notebook cell the client synced, else None."""
        from urllib.parse import unquote

        doc = self.workspace.text_documents.get(unquote(cell_uri))
        return doc.source if doc is not None else None

    def buffer_text(self, path: str) -> Optional[str]:
        """The open buffer of ``path``, or None."""
        wanted = os.path.realpath(path)
        for uri in list(self.open_uris):
            if uri in self.notebooks:
                continue  # not a module anything imports
            own = self.path_of(uri)
            if own and (own == path or os.path.realpath(own) == wanted):
                return self.workspace.get_text_document(uri).source
        return None

    def load(self, path: str) -> Optional[SourceFile]:
        text = self.buffer_text(path)
        if text is not None:
            return SourceFile.from_text(text)
        try:
            from ..cli.run import read_file

            return decode(read_file(path))
        except (OSError, DecodeError):
            return None

    def uri_for(self, path: str, own_uri: str, own_path: Optional[str]) -> str:
        if own_path is not None and path == own_path:
            return own_uri
        for uri, state in self.docs.items():
            if state.path == path:
                return uri
        return from_fs_path(path) or path

    # -- linting in the worker ---------------------------------------------------------
    def schedule(self, uri: str, delay: Optional[float] = None) -> None:
        """Lint ``uri`` soon: after the debounce (0 by default), as soon as the
        worker is free; several changes meanwhile make one lint."""
        timer = self.timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        wait = self.debounce if delay is None else delay
        if wait <= 0:
            self._enqueue(uri)
            return
        loop = asyncio.get_running_loop()
        self.timers[uri] = loop.call_later(wait, self._fire, uri)

    def _fire(self, uri: str) -> None:
        self.timers.pop(uri, None)
        self._enqueue(uri)

    def _enqueue(self, uri: str) -> None:
        if uri not in self.open_uris:
            return
        self.pending[uri] = None
        job = self.running
        if job is not None and job.uri == uri and time.monotonic() - job.started > CANCEL_AFTER:
            # a slow lint of a version nobody wants any more: cancel it
            self._restart_worker()
        self._pump()

    def _ensure_worker(self) -> Optional[_Worker]:
        if self.worker is None and self.worker_failures >= 3:
            self._error("the lint worker exits as it starts (run `flake8-tilelang check` on a file to see why); "
                        "files are not checked")
            return None
        if self.worker is None:
            try:
                self.worker = _Worker(asyncio.get_running_loop(), self._on_worker)
            except (OSError, RuntimeError, ImportError) as exc:
                self._error("cannot start the lint worker: %s" % exc)
                return None
        return self.worker

    def _restart_worker(self) -> None:
        job, self.running = self.running, None
        if job is not None and job.timer is not None:
            job.timer.cancel()
        if self.worker is not None:
            self.worker.stop()
            self.worker = None
        self._ensure_worker()

    def _pump(self) -> None:
        if self.running is not None or not self.pending:
            return
        worker = self._ensure_worker()
        if worker is None or not worker.ready:
            return
        uri = next(iter(self.pending))
        del self.pending[uri]
        if uri not in self.open_uris:
            return self._pump()
        text, version = self.current(uri)
        notebook = uri in self.notebooks
        path = self.path_of(uri)
        settings = self.settings_for(path)
        if path is not None and self._excluded(settings, path):
            self._store(uri, version, SourceFile.from_text(text), [], True, path, ())
            return self._pump()
        display = self.display_of(uri, path)
        if notebook and not display.lower().endswith(".ipynb"):
            display += ".ipynb"  # an interactive window, a notebook of another suffix: read as one
        too_big = _too_big(text)
        if too_big:
            self._store(uri, version, SourceFile.from_text(text), [simple(display, 1, 0, IO_ERROR, too_big)],
                        True, path, (), linted=False)
            return self._pump()
        self.next_job += 1
        job = _Job(self.next_job, uri, version, None, path)
        message = {"id": job.id, "display": display, "path": path, "settings": settings,
                   "text": None if path and not notebook else text, "buffers": self._buffer_changes(worker),
                   "cells": notebook}
        try:
            worker.send(message)
        except (OSError, ValueError) as exc:  # the worker died under us
            job.src = SourceFile.from_text(text)
            self._worker_failed(job, "the lint worker stopped (%s)" % exc)
            return
        self.running = job
        job.timer = asyncio.get_running_loop().call_later(self.lint_timeout, self._timed_out, job.id)
        job.src = SourceFile.from_text(text)  # while the worker lints

    def _excluded(self, settings: Settings, path: str) -> bool:
        key = (id(settings), path)
        hit = self.exclusions.get(key)
        if hit is None:
            try:
                hit = _excluded(settings, path)
            except (Exception, RecursionError):  # noqa: B902 - a bad pattern excludes nothing
                hit = False
            if len(self.exclusions) > 4096:
                self.exclusions.clear()
            self.exclusions[key] = (hit, settings)  # the settings object stays alive with its id
            return hit
        return hit[0]

    def _buffer_changes(self, worker: _Worker) -> Dict[str, Optional[str]]:
        changes: Dict[str, Optional[str]] = {}
        current = {}
        for uri in self.open_uris:
            path = self.path_of(uri)
            if path is None or uri in self.notebooks:
                continue
            doc = self.workspace.get_text_document(uri)
            if _too_big(doc.source):
                continue
            current[path] = doc.version
            if worker.sent.get(path) != doc.version:
                changes[path] = doc.source
        for path in [p for p in worker.sent if p not in current]:
            changes[path] = None
        worker.sent = current
        return changes

    def _on_worker(self, worker: _Worker, message=_RECEIVE) -> None:
        if message is _RECEIVE:
            try:
                message = worker.conn.recv()
            except (EOFError, OSError):
                message = None
            except Exception as exc:  # noqa: B902 - an unpicklable answer: treat as a failure
                message = ("error", None, "bad answer: %s" % exc)
        if message is not None and message[0] == "error" and message[1] is None and self.running is not None:
            message = ("error", self.running.id, message[2])
        if worker is not self.worker:
            return
        if message is None:  # the worker died (out of memory, killed)
            worker.stop()
            self.worker = None
            if not worker.ready:
                self.worker_failures += 1  # it died starting: do not restart it forever
            job, self.running = self.running, None
            if job is not None:
                self._worker_failed(job, "the lint worker stopped while checking this file "
                                         "(out of memory?); it is checked again on the next change")
            self._ensure_worker()
            return
        kind = message[0]
        if kind == "ready":
            worker.ready = True
            self.worker_failures = 0
            self._pump()
            return
        job = self.running
        if job is None or message[1] != job.id:
            return
        self.running = None
        if job.timer is not None:
            job.timer.cancel()
        if kind == "lint":
            _, _, findings, standalone, table = message
            self._store(job.uri, job.version, job.src, findings, standalone, job.path, table)
        else:
            self._store(job.uri, job.version, job.src, [self._note(job, "could not be checked: %s" % message[2])],
                        True, job.path, (), linted=False)
        self._pump()

    def _note(self, job: _Job, text: str) -> Finding:
        return simple(self.display_of(job.uri, job.path), 1, 0, "TLA000", "flake8-tilelang: this file %s" % text,
                      help="Please report it with this file")

    def _timed_out(self, job_id: int) -> None:
        job = self.running
        if job is None or job.id != job_id:
            return
        self._restart_worker()
        self._store(job.uri, job.version, job.src, [self._note(
            job, "was not checked: linting it took longer than %g s (the time cap, option `lintTimeout`); "
                 "it is checked again on the next change" % self.lint_timeout)], True, job.path, (), linted=False)
        self._pump()

    def _worker_failed(self, job: _Job, text: str) -> None:
        self._store(job.uri, job.version, job.src, [self._note(job, text)], True, job.path, (), linted=False)
        self._pump()

    def _store(self, uri, version, src, findings, standalone, path, table, linted: bool = True) -> None:
        """Remember a lint result and publish it, unless the buffer moved on
        (a newer version is on its way: no stale diagnostics). ``linted``:
        the findings are a real lint's (not a note that the file was not
        checked), so they may be carried over while a later version does
        not parse."""
        if uri not in self.open_uris:
            return
        if uri in self.notebooks:
            return self._store_notebook(uri, version, src, findings, standalone, path)
        prev = self.docs.get(uri)
        errors = [f for f in findings if f.code == SYNTAX_ERROR]
        good = None
        if not linted:
            good = prev.good if prev is not None else None
        elif errors:
            if prev is not None and prev.good is not None:
                old_src, old_findings = prev.good
                kept = logic.carry_over(old_src, src, old_findings)
                findings = sorted(kept + errors, key=lambda f: (f.line, f.col, f.code))
                good = prev.good
                table = prev.table
        else:
            good = (src, findings)
        state = DocState(version, src, findings, standalone, path, good, table)
        self.docs[uri] = state
        doc = self.workspace.get_text_document(uri)
        if doc.version != version and (uri in self.pending or uri in self.timers or (
                self.running is not None and self.running.uri == uri)):
            return  # superseded: the lint of the newer version is on its way
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, version=version, diagnostics=[self.diagnostic(state, f) for f in findings]))
        if doc.version == version:
            for future in self.waiters.pop(uri, []):
                if not future.done():
                    future.set_result(state)

    def _store_notebook(self, uri, version, src, findings, standalone, path) -> None:
        """A notebook's result: one state per synced cell (its own text, its
        findings on its own lines), published on the cell; a cell that had
        findings and is gone is cleared."""
        nb = self.workspace.get_notebook_document(notebook_uri=uri)
        if nb is None:
            return
        self.docs[uri] = state = DocState(version, src, findings, standalone, path)
        if nb.version != version and (uri in self.pending or uri in self.timers or (
                self.running is not None and self.running.uri == uri)):
            return  # superseded: the lint of the newer version is on its way
        by_cell: Dict[int, List[Finding]] = {}
        loose = []
        for f in findings:
            if getattr(f, "cell", None):
                by_cell.setdefault(f.cell, []).append(f)
            else:  # not in a cell (the checker's own failure): on the first code cell
                loose.append(f._replace(line=1, col=0, end_line=1, end_col=0, noqa_row=None, source=""))
        # only the cells with findings now or at the last publication are touched:
        # a notebook of thousands of clean cells costs nothing per keystroke
        had = set(self.notebooks.get(uri, ()))
        published = []
        for number, cell in enumerate(nb.cells, 1):
            found = by_cell.get(number, [])
            if not found and not loose and cell.document not in had:
                continue
            text = self.cell_text(cell.document) if cell.kind == types.NotebookCellKind.Code else None
            if text is None:
                continue
            if loose:  # the first code cell
                found, loose = loose + found, []
            cell_state = DocState(self.workspace.get_text_document(cell.document).version,
                                  SourceFile.from_text(text), found, standalone, None)
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
                uri=cell.document, diagnostics=[self.diagnostic(cell_state, f) for f in found]))
            had.discard(cell.document)
            if found:
                self.docs[cell.document] = cell_state
                self.cell_owner[cell.document] = uri
                published.append(cell.document)
            else:  # clean again: nothing to hover or act on
                self.docs.pop(cell.document, None)
                self.cell_owner.pop(cell.document, None)
        for gone in had:  # removed from the notebook (or no longer code)
            self._forget_cell(gone)
        self.notebooks[uri] = published
        if nb.version == version:
            for future in self.waiters.pop(uri, []):
                if not future.done():
                    future.set_result(state)

    def notebook_fix_edit(self, notebook_uri: str, fix) -> Optional[types.WorkspaceEdit]:
        """A notebook finding's fix as edits of the cells it touches (each
        edit knows its cell: ``notebook.map_findings``); None when an edit is
        in another file or in a cell the client does not sync."""
        nb = self.workspace.get_notebook_document(notebook_uri=notebook_uri)
        if nb is None:
            return None
        cells = {number: cell.document for number, cell in enumerate(nb.cells, 1)}
        changes: Dict[str, List[types.TextEdit]] = {}
        sources: Dict[str, SourceFile] = {}
        for e in fix.edits:
            target = cells.get(e.cell) if e.path is None else None
            text = self.cell_text(target) if target is not None else None
            if text is None:
                return None
            src = sources.get(target)
            if src is None:
                src = sources[target] = SourceFile.from_text(text)
            changes.setdefault(target, []).append(types.TextEdit(
                range=_range(self.codec.to_lsp(src, *e.start), self.codec.to_lsp(src, *e.end)), new_text=e.text))
        return types.WorkspaceEdit(changes=changes) if changes else None

    def _forget_cell(self, cell_uri: str) -> None:
        self.cell_owner.pop(cell_uri, None)
        state = self.docs.pop(cell_uri, None)
        if state is not None and state.findings:
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=cell_uri, diagnostics=[]))

    def close(self, uri: str) -> Optional[DocState]:
        """Forget a closed buffer (a text document, or a notebook and its
        cells' diagnostics): its timer, queue entry and waiters; its last
        result, returned."""
        for cell_uri in self.notebooks.pop(uri, ()):
            self._forget_cell(cell_uri)
        timer = self.timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        self.open_uris.pop(uri, None)
        self.pending.pop(uri, None)
        for future in self.waiters.pop(uri, []):
            if not future.done():
                future.set_result(None)
        return self.docs.pop(uri, None)

    async def fresh(self, uri: str, timeout: float = FRESH_WAIT) -> Optional[DocState]:
        """The state of the buffer as it is now: waits (without blocking
        anything else) for the lint of its current version, at most
        ``timeout``; None when there is none in time. A notebook cell: its
        part of its notebook's lint."""
        owner = self.cell_owner.get(uri)
        if owner is not None:
            if await self.fresh(owner, timeout) is None:
                return None
            state = self.docs.get(uri)
            if state is None or state.version != self.workspace.get_text_document(uri).version:
                return None
            return state
        if uri not in self.open_uris:
            return None
        _, version = self.current(uri)
        state = self.docs.get(uri)
        if state is not None and state.version == version:
            return state
        future = asyncio.get_running_loop().create_future()
        self.waiters.setdefault(uri, []).append(future)
        if uri not in self.pending and not (self.running and self.running.uri == uri
                                            and self.running.version == version):
            self.schedule(uri, 0)
        try:
            return await asyncio.wait_for(asyncio.shield(future), timeout)
        except asyncio.TimeoutError:
            return None

    def latest(self, uri: str) -> Optional[DocState]:
        """The last result for ``uri`` (may be a version behind: for hover)."""
        return self.docs.get(uri) if uri in self.open_uris or uri in self.cell_owner else None

    def relint_dependents(self, changed: Optional[str]) -> None:
        """A module changed: re-lint every other open file whose result may
        depend on another file (it imports one of the user's modules)."""
        for uri, state in list(self.docs.items()):
            if uri != changed and not state.standalone:
                self.schedule(uri)

    def relint_all(self) -> None:
        for uri in list(self.open_uris):
            self.schedule(uri)

    def config_rows(self) -> list:
        rows = []
        for state in self.docs.values():
            rows.extend(state.table)
        return rows

    # -- conversions -------------------------------------------------------------------
    def diagnostic(self, state: DocState, f: Finding) -> types.Diagnostic:
        start, end = self.codec.finding_range(state.src, f)
        url = rule_url(f.code, self.docs_url(state.path))
        return types.Diagnostic(
            range=_range(start, end), message=f.one_line, severity=types.DiagnosticSeverity(
                logic.SEVERITY.get(f.severity, 1)),
            code=f.code, source=NAME,
            code_description=types.CodeDescription(href=url) if url else None)

    def workspace_edit(self, changes, uri: str, path: Optional[str]) -> types.WorkspaceEdit:
        return types.WorkspaceEdit(changes={
            self.uri_for(p, uri, path): [types.TextEdit(range=_range(s, e), new_text=t) for s, e, t in edits]
            for p, edits in changes.items()})

    async def fix_all_edit(self, uri: str) -> Optional[types.WorkspaceEdit]:
        owner = self.cell_owner.get(uri)
        if owner is not None or uri in self.notebooks:
            # a notebook cell (or the notebook): every fix of the notebook, in the cells they edit
            notebook = owner or uri
            state = await self.fresh(notebook)
            if state is None:
                return None
            taken: Dict[str, list] = {}
            changes: Dict[str, List[types.TextEdit]] = {}
            for fix in logic.fix_all(state.findings, self.unsafe_fixes):
                edit = self.notebook_fix_edit(notebook, fix)
                if edit is None:
                    continue
                spans = [(cell, (e.range.start.line, e.range.start.character),
                          (e.range.end.line, e.range.end.character)) for cell, edits in edit.changes.items()
                         for e in edits]
                if any(logic.spans_clash(taken.get(cell, ()), a, b) for cell, a, b in spans):
                    continue  # like `check --fix`: the rest after the next lint
                for cell, a, b in spans:
                    taken.setdefault(cell, []).append((a, b))
                for cell, edits in edit.changes.items():
                    changes.setdefault(cell, []).extend(edits)
            return types.WorkspaceEdit(changes=changes) if changes else None
        state = await self.fresh(uri)
        if state is None:
            return None
        fixes = logic.fix_all(state.findings, self.unsafe_fixes)
        own = state.path or uri
        changes = logic.fix_changes(fixes, own, self._loader(uri, state), self.codec)
        return self.workspace_edit(changes, uri, own) if changes else None

    def _loader(self, uri: str, state: DocState):
        own = state.path or uri

        def load(path: str) -> Optional[SourceFile]:
            return state.src if path == own else self.load(path)

        return load

    # -- the transport: capped messages, an answer for every request -------------------
    def _start_io_async(self, stdin=None, stdout=None):
        from pygls.io_ import StdoutWriter

        self._stop_event = __import__("threading").Event()
        writer = StdoutWriter(stdout or sys.stdout.buffer)
        self.protocol.set_writer(writer)
        try:
            asyncio.run(self._read_loop(stdin or sys.stdin.buffer))
        except BrokenPipeError:
            logger.error("Connection to the client is lost! Shutting down the server.")
        except KeyboardInterrupt:
            pass
        except SystemExit as exc:  # `exit`: 0 after `shutdown`, else 1 (LSP)
            self.exit_code = exc.code if isinstance(exc.code, int) else 1
        finally:
            if self.worker is not None:
                self.worker.stop()
                self.worker = None
            self.shutdown()

    async def _read_loop(self, stdin) -> None:
        loop = asyncio.get_running_loop()
        reader = _StdinReader(loop)
        read_line = lambda: stdin.readline(MAX_HEADER_LINE)  # noqa: E731
        length: Optional[int] = None
        skipping = False
        while not self._stop_event.is_set():
            line = await reader.run(read_line)
            if not line:
                self.exit_code = self.exit_code or (0 if self.protocol._shutdown else 1)
                return
            if skipping:
                # after a message too large to read: resynchronise on the
                # next header (it may follow a body on the same line)
                m = _HEADER_AT_END.search(line)
                if m is None:
                    continue
                skipping = False
                line = m.group(0)
            if length is None:
                m = _CONTENT_LENGTH.match(line)
                if m is not None:
                    length = int(m.group(1)) if len(m.group(1)) <= 18 else MAX_MESSAGE_BYTES + 1
                continue
            if line.strip():
                continue  # another header (Content-Type)
            if length > MAX_MESSAGE_BYTES:
                self._error("skipped a message of %d bytes (more than the %d MiB limit)"
                            % (length, MAX_MESSAGE_BYTES >> 20))
                length = None
                skipping = True
                continue
            n, length = length, None
            body = await reader.run(stdin.read, n)
            if len(body) < n:
                self.exit_code = self.exit_code or (0 if self.protocol._shutdown else 1)
                return
            self.protocol.handle_body(body)


class _StdinReader:
    """Blocking reads of stdin on one daemon thread, awaited on the loop.

    Not a ThreadPoolExecutor: its threads are joined when the pool shuts down
    and again when the interpreter exits, so a read still waiting for the
    client's next message when `exit` arrives (pygls may run the `exit`
    handler after the loop has asked for the next header line) kept the server
    alive until the client closed stdin, which LSP clients do only after the
    server has exited: a hang on exit. A daemon thread never holds up the exit.
    """

    def __init__(self, loop) -> None:
        import queue
        import threading

        self.loop = loop
        self.jobs: "queue.SimpleQueue" = queue.SimpleQueue()
        threading.Thread(target=self._serve, daemon=True, name="flake8-tilelang-stdin").start()

    def run(self, fn, *args) -> "asyncio.Future":
        future = self.loop.create_future()
        self.jobs.put((future, fn, args))
        return future

    def _serve(self) -> None:
        while True:
            future, fn, args = self.jobs.get()
            try:
                result, error = fn(*args), None
            except BaseException as exc:  # noqa: B902 - handed to the awaiting coroutine
                result, error = None, exc
            try:
                self.loop.call_soon_threadsafe(_settle, future, result, error)
            except RuntimeError:  # the loop is closed: the server is exiting
                return


def _settle(future, result, error) -> None:
    if future.done():  # cancelled while the read was waiting
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


_CONTENT_LENGTH = re.compile(rb"^Content-Length:[ \t]*(\d+)[ \t]*\r?\n$", re.I)
_HEADER_AT_END = re.compile(rb"Content-Length:[ \t]*\d+[ \t]*\r?\n$", re.I)


def _too_big(text: str) -> Optional[str]:
    """The command line's size cap for one file, for a buffer."""
    from ..cli.fileio import size_text
    from ..cli.run import MAX_FILE_BYTES

    if len(text) * 4 <= MAX_FILE_BYTES:
        return None
    size = len(text.encode("utf-8", "surrogatepass"))
    if size <= MAX_FILE_BYTES:
        return None
    return "not checked: this buffer is %s, above the %s limit for one file" % (size_text(size), size_text(MAX_FILE_BYTES))


def _range(start, end) -> types.Range:
    return types.Range(start=types.Position(*start), end=types.Position(*end))


def _excluded(settings: Settings, path: str) -> bool:
    from ..cli.discover import Excluder

    return Excluder(settings).path(path)


def _wants(only, kind: str) -> bool:
    return not only or any(kind == k or kind.startswith(k + ".") for k in only)


def create_server() -> TilelangServer:
    server = TilelangServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: TilelangServer, params: types.InitializeParams):
        ls.opts = client_settings(params.initialization_options)
        folders = params.workspace_folders or []
        root = None
        if folders:
            root = ls.path_of(folders[0].uri)
        elif params.root_uri:
            root = ls.path_of(params.root_uri)
        elif params.root_path and "\x00" not in params.root_path:
            root = params.root_path
        if root and os.path.isdir(root):
            ls.root = os.path.abspath(root)
        encoding = ls.workspace.position_encoding or logic.UTF16
        ls.codec = logic.Codec(str(getattr(encoding, "value", encoding)))
        ls._ensure_worker()  # it starts while the editor sends the first files
        import gc

        gc.collect()
        gc.freeze()  # pygls' and lsprotocol's objects live as long as the server: never walk them again

    @server.feature(types.INITIALIZED)
    def initialized(ls: TilelangServer, params):
        caps = ls.client_capabilities
        watched = caps.workspace.did_change_watched_files if caps.workspace else None
        if watched is not None and watched.dynamic_registration:
            ls.client_register_capability(types.RegistrationParams(registrations=[types.Registration(
                id="flake8-tilelang-watch", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=[
                    types.FileSystemWatcher(glob_pattern="**/*.py"),
                    types.FileSystemWatcher(glob_pattern="**/pyproject.toml"),
                ]))]))

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: TilelangServer, params: types.DidOpenTextDocumentParams):
        uri = params.text_document.uri
        ls.open_uris[uri] = None
        ls.schedule(uri, 0)
        ls.relint_dependents(uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: TilelangServer, params: types.DidChangeTextDocumentParams):
        uri = params.text_document.uri
        if uri not in ls.open_uris:
            return
        ls.schedule(uri)
        ls.relint_dependents(uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: TilelangServer, params: types.DidSaveTextDocumentParams):
        uri = params.text_document.uri
        path = ls.path_of(uri)
        if path and os.path.basename(path) == "pyproject.toml":
            ls.reset_settings()
            ls.relint_all()
        else:
            ls.relint_dependents(uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: TilelangServer, params: types.DidCloseTextDocumentParams):
        uri = params.text_document.uri
        if ls.close(uri) is not None:
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
            ls.relint_dependents(uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def notebook_open(ls: TilelangServer, params: types.DidOpenNotebookDocumentParams):
        uri = params.notebook_document.uri
        ls.notebooks.setdefault(uri, [])
        ls.open_uris[uri] = None
        ls.schedule(uri, 0)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def notebook_change(ls: TilelangServer, params: types.DidChangeNotebookDocumentParams):
        uri = params.notebook_document.uri
        if uri in ls.notebooks:
            ls.schedule(uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def notebook_close(ls: TilelangServer, params: types.DidCloseNotebookDocumentParams):
        ls.close(params.notebook_document.uri)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: TilelangServer, params: types.DidChangeWatchedFilesParams):
        if any(c.uri.endswith("pyproject.toml") for c in params.changes):
            ls.reset_settings()
            ls.relint_all()
        elif params.changes:
            ls.relint_dependents(None)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def configuration(ls: TilelangServer, params: types.DidChangeConfigurationParams):
        opts = client_settings(params.settings)
        if opts:
            ls.opts = opts
            ls.shown_errors.clear()
            ls.reset_settings()
            ls.relint_all()

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: TilelangServer, params: types.HoverParams) -> Optional[types.Hover]:
        return _hover(ls, params.text_document.uri, (params.position.line, params.position.character))

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL_KIND], resolve_provider=False))
    async def code_action(ls: TilelangServer, params: types.CodeActionParams):
        return await _code_actions(ls, params)

    @server.command(APPLY_AUTOFIX)
    async def apply_autofix(ls: TilelangServer, *args):
        uri = None
        if args:
            first = args[0]
            uri = first.get("uri") if isinstance(first, dict) else first
        if not isinstance(uri, str) or (uri not in ls.open_uris and uri not in ls.cell_owner):
            return None
        edit = await ls.fix_all_edit(uri)
        if edit is None:
            return None
        await ls.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(
            edit=edit, label="%s: fix all auto-fixable problems" % NAME))
        return None

    return server


def _hover(ls: TilelangServer, uri: str, pos) -> Optional[types.Hover]:
    """Answered at once from the last lint (never waits for one)."""
    state = ls.latest(uri)
    if state is None:
        return None
    src = state.src
    if pos[0] < 0 or pos[0] >= max(1, len(src.lines)) or pos[1] < 0:
        return None
    line, byte_col = ls.codec.from_lsp(src, pos)
    text = src.line_text(line)
    from ..settings import known_rules

    rules = {r.code: r for r in known_rules()}
    char = src.char_col(line, byte_col)
    hit = logic.noqa_code_at(text, char, list(rules))
    if hit is not None:
        start, end, codes = hit
        rng = _range(ls.codec.to_lsp(src, line, src.byte_col(line, start)),
                     ls.codec.to_lsp(src, line, src.byte_col(line, end)))
        docs = logic.rule_docs(codes, docs_url=ls.docs_url(state.path))
        return types.Hover(contents=types.MarkupContent(types.MarkupKind.Markdown, docs), range=rng)
    parts = []
    rng = None
    here = [f for f in state.findings if logic.contains(ls.codec.finding_range(src, f), pos)]
    if here:
        parts.append(logic.diagnostic_hover(here, rules.get, ls.docs_url(state.path)))
        rng = _range(*ls.codec.finding_range(src, here[0]))
    found = logic.config_lookup(ls.config_rows(), state.path or ls.display_of(uri, None), line, byte_col)
    if found is not None:
        (l1, c1, l2, c2), body = found
        parts.insert(0, body)
        rng = _range(ls.codec.to_lsp(src, l1, c1), ls.codec.to_lsp(src, l2, c2))
    if not parts:
        return None
    return types.Hover(contents=types.MarkupContent(types.MarkupKind.Markdown, "\n\n---\n\n".join(parts)),
                       range=rng)


async def _code_actions(ls: TilelangServer, params: types.CodeActionParams):
    uri = params.text_document.uri
    state = await ls.fresh(uri)
    if state is None:
        return None  # no result for the buffer as it is now: no edit computed on another version
    only = params.context.only
    wanted = ((params.range.start.line, params.range.start.character),
              (params.range.end.line, params.range.end.character))
    own = state.path or uri
    load = ls._loader(uri, state)
    actions: List[types.CodeAction] = []
    noqa_seen = set()
    for f in state.findings:
        rng = ls.codec.finding_range(state.src, f)
        if not logic.overlaps(rng, wanted) or not _wants(only, types.CodeActionKind.QuickFix):
            continue
        in_cell = uri in ls.cell_owner
        if not f.code.startswith("TLA") or (getattr(f, "cell", None) and not in_cell):
            continue  # E999 / E902: nothing to fix or silence; a notebook's JSON is not edited here
        diag = ls.diagnostic(state, f)
        if logic.applicable(f.fix, ls.unsafe_fixes) and in_cell:
            edit = ls.notebook_fix_edit(ls.cell_owner[uri], f.fix)  # its edits may be in other cells
            if edit is not None:
                actions.append(types.CodeAction(
                    title="%s (%s)%s" % (f.fix.title, f.code, "" if f.fix.applicability == SAFE else " [unsafe]"),
                    kind=types.CodeActionKind.QuickFix, diagnostics=[diag], edit=edit,
                    is_preferred=f.fix.applicability == SAFE))
        elif logic.applicable(f.fix, ls.unsafe_fixes):
            changes = logic.fix_changes([f.fix], own, load, ls.codec)
            if changes:
                actions.append(types.CodeAction(
                    title="%s (%s)%s" % (f.fix.title, f.code, "" if f.fix.applicability == SAFE else " [unsafe]"),
                    kind=types.CodeActionKind.QuickFix, diagnostics=[diag],
                    edit=ls.workspace_edit(changes, uri, own), is_preferred=f.fix.applicability == SAFE))
        noqa = logic.noqa_edit(state.src, f)
        if noqa is not None and (noqa[0], f.code) not in noqa_seen:
            noqa_seen.add((noqa[0], f.code))
            line, col, end_col, text = noqa
            edit = (ls.codec.to_lsp(state.src, line, col), ls.codec.to_lsp(state.src, line, end_col), text)
            actions.append(types.CodeAction(
                title="Disable %s for this line" % f.code, kind=types.CodeActionKind.QuickFix,
                diagnostics=[diag], edit=ls.workspace_edit({own: [edit]}, uri, own)))
    if _wants(only, FIX_ALL_KIND):
        edit = await ls.fix_all_edit(uri)
        if edit is not None:
            actions.append(types.CodeAction(title="%s: fix all auto-fixable problems" % NAME,
                                            kind=FIX_ALL_KIND, edit=edit))
    return actions or None


def serve() -> int:
    """Run the server on stdio; the process ends here, with `exit`'s status.

    It ends with ``os._exit`` once the lint worker is stopped and the output
    flushed: a read of stdin may still be waiting on the reader's daemon
    thread for a message the client will never send (it waits for the server
    to exit before closing the pipe), and the interpreter's normal shutdown
    would wait for, or abort on, that thread."""
    server = create_server()
    server.start_io()
    code = server.exit_code
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    logging.shutdown()
    os._exit(code if isinstance(code, int) else 1)
