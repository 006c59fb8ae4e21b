"""The Explorer history's "Save to collection…": the chosen call appended to a collection file (made when there
is none), expecting what the call gave then: a JSON-RPC error stays an error, a tool error ``isError: true``, any
other answer a result with ``isError: false`` (:func:`inspector.core.collections.format.from_call`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QPushButton, QWidget

from inspector.core.collections.format import CollectionError, Expect, SavedRequest, add_to, from_call
from inspector.core.explore.history import Call


def saved_request(call: Call) -> SavedRequest:
    """The collection entry of a history call, expecting its outcome as its summary recorded it."""
    request = from_call(call.tool, call.arguments, is_error=call.summary.startswith("tool error: "))
    if call.summary.startswith("error: "):  # the server answered with a JSON-RPC error
        request.expect = Expect(status="error")
    return request


def save_call(call: Call, path: Path) -> str:
    """Append ``call`` to the collection at ``path``; the sentence to show."""
    try:
        collection = add_to(path, [saved_request(call)])
    except CollectionError as exc:
        return str(exc)
    return f"saved {call.tool} to {path.name} ({len(collection.requests)} requests)"


def save_to_collection_button(parent: QWidget, chosen: Callable[[], Call | None], say: Callable[[str], None],
                              ask_path: Callable[[], Path | None] | None = None) -> QPushButton:
    """The "Save to collection…" button of the history page: ``chosen`` gives the history entry, ``say`` shows
    the outcome; ``ask_path`` picks the file (a save dialog that does not warn about appending)."""
    button = QPushButton("Save to collection…", parent)

    def ask() -> Path | None:
        name, _ = QFileDialog.getSaveFileName(parent, "Save to collection", str(Path.home() / "calls.collection.json"),
                                              "Collections (*.json)",
                                              options=QFileDialog.Option.DontConfirmOverwrite)
        return Path(name) if name else None

    def save() -> None:
        call = chosen()
        if call is None:
            say("choose a call in the history first")
            return
        path = (ask_path or ask)()
        if path is not None:
            say(save_call(call, path))

    button.clicked.connect(save)
    return button
