"""The language server: pygls glue around ``pipeline.lint_source``.

- Diagnostics on open and on change (a short trailing debounce per document)
  for the editor's buffer, with the real range, severity, code, source and
  ``codeDescription`` when a docs URL is configured; a module that other open
  files import (an open buffer, a save, a file changed on disk) re-lints
  those files.
- Hover: a diagnostic's rule documentation, a code in a ``# noqa`` comment,
  and where a ``pass_configs`` switch gets its value.
- Code actions: each finding's fix (unsafe ones only with ``unsafeFixes``),
  "disable CODE for this line" (``# noqa``), and
  ``source.fixAll.flake8-tilelang``; the command
  ``flake8-tilelang.applyAutofix`` applies the latter through
  ``workspace/applyEdit``.
- Settings: the closest configured pyproject.toml per file (Ruff's rule),
  overridden by the initialization options (or ``didChangeConfiguration``).
- Position encoding: UTF-8 when the client offers it, else UTF-16.
"""
from __future__ import annotations

import argparse
import ast
import asyncio
import os
from typing import Dict, List, Optional

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method
from pygls.uris import from_fs_path, to_fs_path

from .. import __version__
from ..diagnostic import SAFE
from ..output import rule_url
from ..pipeline import Finding, lint_source
from ..settings import ConfigError, Settings, SettingsFinder, build_settings
from ..source import DecodeError, SourceFile, decode
from . import logic

NAME = "flake8-tilelang"
FIX_ALL_KIND = "source.fixAll.flake8-tilelang"
APPLY_AUTOFIX = "flake8-tilelang.applyAutofix"
DEFAULT_DEBOUNCE_MS = 10


# -- the crossmod seam -------------------------------------------------------------

def install_source_provider(provider) -> bool:
    """Let the cross-module loader read open buffers instead of the disk:
    ``provider(path) -> str | None``. True when the loader takes one
    (``crossmod.set_source_provider``); until then modules are read from
    disk and a save re-lints the files that import them."""
    from ..model import crossmod

    setter = getattr(crossmod, "set_source_provider", None)
    if setter is None:
        return False
    setter(provider)
    return True


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
    config = opts.get("config")
    ns.config = os.path.join(root, os.path.expanduser(config)) if isinstance(config, str) and config else None
    return ns


class DocState:
    __slots__ = ("version", "src", "findings", "standalone", "path")

    def __init__(self, version, src: SourceFile, findings: List[Finding], standalone: bool,
                 path: Optional[str]):
        self.version = version
        self.src = src
        self.findings = findings
        self.standalone = standalone  # its result cannot depend on another file
        self.path = path


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


class TilelangServer(LanguageServer):
    def __init__(self):
        super().__init__(NAME, __version__, protocol_cls=_Protocol,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.opts: Dict[str, object] = {}
        self.root = os.getcwd()
        self.finder: Optional[SettingsFinder] = None
        self.fallback: Optional[Settings] = None
        self.codec = logic.Codec()
        self.docs: Dict[str, DocState] = {}
        self.timers: Dict[str, asyncio.TimerHandle] = {}
        self.shown_errors: set = set()
        self.provider_installed = False

    # -- settings ---------------------------------------------------------------
    @property
    def unsafe_fixes(self) -> bool:
        return bool(self.opts.get("unsafefixes", False))

    @property
    def debounce(self) -> float:
        value = self.opts.get("debounce", DEFAULT_DEBOUNCE_MS)
        return max(0.0, float(value)) / 1000.0 if isinstance(value, (int, float)) else DEFAULT_DEBOUNCE_MS / 1000.0

    def reset_settings(self) -> None:
        self.finder = None
        self.fallback = None

    def _error(self, message: str) -> None:
        if message in self.shown_errors:
            return
        self.shown_errors.add(message)
        self.window_show_message(types.ShowMessageParams(type=types.MessageType.Error,
                                                         message="%s: %s" % (NAME, message)))

    def settings_for(self, path: Optional[str]) -> Settings:
        try:
            if self.finder is None:
                self.finder = SettingsFinder(namespace(self.opts, self.root), self.root)
            return self.finder.for_path(path) if path else self.finder.base
        except ConfigError as exc:
            self._error("%s (checking with the editor's settings alone)" % exc)
            if self.fallback is None:
                # the client's options without any file, else the defaults
                args = namespace(self.opts, self.root)
                args.isolated, args.config = True, None
                try:
                    self.fallback = build_settings(args, self.root)
                except ConfigError as bad:
                    self._error(str(bad))
                    self.fallback = build_settings(argparse.Namespace(isolated=True), self.root)
            return self.fallback

    # -- documents ----------------------------------------------------------------
    def path_of(self, uri: str) -> Optional[str]:
        if not uri.startswith("file:"):
            return None
        path = to_fs_path(uri)
        return os.path.abspath(path) if path else None

    def buffer_text(self, path: str) -> Optional[str]:
        """The open buffer of ``path`` (the source provider), or None."""
        wanted = os.path.realpath(path)
        for uri in list(self.docs):
            own = self.docs[uri].path
            if own and (own == path or os.path.realpath(own) == wanted):
                doc = self.workspace.get_text_document(uri)
                return doc.source
        return None

    def load(self, path: str) -> Optional[SourceFile]:
        text = self.buffer_text(path)
        if text is not None:
            return SourceFile.from_text(text)
        try:
            with open(path, "rb") as f:
                return decode(f.read())
        except (OSError, DecodeError):
            return None

    def uri_for(self, path: str, own_uri: str, own_path: Optional[str]) -> str:
        if own_path is not None and path == own_path:
            return own_uri
        for uri, state in self.docs.items():
            if state.path == path:
                return uri
        return from_fs_path(path) or path

    def lint(self, uri: str) -> DocState:
        """Lint the buffer now, remember the result and publish it."""
        timer = self.timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        doc = self.workspace.get_text_document(uri)
        src = SourceFile.from_text(doc.source)
        path = self.path_of(uri)
        settings = self.settings_for(path)
        findings: List[Finding] = []
        standalone = True
        if path is None or not _excluded(settings, path):
            display = path or (doc.filename or "untitled.py")
            result = lint_source(display, src.raw, settings, source=src)
            findings, standalone = result.findings, result.cacheable
        state = DocState(doc.version, src, findings, standalone, path)
        self.docs[uri] = state
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, version=doc.version, diagnostics=[self.diagnostic(state, f) for f in findings]))
        return state

    def current(self, uri: str) -> Optional[DocState]:
        """The state of the buffer as it is now (lints a pending change first)."""
        state = self.docs.get(uri)
        if state is None:
            return None
        doc = self.workspace.get_text_document(uri)
        if uri in self.timers or state.version != doc.version:
            state = self.lint(uri)
        return state

    def schedule(self, uri: str, delay: Optional[float] = None) -> None:
        timer = self.timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        loop = asyncio.get_running_loop()
        self.timers[uri] = loop.call_later(self.debounce if delay is None else delay, self._fire, uri)

    def _fire(self, uri: str) -> None:
        self.timers.pop(uri, None)
        if uri in self.docs:
            self.lint(uri)

    def relint_dependents(self, changed: Optional[str]) -> None:
        """A module changed: re-lint every other open file whose result may
        depend on another file (it imports one of the user's modules)."""
        for uri, state in list(self.docs.items()):
            if uri != changed and not state.standalone:
                self.schedule(uri)

    def relint_all(self) -> None:
        for uri in list(self.docs):
            self.schedule(uri)

    # -- conversions -------------------------------------------------------------------
    def diagnostic(self, state: DocState, f: Finding) -> types.Diagnostic:
        start, end = self.codec.finding_range(state.src, f)
        url = rule_url(f.code) if f.code.startswith("TLA") else None
        return types.Diagnostic(
            range=_range(start, end), message=f.one_line, severity=types.DiagnosticSeverity(
                logic.SEVERITY.get(f.severity, 1)),
            code=f.code, source=NAME,
            code_description=types.CodeDescription(href=url) if url else None)

    def workspace_edit(self, changes, uri: str, path: Optional[str]) -> types.WorkspaceEdit:
        return types.WorkspaceEdit(changes={
            self.uri_for(p, uri, path): [types.TextEdit(range=_range(s, e), new_text=t) for s, e, t in edits]
            for p, edits in changes.items()})

    def fix_all_edit(self, uri: str) -> Optional[types.WorkspaceEdit]:
        state = self.current(uri)
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
            root = to_fs_path(folders[0].uri)
        elif params.root_uri:
            root = to_fs_path(params.root_uri)
        elif params.root_path:
            root = params.root_path
        if root and os.path.isdir(root):
            ls.root = os.path.abspath(root)
        encoding = ls.workspace.position_encoding or logic.UTF16
        ls.codec = logic.Codec(str(getattr(encoding, "value", encoding)))
        ls.provider_installed = install_source_provider(ls.buffer_text)

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
        ls.lint(params.text_document.uri)
        if ls.provider_installed:
            ls.relint_dependents(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: TilelangServer, params: types.DidChangeTextDocumentParams):
        uri = params.text_document.uri
        if uri not in ls.docs:
            return
        ls.schedule(uri)
        if ls.provider_installed:
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
        timer = ls.timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        if ls.docs.pop(uri, None) is not None:
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
            ls.relint_dependents(uri)

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
    def code_action(ls: TilelangServer, params: types.CodeActionParams):
        return _code_actions(ls, params)

    @server.command(APPLY_AUTOFIX)
    async def apply_autofix(ls: TilelangServer, *args):
        uri = None
        if args:
            first = args[0]
            uri = first.get("uri") if isinstance(first, dict) else first
        if not isinstance(uri, str) or uri not in ls.docs:
            return None
        edit = ls.fix_all_edit(uri)
        if edit is None:
            return None
        await ls.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(
            edit=edit, label="%s: fix all auto-fixable problems" % NAME))
        return None

    return server


def _hover(ls: TilelangServer, uri: str, pos) -> Optional[types.Hover]:
    state = ls.current(uri)
    if state is None:
        return None
    src = state.src
    line, byte_col = ls.codec.from_lsp(src, pos)
    text = src.line_text(line)
    from ..settings import known_rules

    known = [r.code for r in known_rules()]
    char = src.char_col(line, byte_col)
    hit = logic.noqa_code_at(text, char, known)
    if hit is not None:
        start, end, codes = hit
        rng = _range(ls.codec.to_lsp(src, line, src.byte_col(line, start)),
                     ls.codec.to_lsp(src, line, src.byte_col(line, end)))
        return types.Hover(contents=types.MarkupContent(types.MarkupKind.Markdown, logic.rule_docs(codes)),
                           range=rng)
    parts = []
    rng = None
    here = [f for f in state.findings if logic.contains(ls.codec.finding_range(src, f), pos)]
    if here:
        parts.append(logic.diagnostic_hover(here, lambda code: logic.rule_docs([code])))
        rng = _range(*ls.codec.finding_range(src, here[0]))
    if "tilelang" in src.text:
        try:
            tree = ast.parse(src.text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            tree = None
        found = logic.config_hover(tree, state.path or "untitled.py", line, byte_col) if tree else None
        if found is not None:
            (l1, c1, l2, c2), body = found
            parts.insert(0, body)
            rng = _range(ls.codec.to_lsp(src, l1, c1), ls.codec.to_lsp(src, l2, c2))
    if not parts:
        return None
    return types.Hover(contents=types.MarkupContent(types.MarkupKind.Markdown, "\n\n---\n\n".join(parts)),
                       range=rng)


def _code_actions(ls: TilelangServer, params: types.CodeActionParams):
    uri = params.text_document.uri
    state = ls.current(uri)
    if state is None:
        return None
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
        diag = ls.diagnostic(state, f)
        if logic.applicable(f.fix, ls.unsafe_fixes):
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
        edit = ls.fix_all_edit(uri)
        if edit is not None:
            actions.append(types.CodeAction(title="%s: fix all auto-fixable problems" % NAME,
                                            kind=FIX_ALL_KIND, edit=edit))
    return actions or None


def serve() -> int:
    create_server().start_io()
    return 0
