"""``hylint server``: the Language Server Protocol over stdio (pygls), and nothing of the linter itself.

Every call into the linter goes through ``hylint/server/linting.py``; LSP values are made in
``hylint/server/convert.py``. Linting runs on pygls's event loop: a change is linted after a short
quiet time (DEBOUNCE), an open or a save at once, and only the latest text of each open document
and its diagnostics are kept, so memory does not grow with the number of edits.
"""
from __future__ import annotations

import asyncio
import gc
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional

from lsprotocol import types as lsp
from pygls.server import LanguageServer
from pygls.uris import to_fs_path

from hylint import __version__
from hylint.config import CONFIG_NAMES
from hylint.diagnostic import Applicability, Diagnostic
from hylint.server import convert
from hylint.server.linting import Checker

# seconds of quiet after the last change before it is linted: an edit re-lints only the definitions it
# changed (hylint/server/incremental.py), tens of milliseconds, so a longer wait would be most of the latency
DEBOUNCE = 0.02
# seconds without a change before the groups of a file are prepared for its next edit: the preparing is
# of the latest text, thrown away by the next change of what the groups read, and each step (a group's own
# check, ~16 ms) delays a change arriving meanwhile (its message is read in three turns of the event loop)
WARM_AFTER = 0.1
# seconds without a change before the reach of a package with unsaved buffers is computed again from them
# and the open files whose reach it changed are checked again (hylint/server/reach.py): at least this, and
# twice what the latest computation took (0.3 s for gluonnlp, 2 s for gluoncv, during which the server's
# messages wait), so a large package is not computed again in every pause of typing
REACH_AFTER = 0.3
# seconds without a change before the garbage collector runs in full and the objects alive are set aside
# from later collections (``settle``): the statements parsed on earlier keystrokes stay alive
# (hylint/server/parsing.py), and a full collection during a lint, which would walk them all, added 35 ms
# to one answer in ten
SETTLE_AFTER = 1.0
FIX_ALL = f"{lsp.CodeActionKind.SourceFixAll.value}.hylint"
ADD_NOQA_ALL = "source.addNoqa.hylint"
NOT_SUPPRESSIBLE = {"HY000", "HY001", "HY090"}  # as `hylint check --add-noqa` (hylint/batch/add_noqa.py)


@dataclass
class _Result:
    version: Optional[int]
    text: str
    diagnostics: List[Diagnostic]
    lsp: List[lsp.Diagnostic]


class HylintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("hylint", __version__, notebook_document_sync=lsp.NotebookDocumentSyncOptions(
            notebook_selector=[lsp.NotebookDocumentSyncOptionsNotebookSelectorType2(
                cells=[lsp.NotebookDocumentSyncOptionsNotebookSelectorType2CellsType(language="python")])]))
        self.checker = Checker()
        self.results: Dict[str, _Result] = {}  # uri -> the diagnostics of its latest linted text
        self.pending: Dict[str, asyncio.TimerHandle] = {}  # uri -> the debounced lint of a change
        self.warming: Dict[str, asyncio.Handle] = {}  # uri -> the next step preparing its groups
        self.reaching: Optional[asyncio.TimerHandle] = None  # the next computation of the buffers' reach
        self.settling: Optional[asyncio.TimerHandle] = None  # the next full garbage collection (settle)
        self.changed = 0.0  # loop time of the latest change or lint
        self.cells: Dict[str, str] = {}  # cell uri -> its notebook's uri (cells are linted together)
        self.told: set = set()  # configuration errors already shown to the user
        self._documented = None

    # -- linting ----------------------------------------------------------------------------------
    @property
    def documented(self) -> set:
        if self._documented is None:
            from hylint.selection import all_rules

            self._documented = {code for code, rule in all_rules().items() if rule.DOC}
        return self._documented

    def path_of(self, uri: str) -> Optional[Path]:
        path = to_fs_path(uri) if uri.startswith("file:") else None
        return Path(path) if path else None

    def encoding(self) -> str:
        return self.workspace.position_encoding or lsp.PositionEncodingKind.Utf16

    def resolves_edits(self) -> bool:
        """Whether the client asks for an action's edit when the user picks it (codeAction/resolve)."""
        document = self.client_capabilities.text_document
        support = document.code_action.resolve_support if document and document.code_action else None
        return bool(support and "edit" in support.properties)

    def lint(self, uri: str) -> Optional[_Result]:
        """Lint the open document's current text and publish the diagnostics."""
        handle = self.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()
        if uri not in self.workspace.text_documents:  # closed meanwhile
            return None
        document = self.workspace.get_text_document(uri)
        if document.language_id not in (None, "python"):  # a client that also sends us pyproject.toml
            return None
        text = document.source
        outcome = self.checker.check(text, self.path_of(uri))
        self.tell(outcome.error)
        lines = convert.Text(text, self.encoding())
        result = _Result(document.version, text, outcome.diagnostics,
                         [convert.to_lsp(d, lines, self.documented) for d in outcome.diagnostics])
        self.results[uri] = result
        self.publish_diagnostics(uri, result.lsp, version=document.version)
        self.changed = self.loop.time()
        self._warm_later(uri, WARM_AFTER)
        self.reach_later()
        if self.settling is None:
            self.settling = self.loop.call_later(SETTLE_AFTER, self.settle)
        return result

    def settle(self) -> None:
        """Once the editor is idle, collect garbage in full, then freeze what is alive (``gc.freeze``): the
        collections during the next lints walk only what is made after, not the parsed statements kept
        (what dies among the frozen is freed by its reference count, or by the next settle)."""
        self.settling = None
        wait = self.changed + SETTLE_AFTER - self.loop.time()
        if self.pending or self.warming or wait > 0:  # a change is being typed, linted or prepared for
            self.settling = self.loop.call_later(max(wait, DEBOUNCE), self.settle)
            return
        gc.unfreeze()
        gc.collect()
        gc.freeze()

    def reach_later(self, delay: float = REACH_AFTER) -> None:
        if self.checker.reach_pending() and self.reaching is None:
            self.reaching = self.loop.call_later(delay, self.refresh_reach)

    def refresh_reach(self) -> None:
        """Once the editor is idle, compute the reach of the packages with open buffers again (from their
        unsaved texts) and check again the open files whose reach it changed."""
        self.reaching = None
        wait = self.changed + max(REACH_AFTER, 2 * self.checker.reach_cost()) - self.loop.time()
        if self.pending or wait > 0:  # a change is being typed or waits for its lint
            self.reach_later(max(wait, DEBOUNCE))
            return
        changed = {str(path) for path in self.checker.refresh_reach()}
        for uri in list(self.workspace.text_documents):
            path = self.path_of(uri)
            if path is not None and uri not in self.cells and os.path.abspath(path) in changed:
                self.lint(uri)

    def _warm_later(self, uri: str, delay: float) -> None:
        handle = self.warming.pop(uri, None)
        if handle is not None:
            handle.cancel()
        self.warming[uri] = self.loop.call_later(delay, self.warm, uri) if delay > 0 else \
            self.loop.call_soon(self.warm, uri)

    def warm(self, uri: str) -> None:
        """While the editor is idle (no change for WARM_AFTER seconds, none waiting to be linted), prepare
        the groups of a file for its next edit, one per turn of the event loop (a message that arrives
        meanwhile is handled first); a newer check or a close stops it."""
        self.warming.pop(uri, None)
        if uri not in self.results:
            return
        wait = self.changed + WARM_AFTER - self.loop.time()
        if self.pending or wait > 0:  # a change is being typed or waits for its lint
            self._warm_later(uri, max(wait, DEBOUNCE))
        elif self.checker.warm(self.path_of(uri)):
            self._warm_later(uri, 0)

    def lint_notebook(self, uri: str) -> None:
        """Lint an open notebook's cells as one module; publish each cell's diagnostics to the cell."""
        handle = self.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()
        notebook = self.workspace.get_notebook_document(notebook_uri=uri)
        if notebook is None:
            return
        cells = []
        for cell in notebook.cells:
            document = self.workspace.get_text_document(cell.document)
            code = cell.kind == lsp.NotebookCellKind.Code and document.language_id in (None, "python")
            cells.append((cell.document, document, code))
        path = self.path_of(uri)
        outcome = self.checker.check_notebook([(code, document.source) for _, document, code in cells], path)
        self.tell(outcome.error)
        by_cell: Dict[int, List[Diagnostic]] = {}
        for d in outcome.diagnostics:
            by_cell.setdefault(d.cell or 1, []).append(d)
        for number, (cell_uri, document, _) in enumerate(cells, 1):
            self.cells[cell_uri] = uri
            lines = convert.Text(document.source, self.encoding())
            found = by_cell.get(number, [])
            result = _Result(document.version, document.source, found,
                             [convert.to_lsp(d, lines, self.documented) for d in found])
            self.results[cell_uri] = result
            self.publish_diagnostics(cell_uri, result.lsp, version=document.version)

    def tell(self, error: Optional[str]) -> None:
        if error and error not in self.told:
            if len(self.told) > 100:  # internal errors differ by file and text: keep the set bounded
                self.told.clear()
            self.told.add(error)
            self.show_message_log(error, lsp.MessageType.Error)
            self.show_message(error, lsp.MessageType.Error)

    def lint_later(self, uri: str, notebook: bool = False) -> None:
        self.changed = self.loop.time()
        handle = self.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()
        self.pending[uri] = self.loop.call_later(DEBOUNCE, self.lint_notebook if notebook else self.lint,
                                                                uri)

    def lint_all(self) -> None:
        for uri in list(self.workspace.text_documents):
            if uri not in self.cells:
                self.lint(uri)
        for uri in set(self.cells.values()):
            self.lint_notebook(uri)

    def current(self, uri: str) -> Optional[_Result]:
        """The diagnostics of the document's current text (linted now if a change is still pending)."""
        if uri not in self.workspace.text_documents:
            return None
        result = self.results.get(uri)
        document = self.workspace.get_text_document(uri)
        if result is None or result.version != document.version or result.text != document.source:
            if uri in self.cells:
                self.lint_notebook(self.cells[uri])
                return self.results.get(uri)
            result = self.lint(uri)
        return result

    def forget(self, uri: str) -> None:
        for handles in (self.pending, self.warming):
            handle = handles.pop(uri, None)
            if handle is not None:
                handle.cancel()
        self.results.pop(uri, None)
        if uri not in self.cells:
            self.checker.forget(self.path_of(uri))


def _wanted(kind: str, only: Optional[List[str]]) -> bool:
    return not only or any(kind == o or kind.startswith(o + ".") for o in only)


def _edit(uri: str, edits: List[lsp.TextEdit]) -> lsp.WorkspaceEdit:
    return lsp.WorkspaceEdit(changes={uri: edits})


def create_server() -> HylintServer:
    server = HylintServer()

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: HylintServer, params: lsp.DidOpenTextDocumentParams) -> None:
        ls.lint(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: HylintServer, params: lsp.DidChangeTextDocumentParams) -> None:
        ls.lint_later(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: HylintServer, params: lsp.DidSaveTextDocumentParams) -> None:
        if params.text_document.uri.rsplit("/", 1)[-1] in CONFIG_NAMES:  # settings may have changed: all files
            ls.lint_all()
        else:
            ls.lint(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: HylintServer, params: lsp.DidCloseTextDocumentParams) -> None:
        ls.forget(params.text_document.uri)
        ls.publish_diagnostics(params.text_document.uri, [])
        ls.reach_later()  # its unsaved text, if any, no longer counts for the others

    @server.feature(lsp.NOTEBOOK_DOCUMENT_DID_OPEN)
    def notebook_did_open(ls: HylintServer, params: lsp.DidOpenNotebookDocumentParams) -> None:
        ls.lint_notebook(params.notebook_document.uri)

    @server.feature(lsp.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def notebook_did_change(ls: HylintServer, params: lsp.DidChangeNotebookDocumentParams) -> None:
        structure = params.change.cells.structure if params.change.cells else None
        if structure is not None:  # cells removed: clear what they showed
            for cell in structure.did_close or []:
                ls.forget(cell.uri)
                ls.cells.pop(cell.uri, None)
                ls.publish_diagnostics(cell.uri, [])
        ls.lint_later(params.notebook_document.uri, notebook=True)

    @server.feature(lsp.NOTEBOOK_DOCUMENT_DID_SAVE)
    def notebook_did_save(ls: HylintServer, params: lsp.DidSaveNotebookDocumentParams) -> None:
        ls.lint_notebook(params.notebook_document.uri)

    @server.feature(lsp.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def notebook_did_close(ls: HylintServer, params: lsp.DidCloseNotebookDocumentParams) -> None:
        ls.forget(params.notebook_document.uri)
        for cell in params.cell_text_documents:
            ls.forget(cell.uri)
            ls.cells.pop(cell.uri, None)
            ls.publish_diagnostics(cell.uri, [])

    @server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(ls: HylintServer, params: lsp.DidChangeWatchedFilesParams) -> None:
        ls.lint_all()  # a configuration file changed on disk (linting.py notices which settings are stale)

    @server.feature(lsp.INITIALIZED)
    def initialized(ls: HylintServer, params: lsp.InitializedParams) -> None:
        capabilities = ls.client_capabilities.workspace
        watched = capabilities.did_change_watched_files if capabilities else None
        if watched is not None and watched.dynamic_registration:
            ls.register_capability(lsp.RegistrationParams(registrations=[lsp.Registration(
                id="hylint-pyproject", method=lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=lsp.DidChangeWatchedFilesRegistrationOptions(
                    watchers=[lsp.FileSystemWatcher(glob_pattern=f"**/{name}") for name in CONFIG_NAMES]))]))

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    def hover(ls: HylintServer, params: lsp.HoverParams) -> Optional[lsp.Hover]:
        from hylint.selection import all_rules

        result = ls.current(params.text_document.uri)
        if result is None:
            return None
        rules = all_rules()
        shown = []  # each diagnostic under the cursor once: its message, fix and what its rule does
        for d, item in zip(result.diagnostics, result.lsp):
            if convert.contains(item.range, params.position) and d.code in rules:
                text = convert.hover_markdown(d, rules[d.code])
                if text not in shown:
                    shown.append(text)
        if not shown:
            return None
        text = "\n\n---\n\n".join(shown)
        return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text))

    @server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION, lsp.CodeActionOptions(
        code_action_kinds=[lsp.CodeActionKind.QuickFix, FIX_ALL, ADD_NOQA_ALL], resolve_provider=True))
    def code_action(ls: HylintServer, params: lsp.CodeActionParams) -> Optional[List[lsp.CodeAction]]:
        uri = params.text_document.uri
        result = ls.current(uri)
        if result is None:
            return None
        only = params.context.only
        text = convert.Text(result.text, ls.encoding())
        actions: List[lsp.CodeAction] = []
        if _wanted(lsp.CodeActionKind.QuickFix, only):
            for index, (d, item) in enumerate(zip(result.diagnostics, result.lsp)):
                if not convert.overlaps(item.range, params.range):
                    continue
                if d.fix is not None and d.fix.applicability != Applicability.DISPLAY_ONLY:
                    actions.append(lsp.CodeAction(
                        title=convert.fix_title(d), kind=lsp.CodeActionKind.QuickFix, diagnostics=[item],
                        is_preferred=d.fix.applicability == Applicability.SAFE,
                        edit=_edit(uri, convert.text_edits(d.fix.edits, text))))
                if d.code not in NOT_SUPPRESSIBLE and d.noqa_row is not None:
                    actions.append(lsp.CodeAction(
                        title=f"hylint ({d.code}): add `# noqa: {d.code}` on this line",
                        kind=lsp.CodeActionKind.QuickFix, diagnostics=[item],
                        data={"uri": uri, "version": result.version, "do": "noqa", "index": index}))
        if uri in ls.cells:  # the whole-file actions would see one cell, not the notebook
            return _resolved(ls, actions)
        if _wanted(FIX_ALL, only) and any(d.fix is not None and d.fix.applicability == Applicability.SAFE
                                          for d in result.diagnostics):
            actions.append(lsp.CodeAction(title="hylint: fix all safe fixes", kind=FIX_ALL,
                                          data={"uri": uri, "version": result.version, "do": "fix-all"}))
        # a whole-file edit: offered when asked for by its kind only
        if only and _wanted(ADD_NOQA_ALL, only) and any(d.code not in NOT_SUPPRESSIBLE for d in result.diagnostics):
            actions.append(lsp.CodeAction(title="hylint: add `# noqa` for every diagnostic", kind=ADD_NOQA_ALL,
                                          data={"uri": uri, "version": result.version, "do": "noqa-all"}))
        return _resolved(ls, actions)

    @server.feature(lsp.CODE_ACTION_RESOLVE)
    def code_action_resolve(ls: HylintServer, action: lsp.CodeAction) -> lsp.CodeAction:
        return _resolve(ls, action)

    return server


def _resolved(ls: HylintServer, actions: List[lsp.CodeAction]) -> List[lsp.CodeAction]:
    if not ls.resolves_edits():  # the client cannot ask for the edit later: compute it now
        actions = [_resolve(ls, action) for action in actions]
    return [action for action in actions if action.edit is not None or action.data is not None]


def _resolve(ls: HylintServer, action: lsp.CodeAction) -> lsp.CodeAction:
    """The edit of a fix-all or noqa action, computed only when the user picks it (they cost a lint or a
    parse of the file, too much for every cursor move). A stale action (the text changed) gets no edit."""
    data = action.data
    if action.edit is not None or not isinstance(data, dict):
        return action
    uri = data.get("uri")
    result = ls.current(uri) if isinstance(uri, str) else None
    action.data = None
    if result is None or result.version != data.get("version"):
        return action
    path = ls.path_of(uri)
    if data.get("do") == "fix-all":
        new = ls.checker.fix_all(result.text, path)
    elif data.get("do") == "noqa-all":
        new = ls.checker.add_noqa(result.text, path)
    elif data.get("do") == "noqa" and isinstance(data.get("index"), int) and \
            0 <= data["index"] < len(result.diagnostics):
        new = ls.checker.add_noqa(result.text, path, only=result.diagnostics[data["index"]])
    else:
        return action
    edit = convert.minimal_edit(result.text, new, ls.encoding())
    if edit is not None:
        action.edit = _edit(uri, [edit])
    return action


def main() -> None:
    create_server().start_io()
