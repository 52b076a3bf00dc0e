"""A real LSP client (pygls') driving ``flake8-tilelang server`` over stdio."""
import asyncio
import os
import sys

from lsprotocol import types
from pygls.lsp.client import BaseLanguageClient
from pygls.uris import from_fs_path

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIMEOUT = 60  # generous: the machine is shared; no test measures time


class Client:
    """Starts the server, records what it publishes and answers its requests
    (``workspace/applyEdit`` is applied to the client's own copy of the
    document, then sent back as a change, like an editor does)."""

    def __init__(self):
        self.lsp = BaseLanguageClient("tla-test-client", "0")
        self.published = {}  # uri -> [PublishDiagnosticsParams, ...]
        self.texts = {}  # uri -> text the client holds
        self.versions = {}
        self.applied = []
        self.messages = []
        self.registrations = []
        self._changed = asyncio.Event()

        @self.lsp.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: types.PublishDiagnosticsParams):
            self.published.setdefault(params.uri, []).append(params)
            self._changed.set()

        @self.lsp.feature(types.WINDOW_SHOW_MESSAGE)
        def on_message(params):
            self.messages.append(params.message)

        @self.lsp.feature(types.WINDOW_LOG_MESSAGE)
        def on_log(params):
            pass

        @self.lsp.feature(types.CLIENT_REGISTER_CAPABILITY)
        def on_register(params: types.RegistrationParams):
            self.registrations.extend(r.method for r in params.registrations)
            return None

        @self.lsp.feature(types.WORKSPACE_APPLY_EDIT)
        def on_apply(params: types.ApplyWorkspaceEditParams):
            self.applied.append(params.edit)
            for uri, edits in (params.edit.changes or {}).items():
                self.apply_local(uri, edits)
            return types.ApplyWorkspaceEditResult(applied=True)

    async def start(self, root, options=None, encodings=None, watch=True, fix_rule=False, args=(), notebooks=False):
        """``fix_rule``: run the server with the test rule TLA098, whose
        findings carry a safe or an unsafe fix (tests/server_with_fix_rule.py)."""
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, env.get("PYTHONPATH")) if p)
        env.pop("FLAKE8_TILELANG_STRICT", None)  # an editor never runs in strict mode
        if fix_rule == "no-add-reader":
            argv = [os.path.join(ROOT, "tests", "server_without_add_reader.py")]
        elif fix_rule:
            argv = [os.path.join(ROOT, "tests", "server_with_fix_rule.py")]
        else:
            argv = ["-m", "flake8_tilelang", "server"] + list(args)
        await self.lsp.start_io(sys.executable, *argv, env=env, cwd=root)
        general = types.GeneralClientCapabilities(position_encodings=encodings) if encodings else None
        caps = types.ClientCapabilities(
            general=general,
            workspace=types.WorkspaceClientCapabilities(
                apply_edit=True,
                did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(
                    dynamic_registration=watch)),
            text_document=types.TextDocumentClientCapabilities(
                hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.Markdown]),
                publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True)),
            notebook_document=types.NotebookDocumentClientCapabilities(
                synchronization=types.NotebookDocumentSyncClientCapabilities()) if notebooks else None)
        result = await asyncio.wait_for(self.lsp.initialize_async(types.InitializeParams(
            capabilities=caps, root_uri=from_fs_path(root), process_id=os.getpid(),
            workspace_folders=[types.WorkspaceFolder(uri=from_fs_path(root), name="root")],
            initialization_options=options)), TIMEOUT)
        self.lsp.initialized(types.InitializedParams())
        return result

    async def stop(self):
        await asyncio.wait_for(self.lsp.shutdown_async(None), TIMEOUT)
        self.lsp.exit(None)
        await asyncio.wait_for(self.lsp.stop(), TIMEOUT)
        return self.lsp._server.returncode

    # -- documents -----------------------------------------------------------
    def open(self, path, text=None):
        uri = from_fs_path(path)
        if text is None:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        self.texts[uri] = text
        self.versions[uri] = 1
        self.lsp.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
        return uri

    def open_notebook(self, uri, cells, docs, notebook_type="jupyter-notebook"):
        """notebookDocument/didOpen: ``cells`` (NotebookCell, every cell in
        order) and ``docs`` (TextDocumentItem, the synced cells' texts)."""
        self.lsp.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
            notebook_document=types.NotebookDocument(uri=uri, notebook_type=notebook_type, version=1,
                                                     cells=cells),
            cell_text_documents=docs))

    def change(self, uri, text):
        """A whole-document change (what a client without incremental sync sends)."""
        self.texts[uri] = text
        self.versions[uri] += 1
        self.lsp.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
        return self.versions[uri]

    def edit(self, uri, start, end, text):
        """An incremental change (what editors send): replace the range
        ``start``..``end`` (LSP (line, UTF-16 column)) with ``text``."""
        rng = types.Range(start=types.Position(*start), end=types.Position(*end))
        self._apply_text(uri, [types.TextEdit(range=rng, new_text=text)])
        self.versions[uri] += 1
        self.lsp.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
            content_changes=[types.TextDocumentContentChangePartial(range=rng, text=text)]))
        return self.versions[uri]

    def apply_local(self, uri, edits):
        """Apply LSP TextEdits to the client's copy and send the whole text."""
        self._apply_text(uri, edits)
        return self.change(uri, self.texts[uri])

    def _apply_text(self, uri, edits):
        lines = self.texts[uri].split("\n")

        def offset(pos):
            before = sum(len(text) + 1 for text in lines[:pos.line])
            line = lines[pos.line] if pos.line < len(lines) else ""
            units = line.encode("utf-16-le")[:2 * pos.character].decode("utf-16-le")
            return before + len(units)

        text = self.texts[uri]
        for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
            text = text[:offset(e.range.start)] + e.new_text + text[offset(e.range.end):]
        self.texts[uri] = text

    async def diagnostics(self, uri, version=None, where=None, since=0):
        """The first publication for ``uri`` (at ``version``, or matching
        ``where(diagnostics)``) not seen before this call's condition held."""
        async def wait():
            while True:
                for params in self.published.get(uri, [])[since:]:
                    if version is not None and params.version != version:
                        continue
                    if where is not None and not where(params.diagnostics):
                        continue
                    return list(params.diagnostics)
                self._changed.clear()
                await self._changed.wait()

        return await asyncio.wait_for(wait(), TIMEOUT)

    @staticmethod
    def lsp_uri(path):
        return from_fs_path(path)

    def seen(self, uri):
        """How many publications for ``uri`` so far (``since`` for the next wait)."""
        return len(self.published.get(uri, []))

    async def hover(self, uri, line, character):
        return await asyncio.wait_for(self.lsp.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=character))), TIMEOUT)

    async def code_actions(self, uri, start, end, only=None, diagnostics=()):
        return await asyncio.wait_for(self.lsp.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(*start), end=types.Position(*end)),
            context=types.CodeActionContext(diagnostics=list(diagnostics), only=only))), TIMEOUT)

    async def command(self, name, *arguments):
        return await asyncio.wait_for(self.lsp.workspace_execute_command_async(types.ExecuteCommandParams(
            command=name, arguments=list(arguments))), TIMEOUT)


def run(coro):
    return asyncio.run(coro)


class RawClient:
    """Bytes on the server's stdin, messages from its stdout: for input no
    LSP library would send (oversized headers, bodies that are not JSON,
    params of the wrong shape)."""

    def __init__(self, root, args=()):
        import subprocess
        import threading

        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, env.get("PYTHONPATH")) if p)
        env.pop("FLAKE8_TILELANG_STRICT", None)
        self.proc = subprocess.Popen([sys.executable, "-m", "flake8_tilelang", "server"] + list(args),
                                     cwd=root, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.messages = []
        self._cond = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        import json

        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            body = out.read(length)
            with self._cond:
                self.messages.append(json.loads(body))
                self._cond.notify_all()

    def write(self, data: bytes):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message):
        import json

        body = json.dumps(message).encode("utf-8")
        self.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def wait(self, pred, timeout=TIMEOUT):
        import time

        end = time.monotonic() + timeout
        with self._cond:
            while True:
                for m in self.messages:
                    if pred(m):
                        return m
                left = end - time.monotonic()
                if left <= 0:
                    raise TimeoutError("no such message; got %r" % self.messages[-5:])
                self._cond.wait(left)

    def initialize(self, root, options=None):
        self.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "processId": None, "rootUri": from_fs_path(root), "capabilities": {},
            "initializationOptions": options}})
        self.wait(lambda m: m.get("id") == 1)
        self.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})

    def close(self):
        try:
            self.send({"jsonrpc": "2.0", "id": 999999, "method": "shutdown"})
            self.wait(lambda m: m.get("id") == 999999)
            self.send({"jsonrpc": "2.0", "method": "exit"})
            return self.proc.wait(TIMEOUT)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
