"""Session > Model's view: the current tab's listing (a live session's as the explorer listed it, else its
capture's, read offline) costed and linted as ``mcp-inspector context`` does, shown in a tab of its own."""

from __future__ import annotations

from typing import TYPE_CHECKING

from inspector.core.context.cost import Listing
from inspector.ui.host import Controller

if TYPE_CHECKING:
    from inspector.ui.session.tab import SessionTab


def listing_of_tab(tab: SessionTab) -> tuple[Listing, str] | str:
    """The listing of ``tab`` and what it is of, or a sentence saying why there is none."""
    catalog = tab.explorer.catalog if tab.live is not None else None
    if catalog is not None and catalog.declares("tools") and "tools" not in catalog.problems:
        server = catalog.session.server
        instructions = getattr(server, "instructions", None) if server is not None else None
        return Listing(tools=list(catalog.items["tools"]), prompts=list(catalog.items["prompts"]),
                       templates=list(catalog.items["templates"]),
                       instructions=instructions if isinstance(instructions, str) else None), tab.title
    if tab.capture_path is None:
        return "the Model's view needs a session whose tools are listed, or a capture"
    from inspector.core.compare.sessions import CompareError
    from inspector.core.context.sources import from_capture, listing_of

    try:
        record = from_capture(tab.capture_path)
    except CompareError as exc:
        return str(exc)
    if record.interface.get("tools") is None:
        return f"{tab.capture_path.name} holds no complete tools/list to show the model's view of"
    return listing_of(record), record.describe()


def drift_of_tab(tab: SessionTab) -> dict[str, str]:
    """Tool name -> what drifted from the baseline of the tab's profile, as its drift check found
    (:mod:`inspector.ui.compare.drift`); empty when there is no baseline or no drift."""
    watch = getattr(tab, "drift_watch", None)
    drift = getattr(watch, "drift", None)
    if drift is None:
        return {}
    return {change.name: change.change + (f": {', '.join(change.fields)}" if change.fields else "")
            for change in drift.changes if change.kind == "tools"}


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
        from inspector.core.context.report import examine
        from inspector.core.context.tokenizers import TokenizerError, tokenizer
        from inspector.ui.context.view import ModelView

        listing, source = found
        try:
            tok = tokenizer()
        except TokenizerError as exc:
            self.say(str(exc))
            return
        report = examine(listing, tok, source)
        view = ModelView(report, listing, drift_of_tab(tab))
        self.show_view(view, f"Model's view: {tab.title}", report.summary())
        self.say(f"{source}: {report.summary()}")
