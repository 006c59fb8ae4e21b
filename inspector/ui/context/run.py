"""Session > Model's view: the current tab's listing (a live session's as the explorer listed it, else its
capture's, read offline) costed and linted as ``mcp-inspector context`` does, shown in a tab of its own; a live
session's follows its listing (:class:`Follower`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer
from shiboken6 import isValid

from inspector.core.context.cost import Listing
from inspector.core.notices import What
from inspector.ui.host import Controller

if TYPE_CHECKING:
    from collections.abc import Callable

    from inspector.core.context.report import ContextReport
    from inspector.core.context.tokenizers import Tokenizer
    from inspector.core.explore.catalog import Notice
    from inspector.ui.context.view import ModelView
    from inspector.ui.session.tab import SessionTab

#: the Problems panel's severities for the context rules' (a note is information there)
_PANEL_SEVERITY = {"error": "error", "warning": "warning", "note": "info"}


@dataclass
class TabListing:
    listing: Listing
    source: str  #: what it is of, as reports name it
    seq: int | None = None  #: the seq of the tools/list answer in the tab's timeline, where findings point


def listing_of_tab(tab: SessionTab) -> TabListing | str:
    """The listing of ``tab`` and what it is of, or a sentence saying why there is none."""
    from inspector.core.compare.sessions import CompareError
    from inspector.core.context.sources import from_capture, listing_of

    record = None
    if tab.capture_path is not None:
        try:
            record = from_capture(tab.capture_path)  # a live session's capture too: where its tools/list is
        except CompareError as exc:
            if tab.live is None:
                return str(exc)
    seq = record.listed_seq.get("tools") if record is not None else None
    if seq is None:
        seq = last_tools_list_answer(tab)  # a live session's capture may not have reached the file yet
    live = catalog_listing(tab, seq)
    if live is not None:
        return live
    if record is None:
        return "the Model's view needs a session whose tools are listed, or a capture"
    if record.interface.get("tools") is None:
        return f"{record.source} holds no complete tools/list to show the model's view of"
    return TabListing(listing_of(record), record.describe(), seq)


def catalog_listing(tab: SessionTab, seq: int | None) -> TabListing | None:
    """A live session's listing as its explorer's catalog holds it, or None when it has listed no tools."""
    catalog = tab.explorer.catalog if tab.live is not None else None
    if catalog is None or not catalog.declares("tools") or "tools" in catalog.problems:
        return None
    server = catalog.session.server
    instructions = getattr(server, "instructions", None) if server is not None else None
    return TabListing(Listing(tools=list(catalog.items["tools"]), prompts=list(catalog.items["prompts"]),
                              templates=list(catalog.items["templates"]),
                              instructions=instructions if isinstance(instructions, str) else None),
                      tab.title, seq)


#: how many of a timeline's last rows are searched for the tools/list answer
SEARCHED_ROWS = 100_000


def last_tools_list_answer(tab: SessionTab) -> int | None:
    """The seq of the last answer to tools/list in ``tab``'s timeline (its last :data:`SEARCHED_ROWS` rows),
    the rows its store holds and the timeline has not been told of yet included (a live session's are announced
    in batches, ~30 a second: the catalog hears of an answer before the timeline shows it)."""
    model = tab.timeline.model
    if model is None:
        return None
    rows = len(model.events)
    for row in range(rows - 1, max(rows - SEARCHED_ROWS, 0) - 1, -1):
        event = model.event(row)
        if event.data.get("request_method") == "tools/list":
            return event.seq
    return None


def add_problems(tab: SessionTab, report: ContextReport, seq: int | None) -> int:
    """The report's findings in the tab's Problems panel, each pointing at the tools/list answer; a finding the
    tab's panel already has (the same rule, item, field, span and text: a second Model's view, or a live
    session's listing again with that tool unchanged) is not added again. Returns how many were added."""
    if seq is None:
        return 0
    from inspector.core.context.lint import RULES
    from inspector.core.protocol.judge import ProtocolFinding

    added: set[tuple[object, ...]] = tab.__dict__.setdefault("model_view_problems", set())  # kept with the tab
    fresh = []
    for f in report.findings:
        key = (f.rule, f.kind, f.server, f.item, f.field, f.start, f.end, f.excerpt)
        if key not in added:
            added.add(key)
            fresh.append(f)
    tab.problems.other_rules.update({rule.id: rule.title for rule in RULES})
    found = [ProtocolFinding(seq, f.rule, _PANEL_SEVERITY.get(f.severity, "info"),
                             f"{f.kind} {f.label()}, {f.field} [{f.start}:{f.end}]: {f.message}: {f.excerpt}")
             for f in fresh]
    if found:
        tab.problems.add(found)
    return len(found)


def drift_of_tab(tab: SessionTab) -> dict[str, str]:
    """Tool name -> what drifted from the baseline of the tab's profile (:mod:`inspector.ui.compare.drift`);
    empty when there is no baseline or no drift. The drift watch checks a session's first listing; a live
    session's tools listed again since (a rug pull after list_changed) are checked here anew, as the watch does."""
    watch = getattr(tab, "drift_watch", None)
    drift = getattr(watch, "drift", None)
    if drift is None:
        return {}
    catalog = tab.explorer.catalog if tab.live is not None else None
    baseline = getattr(watch, "baseline", None)
    if catalog is not None and baseline is not None and "tools" not in catalog.problems:
        from inspector.core.compare.baseline import BaselineError, check, record_of_tools

        try:
            drift = check(baseline, record_of_tools(catalog.items["tools"], tab.title))
        except BaselineError:
            pass  # no complete listing: what the watch found stands
    return {change.name: change.change + (f": {', '.join(change.fields)}" if change.fields else "")
            for change in drift.changes if change.kind == "tools"}


#: the kinds whose listing is in the model's context
_CONTEXT_KINDS = ("tools", "prompts", "templates")


class Follower:
    """Keeps the Model's view of a live session up to date: when its catalog lists tools, prompts or templates
    again (the server said they changed), the listing is costed and linted anew and the view shows it, its new
    findings added to the tab's Problems panel. Several listings heard in one turn of the loop are shown once.
    It stops hearing the catalog when the view is gone."""

    def __init__(self, tab: SessionTab, view: ModelView, tok: Tokenizer, say: Callable[[str], None]) -> None:
        self.tab = tab
        self.view = view
        self.tok = tok
        self.say = say
        self.catalog = tab.explorer.catalog
        self.pending = False
        self.stopped = False  #: the view is gone: a refresh already scheduled does nothing
        self.refreshes = 0  #: how many times the view was shown anew
        if self.catalog is not None:
            self.catalog.listeners.append(self.heard)
            view.destroyed.connect(self.stop)

    def stop(self, *_: object) -> None:
        self.stopped = True
        if self.catalog is not None and self.heard in self.catalog.listeners:
            self.catalog.listeners.remove(self.heard)

    def heard(self, notice: Notice) -> None:
        if notice.what == What.LISTED and notice.kind in _CONTEXT_KINDS and not self.pending:
            self.pending = True
            QTimer.singleShot(0, self.refresh)

    def refresh(self) -> None:
        from inspector.core.context.cost import ContextError
        from inspector.core.context.report import examine

        self.pending = False
        if self.stopped or not (isValid(self.view) and isValid(self.tab)):  # the session's tab closed meanwhile
            return
        found = catalog_listing(self.tab, last_tools_list_answer(self.tab))
        if found is None:
            return
        try:
            report = examine(found.listing, self.tok, found.source)
        except ContextError as exc:
            self.say(f"{found.source}: {exc}")
            return
        add_problems(self.tab, report, found.seq)
        self.view.show_report(report, found.listing, drift_of_tab(self.tab))
        self.refreshes += 1


class ModelViews(Controller):
    """Session > Model's view."""

    def show_current(self) -> None:
        tab = self.host.current_tab()
        if tab is None:
            self.say("the Model's view needs a session or a capture")
            return
        found = listing_of_tab(tab)
        if isinstance(found, str):
            self.say(found)
            return
        from inspector.core.context.cost import ContextError
        from inspector.core.context.report import examine
        from inspector.core.context.tokenizers import TokenizerError, tokenizer
        from inspector.ui.context.view import ModelView

        try:
            tok = tokenizer()
        except TokenizerError as exc:
            self.say(str(exc))
            return
        try:
            report = examine(found.listing, tok, found.source)
        except ContextError as exc:
            self.say(f"{found.source}: {exc}")
            return
        add_problems(tab, report, found.seq)
        view = ModelView(report, found.listing, drift_of_tab(tab))
        if tab.live is not None:
            view.follower = Follower(tab, view, tok, self.say)
        self.show_view(view, f"Model's view: {tab.title}", report.summary())
        self.say(f"{found.source}: {report.summary()}")
