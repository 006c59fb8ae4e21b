"""The user-input rows of the fault matrix: what a person types (a command line, a URL, a header) and the
capture files they open, on the CLI (a real ``mcp-inspector`` subprocess) and in the window (the profile
dialog, a saved profile connected, File > Open on the real MainWindow, offscreen).

Each case ends with one sentence that names the cause, the same cause on both surfaces, at once, without a
traceback and without a process left behind; a capture file that is opened is never changed.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import until
from http_fault_support import (  # noqa: F401 - fixtures
    MessageBoxes,
    cli_sentence,
    free_port,
    intact,
    message_boxes,
    no_orphans,
    nothing_escaped,
    qloop,
    run_cli,
    run_gui,
    status_sentence,
    window,
)

from inspector.core.clients.profiles import ServerProfile
from inspector.core.connect.target import Target
from inspector.core.exits import EXIT_CANNOT_CONNECT
from inspector.ui.session.live import CLOSED, FAILED, READY

pytestmark = [pytest.mark.integration]

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sample-v1.jsonl"
BROKEN_QUOTING = 'python -c "print(1'
BAD_URL = "htp:/127.0.0.1:8000/mcp"
NO_COLON = "X-Api-Key"
LINE_BREAK = "X-Api-Key: abc\r\nX-Injected: 1"
#: Size of the one huge line of the 100 MB case.
HUGE_LINE_BYTES = 100 * 1024 * 1024

ADVICE = {
    "quoting": "Close the quote, and give the program and each of its arguments as separate words.",
    "url": "Write the full URL with its scheme, host and port, for example http://127.0.0.1:8000/mcp.",
    "no colon": "Write each header as 'Name: value', with a colon between the name and the value.",
    "line break": "Put each header on its own -H (or its own line in the profile): a value cannot hold a line "
                  "break.",
    "truncated": "Nothing to fix: everything recorded before the cut was loaded; record again if you need the rest.",
    "version": "Upgrade mcp-inspector to open captures written by a newer version.",
    "not json": "Open a capture that mcp-inspector saved (JSON Lines that start with its header line).",
    "types": "The other lines were loaded; the skipped line was damaged or written by another tool: fix or "
             "delete it to load it too.",
    "huge": "The other lines were loaded; the huge skipped line is damaged: fix or delete it to load it too.",
}


# -- the profile dialog -----------------------------------------------------------------------------------


@pytest.fixture
def dialog(qapp: Any) -> Iterator[Any]:
    """A new-server ProfileDialog, never exec'd: what it says is read from the widget itself."""
    from inspector.ui.profiles.dialog import ProfileDialog

    box = ProfileDialog()
    box.name_edit.setText("my-server")
    yield box
    box.deleteLater()


def type_into(dialog: Any, kind: str, **fields: str) -> tuple[str, float]:
    """Fill the dialog as a user would; the sentence it shows under the form and how long it took to show."""
    started = time.monotonic()
    dialog.set_kind(kind)
    for name, text in fields.items():
        widget = getattr(dialog, f"{name}_edit")
        if hasattr(widget, "setPlainText"):
            widget.setPlainText(text)
        else:
            widget.setText(text)
    sentence = dialog.problem_label.text()
    elapsed = time.monotonic() - started
    assert not dialog.ok_button.isEnabled(), "Save must stay disabled while the form is wrong"
    # the dialog is never shown, so ask whether the sentence and its icon would be seen once it is
    assert sentence, "the form is wrong, so a sentence must say why"
    assert dialog.problem_label.isVisibleTo(dialog), "the sentence must show under the form"
    assert dialog._problem_icon.isVisibleTo(dialog), "the warning icon must show beside the sentence"
    return sentence, elapsed


def connect_profile(window: Any, qloop: Any, profile: ServerProfile) -> tuple[str, float, Any]:
    """Connect a saved profile as the sidebar does; the status line's sentence, the time it took, the tab."""
    async def scenario() -> tuple[str, float, Any]:
        started = time.monotonic()
        window.sidebar.connect_requested.emit(profile)
        tab = window.tabs.currentWidget()
        await until(lambda: tab.status.text().startswith((f"{FAILED}:", f"{CLOSED}:", READY)), 30,
                    "the status line to say what happened")
        elapsed = time.monotonic() - started
        sentence = status_sentence(tab)
        await tab.close()
        return sentence, elapsed, tab

    result = run_gui(qloop, scenario)
    nothing_escaped(qloop)
    assert window.message_boxes.shown == []
    return result


# -- a command line with broken quoting -------------------------------------------------------------------


@pytest.mark.report("faults", "a command line with broken quoting", surface="CLI", group="input",
                    advice=ADVICE["quoting"])
def test_a_command_line_with_broken_quoting_is_named_on_the_cli(tmp_path, report, no_orphans):
    # the whole command line quoted as one word, its inner quote never closed
    done, elapsed = run_cli("record", "--out", str(tmp_path / "capture.jsonl"), "--", BROKEN_QUOTING)
    sentence = cli_sentence(done)
    report.saw(sentence, seconds=elapsed)
    assert done.returncode == EXIT_CANNOT_CONNECT
    assert "No closing quotation" in sentence and "separate words" in sentence, sentence
    assert "searched PATH" not in sentence, sentence  # the PATH is not the problem
    intact(tmp_path / "capture.jsonl")
    no_orphans()


@pytest.mark.report("faults", "a command line with broken quoting", surface="GUI", group="input",
                    advice=ADVICE["quoting"])
def test_a_command_line_with_broken_quoting_is_named_in_the_profile_dialog(dialog, report):
    program, _, arguments = BROKEN_QUOTING.partition(" ")
    sentence, elapsed = type_into(dialog, "stdio", command=program, args=arguments)
    report.saw(sentence, seconds=elapsed)
    assert "No closing quotation" in sentence and "check the quotes" in sentence, sentence


# -- an invalid URL ---------------------------------------------------------------------------------------


@pytest.mark.report("faults", "an invalid URL", surface="CLI", group="input", advice=ADVICE["url"])
def test_an_invalid_url_is_named_on_the_cli(tmp_path, report, no_orphans):
    done, elapsed = run_cli("record", "--url", BAD_URL, "--out", str(tmp_path / "capture.jsonl"))
    sentence = cli_sentence(done)
    report.saw(sentence, seconds=elapsed)
    assert done.returncode == 2
    assert sentence == f"{BAD_URL!r} is not an http://, https:// (or ws://, wss://) URL", sentence
    assert not (tmp_path / "capture.jsonl").exists()  # nothing was started, nothing recorded
    no_orphans()


@pytest.mark.report("faults", "an invalid URL", surface="GUI", group="input", advice=ADVICE["url"])
def test_an_invalid_url_is_named_in_the_profile_dialog(dialog, report):
    sentence, elapsed = type_into(dialog, "http", url=BAD_URL)
    report.saw(sentence, seconds=elapsed)
    assert sentence == "The URL is not an http://, https:// (or ws://, wss://) URL.", sentence


@pytest.mark.report("faults", "an invalid URL for the window (mcp-inspector --url)", surface="CLI", group="input",
                    advice=ADVICE["url"])
def test_an_invalid_url_for_the_window_is_named_before_anything_opens(report, no_orphans):
    done, elapsed = run_cli("--url", BAD_URL, timeout=30)
    sentence = cli_sentence(done)
    report.saw(sentence, seconds=elapsed)
    assert done.returncode == 2
    assert sentence == f"{BAD_URL!r} is not an http://, https:// (or ws://, wss://) URL", sentence
    no_orphans()


@pytest.mark.report("faults", "an invalid URL for the window (mcp-inspector --url)", surface="GUI", group="input",
                    advice=ADVICE["url"])
def test_an_invalid_url_reaching_the_window_fails_its_tab_with_one_sentence(window, qloop, report, no_orphans):
    # what `mcp-inspector --url` and a hand-edited saved profile hand to the window
    sentence, elapsed, _ = connect_profile(window, qloop, ServerProfile(name="typo", kind="http", url=BAD_URL))
    report.saw(sentence, seconds=elapsed)
    assert sentence.startswith(f"{FAILED}: "), sentence
    assert f"{BAD_URL!r} is not an http://, https:// (or ws://, wss://) URL" in sentence, sentence
    no_orphans()


# -- a malformed header -----------------------------------------------------------------------------------


@pytest.mark.report("faults", "a header without a colon", surface="CLI", group="input", advice=ADVICE["no colon"])
def test_a_header_without_a_colon_is_named_on_the_cli(tmp_path, report, no_orphans):
    url = f"http://127.0.0.1:{free_port()}/mcp"
    done, elapsed = run_cli("record", "--url", url, "-H", NO_COLON, "--out", str(tmp_path / "capture.jsonl"))
    sentence = cli_sentence(done)
    report.saw(sentence, seconds=elapsed)
    assert done.returncode == 2
    assert sentence == f"-H {NO_COLON!r} must look like 'Name: value'", sentence
    no_orphans()


@pytest.mark.report("faults", "a header without a colon", surface="GUI", group="input", advice=ADVICE["no colon"])
def test_a_header_without_a_colon_is_named_in_the_profile_dialog(dialog, report):
    sentence, elapsed = type_into(dialog, "http", url="http://127.0.0.1:8000/mcp", headers=NO_COLON)
    report.saw(sentence, seconds=elapsed)
    assert sentence == f"Header line 1: {NO_COLON!r} must look like 'Name: value'.", sentence


@pytest.mark.report("faults", "a header with a line break", surface="CLI", group="input", advice=ADVICE["line break"])
def test_a_header_with_a_line_break_is_refused_on_the_cli(tmp_path, report, no_orphans):
    url = f"http://127.0.0.1:{free_port()}/mcp"
    done, elapsed = run_cli("record", "--url", url, "-H", LINE_BREAK, "--out", str(tmp_path / "capture.jsonl"))
    sentence = cli_sentence(done)
    report.saw(sentence, seconds=elapsed)
    assert done.returncode == 2
    assert sentence.endswith(": a header value cannot contain a line break"), sentence
    no_orphans()


@pytest.mark.report("faults", "a header with a line break", surface="GUI", group="input", advice=ADVICE["line break"])
def test_a_header_with_a_line_break_in_a_saved_profile_is_refused_in_the_status_line(window, qloop, report,
                                                                                     no_orphans):
    # a profile imported from a client config, or edited by hand: the dialog never saw this value
    name, _, value = LINE_BREAK.partition(": ")
    profile = ServerProfile(name="injected", kind="http", url=f"http://127.0.0.1:{free_port()}/mcp",
                            headers={name: value})
    sentence, elapsed, tab = connect_profile(window, qloop, profile)
    report.saw(sentence, seconds=elapsed)
    assert sentence.startswith(f"{FAILED}: "), sentence
    assert sentence.endswith(": a header value cannot contain a line break"), sentence
    assert Target.from_profile(profile).headers == {name: value}
    no_orphans()


# -- malformed capture files ------------------------------------------------------------------------------


def sample_lines() -> list[bytes]:
    return SAMPLE.read_bytes().splitlines(keepends=True)


def truncated(path: Path) -> str:
    lines = sample_lines()
    path.write_bytes(b"".join(lines[:8]) + lines[8][: len(lines[8]) // 2])
    return "the last line (line 9) was cut off, as happens when a recording is interrupted; everything before it " \
           "was loaded"


def wrong_version(path: Path) -> str:
    lines = sample_lines()
    header = json.loads(lines[0])
    header["version"] = 7
    path.write_bytes(json.dumps(header).encode() + b"\n" + b"".join(lines[1:]))
    return f"{path} uses capture format version 7, newer than this mcp-inspector understands (up to 1); upgrade " \
           "mcp-inspector to open it"


def not_json(path: Path) -> str:
    path.write_text("<!DOCTYPE html><html><body>Not a capture</body></html>\n", encoding="utf-8")
    return f"{path} is not an mcp-inspector capture: its first line is not JSON"


def wrong_types(path: Path) -> str:
    lines = sample_lines()
    bad = json.dumps({"seq": "three", "t": 0.1, "kind": ["message"], "dir": "s2c", "raw": "{}"}).encode() + b"\n"
    path.write_bytes(b"".join(lines[:3]) + bad + b"".join(lines[3:]))
    return 'line 4 was skipped: "seq" must be an integer and "kind" a string'


def huge_line(path: Path) -> str:
    """A 100 MB line (an event whose raw text never closes), written in 1 MB pieces, between good lines."""
    lines = sample_lines()
    piece = b"x" * (1024 * 1024)
    with path.open("wb") as out:
        out.writelines(lines[:3])
        out.write(b'{"seq":99,"t":0.5,"wall":0.5,"kind":"message","dir":"s2c","raw":"')
        for _ in range(HUGE_LINE_BYTES // len(piece)):
            out.write(piece)
        out.write(b"\n")
        out.writelines(lines[3:])
    return "line 4 was skipped: not valid JSON"


CAPTURES = {
    "truncated": ("a truncated capture", truncated, "truncated"),
    "version": ("a capture of a newer format version", wrong_version, "version"),
    "not json": ("a capture that is not JSON", not_json, "not json"),
    "types": ("a capture line with wrong types", wrong_types, "types"),
    "huge": ("a capture with a 100 MB line", huge_line, "huge"),
}
#: Cases whose file cannot be opened at all (the others open, with a warning).
FATAL = ("version", "not json")


@pytest.fixture(scope="module")
def capture_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    """Each malformed capture, written once (the 100 MB one is shared by both surfaces), with the sentence
    it must produce."""
    directory = tmp_path_factory.mktemp("captures")
    files = {}
    for key, (_, write, _) in CAPTURES.items():
        path = directory / f"{key.replace(' ', '-')}.jsonl"
        files[key] = (path, write(path))
    return files


def unchanged(path: Path) -> Any:
    stat = path.stat()
    return stat.st_size, stat.st_mtime_ns


def cli_show(path: Path) -> tuple[str, float, int]:
    before = unchanged(path)
    done, elapsed = run_cli("show", str(path))
    assert unchanged(path) == before
    return cli_sentence(done), elapsed, done.returncode


def gui_open(window: Any, boxes: MessageBoxes, path: Path, qtbot: Any) -> tuple[str, float, Any]:
    """File > Open on ``path``: the sentence of the message box, or of the status line's warning once the
    capture has loaded (the window loads it in the background)."""
    before = unchanged(path)
    started = time.monotonic()
    tab = window.open_capture(path)
    if tab is not None:
        qtbot.waitUntil(lambda: not tab.loading, timeout=30_000)
    elapsed = time.monotonic() - started
    assert unchanged(path) == before
    if tab is None:
        assert len(boxes.shown) == 1, boxes.shown
        title, text = boxes.shown[0]
        assert title == "Cannot open capture"
        return text, elapsed, None
    assert boxes.shown == []
    return tab.status.text().split(" · ")[-1], elapsed, tab


def capture_case(key: str, surface: str) -> Any:
    case, _, advice = CAPTURES[key]
    return pytest.mark.report("faults", case, surface=surface, group="capture", advice=ADVICE[advice])


@pytest.mark.parametrize("key", [pytest.param(k, marks=capture_case(k, "CLI"), id=k.replace(" ", "-"))
                                 for k in CAPTURES])
def test_a_malformed_capture_is_named_in_one_sentence_by_show(key, capture_files, report, no_orphans):
    path, expected = capture_files[key]
    sentence, elapsed, code = cli_show(path)
    report.saw(sentence, seconds=elapsed)
    if key in FATAL:
        assert code == 2 and sentence == expected, sentence
    else:
        assert code == 0 and sentence == f"warning: {expected}", sentence
    assert elapsed < 30, elapsed
    no_orphans()


@pytest.mark.parametrize("key", [pytest.param(k, marks=capture_case(k, "GUI"), id=k.replace(" ", "-"))
                                 for k in CAPTURES])
def test_a_malformed_capture_is_named_in_one_sentence_by_the_window(key, capture_files, window, message_boxes,
                                                                    report, qtbot):
    path, expected = capture_files[key]
    sentence, elapsed, tab = gui_open(window, message_boxes, path, qtbot)
    report.saw(sentence, seconds=elapsed)
    assert sentence == expected, sentence
    if key in FATAL:
        assert tab is None and window.tabs.count() == 0
    else:
        assert tab is not None and tab.read_only and tab.events  # what could be read is shown
    assert elapsed < 30, elapsed
