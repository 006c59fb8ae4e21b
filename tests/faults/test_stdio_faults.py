"""The stdio fault matrix: each way a stdio server can fail, against real processes, on both surfaces.

For every case and surface (the CLI's ``mcp-inspector record`` run as a user runs it; the window, offscreen,
on a qasync loop) the contract is the same:

* the case ends with ONE specific sentence the user can act on: the CLI's ``mcp-inspector: ...`` line on
  stderr, or the window's status line or the timeline's note; it is the report row's "sees";
* every wait is bounded and nothing hangs; there is no traceback;
* no process of the server's group is left running afterwards;
* the capture loads cleanly and holds what the server wrote.

Every case uses the legacy handshake and a 3 s request timeout (``--timeout 3``; ``Target.timeout``) so
the matrix stays quick; a user's default is 30 s. Servers are in ``servers/stdio_*.py``, or reused from
``tests/integration/servers``.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import pytest
from stdio_fault_support import (  # noqa: F401 - qloop and window are fixtures
    TIMEOUT,
    assert_handshake_recorded,
    assert_never_spawned,
    assert_nothing_left_running,
    fault_server,
    from_server,
    gui_case,
    integration_server,
    is_gone,
    last_note,
    lifecycle,
    notes,
    qloop,
    record_case,
    record_case_measured,
    status_sentence,
    stdin_backlog_message,
    window,
)

from inspector.core.exits import EXIT_CANNOT_CONNECT, EXIT_TIMEOUT
from inspector.core.present.describe import summary
from inspector.core.wire.events import Direction, Kind
from inspector.ui.panels.composer import HIGHLIGHT_LIMIT
from inspector.ui.session.live import FAILED, Target

pytestmark = [pytest.mark.integration]

TOOLS_LIST = [{"method": "tools/list"}]
COMPOSE_TOOLS_LIST = '{"jsonrpc":"2.0","method":"tools/list"}'
MISSING = "mcp-inspector-no-such-server-xyz"


def failed_status(tab) -> str | None:
    """The status line once the session failed (None before)."""
    return status_sentence(tab) if tab.live.state == FAILED else None


def compose(text: str):
    """An ``after_ready`` step: type ``text`` into the composer and send it (Ctrl+Enter)."""

    def step(tab) -> None:
        tab.composer.set_text(text)
        assert tab.composer.send(), "the composer refused to send"

    return step


#: How the window's "no response" sentences end: the setting that raises the timeout.
WINDOW_HINT = "; to wait longer, raise Session > Request timeout…"


def target(name: str, argv: list[str], timeout: float = TIMEOUT) -> Target:
    return Target(name=name, argv=argv, handshake="legacy", timeout=timeout)


# -- command not found --------------------------------------------------------------------------------------

NOT_FOUND = dict(group="stdio", advice="Check the command's spelling, or give its full path: the inspector runs "
                                       "it without a shell, so shell aliases, functions and a PATH set only in "
                                       "your shell's startup file do not apply.")


@pytest.mark.report("faults", "command not found", surface="CLI", **NOT_FOUND)
def test_a_command_that_does_not_exist_is_named_with_the_path_searched_on_the_cli(tmp_path, report):
    """Nothing is spawned; the sentence names the command and the PATH that was searched."""
    case = record_case(tmp_path, [MISSING, "--stdio"])
    assert case.run.returncode == EXIT_CANNOT_CONNECT, case.run.explain()
    sentence = case.sentence
    assert sentence.startswith(f"mcp-inspector: command not found: {MISSING} (searched PATH: "), sentence
    assert_never_spawned(case.capture, sentence)
    report.saw(sentence, seconds=case.seconds)


@pytest.mark.report("faults", "command not found", surface="GUI", **NOT_FOUND)
def test_a_command_that_does_not_exist_is_named_with_the_path_searched_in_the_status_line(window, qloop, report):
    """The status line says failed, names the command and the PATH, and what to check (no profile named: the
    session did not come from one)."""
    case = gui_case(window, qloop, target("nope", [MISSING]), failed_status, "the failure")
    assert case.sentence.startswith(f"failed: command not found: {MISSING} (searched PATH: "), case.sentence
    assert case.sentence.endswith("— check the command's spelling, or give its full path."), case.sentence
    assert_never_spawned(case.capture, case.sentence)
    report.saw(case.sentence, seconds=case.seconds)


# -- not executable -----------------------------------------------------------------------------------------

NOT_EXECUTABLE = dict(group="stdio", advice="Make the file executable (chmod +x FILE), or run it through its "
                                            "interpreter (python FILE, node FILE).")


def script_without_x(tmp_path: Path) -> Path:
    script = tmp_path / "server.sh"
    script.write_text("#!/bin/sh\nexec cat\n")
    script.chmod(0o644)
    return script


@pytest.mark.report("faults", "not executable", surface="CLI", **NOT_EXECUTABLE)
def test_a_file_without_execute_permission_gets_a_sentence_suggesting_chmod_on_the_cli(tmp_path, report):
    """``./server.sh`` in the working directory given with --cwd, mode 644: the sentence suggests chmod."""
    script_without_x(tmp_path)
    case = record_case(tmp_path, ["./server.sh"], "--cwd", str(tmp_path))
    assert case.run.returncode == EXIT_CANNOT_CONNECT, case.run.explain()
    assert case.sentence == "mcp-inspector: ./server.sh is not executable (chmod +x ./server.sh?)"
    assert_never_spawned(case.capture, case.sentence)
    report.saw(case.sentence, seconds=case.seconds)


@pytest.mark.report("faults", "not executable", surface="GUI", **NOT_EXECUTABLE)
def test_a_file_without_execute_permission_gets_a_sentence_suggesting_chmod_in_the_status_line(
        window, qloop, tmp_path, report):
    script_without_x(tmp_path)
    noexec = Target(name="noexec", argv=["./server.sh"], cwd=str(tmp_path), handshake="legacy", timeout=TIMEOUT)
    case = gui_case(window, qloop, noexec, failed_status, "the failure")
    assert case.sentence == "failed: ./server.sh is not executable (chmod +x ./server.sh?)"
    assert_never_spawned(case.capture, case.sentence)
    report.saw(case.sentence, seconds=case.seconds)


# -- exits at once with a code and stderr -------------------------------------------------------------------

EXITS = dict(group="stdio", advice="Read the quoted stderr lines: the server failed while starting (a missing "
                                   "file, setting or environment variable). Run the same command in a terminal "
                                   "to reproduce it.")
EXIT3_STDERR = "fatal: cannot open database /nonexistent/db.sqlite"


def check_exit3_capture(capture) -> None:
    assert [(e.raw, e.eol) for e in from_server(capture, Kind.STDERR)] == [(EXIT3_STDERR.encode(), b"\n")]
    assert lifecycle(capture, "exited")[0].data["code"] == 3
    assert_nothing_left_running(capture)


@pytest.mark.report("faults", "exits at once with a code and stderr", surface="CLI", **EXITS)
def test_a_server_that_exits_at_once_is_named_with_its_code_and_its_stderr_on_the_cli(tmp_path, report):
    """The server writes one stderr line and exits 3 without reading anything: the sentence has both."""
    case = record_case(tmp_path, integration_server("exit3", "--immediately"))
    assert case.run.returncode == 1, case.run.explain()
    sentence = case.sentence
    assert sentence.startswith("mcp-inspector: the server exited with code 3 before answering initialize; "
                               "its last stderr lines:"), sentence
    assert EXIT3_STDERR in sentence
    check_exit3_capture(case.capture)
    report.saw(sentence, seconds=case.seconds)


@pytest.mark.report("faults", "exits at once with a code and stderr", surface="GUI", **EXITS)
def test_a_server_that_exits_at_once_is_named_with_its_code_and_its_stderr_in_the_status_line(
        window, qloop, report):
    case = gui_case(window, qloop, target("exit3", integration_server("exit3", "--immediately")),
                    failed_status, "the failure")
    assert case.sentence.startswith("failed: the server exited with code 3 before answering initialize; "
                                    "its last stderr lines:"), case.sentence
    assert EXIT3_STDERR in case.sentence and EXIT3_STDERR in case.tab.stderr.text()
    check_exit3_capture(case.capture)
    report.saw(case.sentence, seconds=case.seconds)


# -- never answers ------------------------------------------------------------------------------------------

#: How every "no response" sentence ends: what raises the bound.
HINT = "; raise --timeout to wait longer"
NEVER = dict(group="stdio", advice="The server runs but says nothing on stdout: check that it is started in "
                                   "stdio mode (not HTTP or SSE), that it is not waiting for a prompt or a login, "
                                   "and read its stderr.")


def check_silent_capture(capture, hint: str = HINT) -> None:
    assert [e.method for e in capture.events if e.kind == Kind.MESSAGE] == ["initialize"]
    said = f"no response to initialize within {TIMEOUT} s{hint}"
    assert notes(capture)[-1] == said and notes(capture).count(said) == 1
    assert lifecycle(capture, "stdin_closed") and lifecycle(capture, "exited")[0].data == {
        "what": "exited", "pid": lifecycle(capture, "spawned")[0].data["pid"], "code": 0}
    assert_nothing_left_running(capture)


@pytest.mark.report("faults", "never answers", surface="CLI", **NEVER)
def test_a_server_that_never_answers_fails_after_the_timeout_naming_initialize_on_the_cli(tmp_path, report):
    case = record_case(tmp_path, integration_server("silent"))
    assert case.run.returncode == EXIT_TIMEOUT, case.run.explain()
    assert case.sentence == f"mcp-inspector: no response to initialize within {TIMEOUT} s{HINT}"
    check_silent_capture(case.capture)
    report.saw(case.sentence, seconds=case.seconds)


@pytest.mark.report("faults", "never answers", surface="GUI", **NEVER)
def test_a_server_that_never_answers_fails_after_the_timeout_naming_initialize_in_the_status_line(
        window, qloop, report):
    case = gui_case(window, qloop, target("silent", integration_server("silent")), failed_status, "the timeout")
    assert case.sentence == f"failed: no response to initialize within {TIMEOUT} s{WINDOW_HINT}"
    check_silent_capture(case.capture, WINDOW_HINT)
    report.saw(case.sentence, seconds=case.seconds)


# -- stops reading its stdin ---------------------------------------------------------------------------------

STOPS_READING = dict(group="stdio", advice="The server stopped reading its input, usually because it is stuck "
                                           "in slow synchronous work or blocked writing its own output: keep its "
                                           "reading loop independent of tool work (a thread or an async task), "
                                           "and read its stderr.")


def check_stops_reading_capture(capture) -> None:
    assert_handshake_recorded(capture)
    sent = [e for e in capture.events if e.method == "tools/call" and e.dir == Direction.C2S]
    assert len(sent) == 1 and len(sent[0].raw) > 256 * 1024, "the request we wrote is recorded whole"
    assert not from_server(capture, Kind.FRAMING_ERROR)
    assert_nothing_left_running(capture)


@pytest.mark.report("faults", "stops reading its stdin", surface="CLI", **STOPS_READING)
def test_a_server_that_stops_reading_its_stdin_is_named_as_such_on_the_cli(tmp_path, report):
    """After the handshake the server never reads again; we send a 1 MiB request, more than the pipe holds."""
    case = record_case(tmp_path, fault_server("stops_reading"), send=[stdin_backlog_message(1024)])
    assert case.run.returncode == EXIT_TIMEOUT, case.run.explain()
    sentence = case.sentence
    assert sentence.startswith(f"mcp-inspector: no response to tools/call within {TIMEOUT} s: "
                               "the server stopped reading its stdin"), sentence
    check_stops_reading_capture(case.capture)
    report.saw(sentence, seconds=case.seconds)


@pytest.mark.report("faults", "stops reading its stdin", surface="GUI", **STOPS_READING)
def test_a_server_that_stops_reading_its_stdin_is_named_as_such_in_the_timeline(window, qloop, report):
    """The same, with a 512 KiB request typed into the composer (over its highlighting limit: switching the
    highlighter off must not re-enter the composer's change handler); the timeline's note says it."""
    big = json.dumps(stdin_backlog_message(512))
    assert len(big) > HIGHLIGHT_LIMIT
    case = gui_case(window, qloop, target("stops-reading", fault_server("stops_reading")),
                    lambda tab: last_note(tab, "no response to tools/call"), "the timeout note",
                    after_ready=compose(big))
    assert case.sentence.startswith(f"no response to tools/call within {TIMEOUT} s: "
                                    "the server stopped reading its stdin"), case.sentence
    check_stops_reading_capture(case.capture)
    report.saw(case.sentence, seconds=case.seconds)


# -- floods stderr without newlines ----------------------------------------------------------------------------

FLOOD = dict(group="stdio", advice="The end of the server's stderr is quoted (all of it is in the capture): it "
                                   "says why the server stopped. Write log lines that end in a newline, so that "
                                   "clients can show them line by line.")
FLOOD_MIB = 8
FLOOD_HEAD, FLOOD_TAIL = b"downloading weights ", b" error: disk full"
#: The server floods before it reads initialize: the timeout must not end the case before the exit is seen
#: (the offscreen window drains such a flood at only 1-3 MB/s on this machine: the timeline repaints).
FLOOD_TIMEOUT = 20


def check_flood_capture(capture) -> None:
    """Every byte of the flood without a newline is in the capture, in pieces, in order."""
    pieces = from_server(capture, Kind.STDERR)
    assert all(e.eol == b"" for e in pieces), "there was no newline to keep"
    got = hashlib.sha256()
    for e in pieces:
        got.update(e.raw)
    expected = hashlib.sha256(FLOOD_HEAD)
    for _ in range(FLOOD_MIB):
        expected.update(b"." * (1 << 20))
    expected.update(FLOOD_TAIL)
    assert sum(len(e.raw) for e in pieces) == len(FLOOD_HEAD) + (FLOOD_MIB << 20) + len(FLOOD_TAIL)
    assert got.hexdigest() == expected.hexdigest()
    assert lifecycle(capture, "exited")[0].data["code"] == 1
    assert_nothing_left_running(capture)


def check_flood_sentence(sentence: str) -> None:
    assert "the server exited with code 1 before answering initialize; its last stderr lines:" in sentence
    assert FLOOD_TAIL.decode().strip() in sentence, sentence[-300:]
    assert len(sentence) < 600, f"the sentence quotes {len(sentence):,} characters of stderr"


@pytest.mark.report("faults", "floods stderr without newlines", surface="CLI", **FLOOD)
def test_a_server_that_floods_stderr_without_newlines_then_exits_gets_a_short_sentence_on_the_cli(
        tmp_path, report):
    """8 MiB of progress dots and no newline, then exit 1: no deadlock, every byte kept, a short quote."""
    case = record_case(tmp_path, fault_server("stderr_no_newlines", "--mib", str(FLOOD_MIB)),
                       timeout=FLOOD_TIMEOUT)
    assert case.run.returncode == 1, case.run.explain()[:3000]
    check_flood_sentence(case.sentence)
    check_flood_capture(case.capture)
    report.saw(case.sentence, seconds=case.seconds)


@pytest.mark.report("faults", "floods stderr without newlines", surface="GUI", **FLOOD)
def test_a_server_that_floods_stderr_without_newlines_then_exits_gets_a_short_status_line(
        window, qloop, report):
    case = gui_case(window, qloop, target("flood", fault_server("stderr_no_newlines", "--mib", str(FLOOD_MIB)),
                                          timeout=FLOOD_TIMEOUT), failed_status, "the failure")
    check_flood_sentence(case.sentence)
    check_flood_capture(case.capture)
    report.saw(case.sentence, seconds=case.seconds)


# -- a 200 MB line on stdout ---------------------------------------------------------------------------------

HUGE = dict(group="stdio", advice="Return less per message: paginate, truncate, or return a resource link "
                                  "instead of inline data. Clients cap the size of a message (the TypeScript "
                                  "SDK at 10 MiB); the inspector keeps the first and last 64 KiB of a line over "
                                  "its own limit (64 MiB; --max-message or Session > Message size limit raise it).")
HUGE_MIB = 200
#: A run that held the line would need at least 200 MiB more than it does.
MEMORY_BOUND_MIB = 150
TIME_BOUND = 20.0
#: The request timeout of the huge-line cases: longer than the line takes to come, shorter than TIME_BOUND.
HUGE_TIMEOUT = 15.0


def tools_lists_sent(capture) -> list[int]:
    """The ids of the tools/list requests the inspector sent (the window's explorer lists tools on connect too,
    so a fault server that answers every tools/list answers it more than once)."""
    return [e.rpc.id for e in capture.events
            if e.kind == Kind.MESSAGE and e.dir == Direction.C2S and e.method == "tools/list"]


def check_huge_capture(capture) -> None:
    assert_handshake_recorded(capture)
    lines = from_server(capture, Kind.FRAMING_ERROR)
    ids = tools_lists_sent(capture)
    assert len(lines) == len(ids) >= 1, "one oversize line per tools/list"
    for line, msg_id in zip(lines, ids, strict=True):
        oversize = line.data["oversize"]
        assert oversize["total_bytes"] == HUGE_MIB * (1 << 20) - 1  # the newline is not part of the line
        assert line.raw.startswith(b'{"jsonrpc":"2.0","id":%d,"result":{"tools":[]' % msg_id)
        assert len(line.raw) == 64 * 1024
        assert bytes(oversize["tail"]).endswith(b'xxx"}}}') and len(oversize["tail"]) == 64 * 1024
        assert line.eol == b"\n"
    assert_nothing_left_running(capture)


@pytest.mark.report("faults", "writes a 200 MB line on stdout", surface="CLI", **HUGE)
def test_a_200_mb_answer_on_one_line_is_named_at_once_in_bounded_memory_on_the_cli(tmp_path, report):
    """The answer to tools/list is one valid 200 MiB line: the inspector keeps its head and tail, stays
    under 150 MiB, and fails the request at once, saying why, instead of waiting for the timeout."""
    case, peak = record_case_measured(tmp_path, fault_server("huge_line", "--mib", str(HUGE_MIB)),
                                      "--timeout", f"{HUGE_TIMEOUT:g}", send=TOOLS_LIST)  # the last --timeout wins
    assert case.run.returncode == 1, case.run.explain()
    sentence = case.sentence
    assert sentence == ("mcp-inspector: the server's answer to tools/list could not be read: a line of "
                        f"{HUGE_MIB * (1 << 20) - 1:,} bytes is over the size limit (64 MiB per message); only "
                        "its first and last 64 KiB are kept; to read it whole, raise the limit with --max-message "
                        "(for example --max-message 256M)"), sentence
    assert case.seconds < TIME_BOUND
    assert peak < MEMORY_BOUND_MIB, f"the inspector or its server reached {peak:.0f} MiB"
    check_huge_capture(case.capture)
    report.figure("peak RSS, inspector and server (MiB)", round(peak))
    report.saw(sentence, seconds=case.seconds)


@pytest.mark.report("faults", "writes a 200 MB line on stdout", surface="GUI", **HUGE)
def test_a_200_mb_answer_on_one_line_is_named_at_once_in_bounded_memory_in_the_timeline(window, qloop, report):
    # the request may wait longer than the matrix's 3 s (on a loaded machine the 200 MB took longer than that to
    # arrive): the sentence must come when the line ends, not when the request times out
    case = gui_case(window, qloop, target("huge", fault_server("huge_line", "--mib", str(HUGE_MIB)),
                                          timeout=HUGE_TIMEOUT),
                    lambda tab: last_note(tab, "tools/list"), "the note on tools/list",
                    after_ready=compose(COMPOSE_TOOLS_LIST))
    grown = case.peak_growth_mib
    assert case.sentence == ("the server's answer to tools/list could not be read: a line of "
                             f"{HUGE_MIB * (1 << 20) - 1:,} bytes is over the size limit (64 MiB per message); "
                             "only its first and last 64 KiB are kept; Session > Message size limit… raises the "
                             "limit for the next session"), case.sentence
    assert case.seconds < TIME_BOUND
    assert grown < MEMORY_BOUND_MIB, f"the window's peak memory grew by {grown:.0f} MiB"
    check_huge_capture(case.capture)
    report.figure("growth of the window's RSS (MiB)", round(max(grown, 0)))
    report.saw(case.sentence, seconds=case.seconds)


# -- writes binary on stdout -----------------------------------------------------------------------------------

BINARY = dict(group="stdio", advice="Something in the server writes raw bytes to stdout: send binary data "
                                    "base64-encoded inside a JSON-RPC message (an image content item), and write "
                                    "logs to stderr.")
#: The binary server's bytes, restated as the test's own oracle (servers/stdio_binary.py).
PNG = b"\x89PNG\r\n\x1a\n" + random.Random(6).randbytes(4096) + b"\n"


def check_binary_capture(capture) -> None:
    assert_handshake_recorded(capture)
    junk = from_server(capture, Kind.FRAMING_ERROR)
    answers = len(tools_lists_sent(capture))  # one PNG per tools/list (the window's explorer lists on connect)
    assert answers >= 1 and b"".join(e.raw + e.eol for e in junk) == PNG * answers, "the bytes are kept exactly"
    assert junk[0].raw == b"\x89PNG" and junk[0].eol == b"\r\n"
    assert_nothing_left_running(capture)


def check_binary_sentence(sentence: str, prefix: str, hint: str = HINT) -> None:
    assert sentence.startswith(f"{prefix}no response to tools/list within {TIMEOUT} s; meanwhile "), sentence
    assert sentence.endswith(" framing errors came from the server, the first: not valid UTF-8: byte 89 at "
                             f"offset 0 cannot be decoded (MCP messages must be UTF-8){hint}"), sentence


@pytest.mark.report("faults", "writes binary on stdout", surface="CLI", **BINARY)
def test_binary_bytes_instead_of_an_answer_are_named_with_the_timeout_on_the_cli(tmp_path, report):
    """The server answers tools/list with a PNG's raw bytes: the sentence says what came instead."""
    case = record_case(tmp_path, fault_server("binary"), send=TOOLS_LIST)
    assert case.run.returncode == EXIT_TIMEOUT, case.run.explain()
    check_binary_sentence(case.sentence, "mcp-inspector: ")
    check_binary_capture(case.capture)
    report.saw(case.sentence, seconds=case.seconds)


@pytest.mark.report("faults", "writes binary on stdout", surface="GUI", **BINARY)
def test_binary_bytes_instead_of_an_answer_are_named_with_the_timeout_in_the_timeline(window, qloop, report):
    case = gui_case(window, qloop, target("binary", fault_server("binary")),
                    lambda tab: last_note(tab, "no response to tools/list"), "the timeout note",
                    after_ready=compose(COMPOSE_TOOLS_LIST))
    check_binary_sentence(case.sentence, "", WINDOW_HINT)
    assert any(e.kind == Kind.FRAMING_ERROR for e in case.tab.timeline.visible_events()), "red rows in the timeline"
    check_binary_capture(case.capture)
    report.saw(case.sentence, seconds=case.seconds)


# -- dies mid-response ---------------------------------------------------------------------------------------

DIES = dict(group="stdio", advice="The server died while writing its answer. SIGKILL usually means the "
                                  "out-of-memory killer or a supervisor: check the system log (dmesg, journalctl) "
                                  "and the server's memory use for this request.")
DIES_SENTENCE = "the server was killed by SIGKILL before answering tools/list and wrote nothing to stderr"


def check_dies_capture(capture) -> None:
    assert_handshake_recorded(capture)
    [cut] = from_server(capture, Kind.FRAMING_ERROR)
    assert len(cut.raw) == 100_000 and cut.eol == b"" and cut.raw.startswith(b'{"jsonrpc": "2.0", "id": 2')
    assert "ended in the middle of a line" in cut.reason
    assert lifecycle(capture, "exited")[0].data["signal"] == "SIGKILL"
    assert_nothing_left_running(capture)


@pytest.mark.report("faults", "dies mid-response", surface="CLI", **DIES)
def test_a_server_killed_in_the_middle_of_its_answer_is_named_with_the_signal_on_the_cli(tmp_path, report):
    """100,000 bytes of a 1 MiB answer, then SIGKILL: the half line is kept, the sentence names the signal."""
    case = record_case(tmp_path, fault_server("dies_mid_response"), send=TOOLS_LIST)
    assert case.run.returncode == 1, case.run.explain()
    assert case.sentence == f"mcp-inspector: {DIES_SENTENCE}"
    check_dies_capture(case.capture)
    report.saw(case.sentence, seconds=case.seconds)


@pytest.mark.report("faults", "dies mid-response", surface="GUI", **DIES)
def test_a_server_killed_in_the_middle_of_its_answer_is_named_with_the_signal_in_the_timeline(
        window, qloop, report):
    case = gui_case(window, qloop, target("dies", fault_server("dies_mid_response")),
                    lambda tab: last_note(tab, "before answering tools/list"), "the note on tools/list",
                    after_ready=compose(COMPOSE_TOOLS_LIST))
    assert case.sentence == DIES_SENTENCE
    check_dies_capture(case.capture)
    report.saw(case.sentence, seconds=case.seconds)


# -- leaves grandchildren holding the pipes --------------------------------------------------------------------

GRANDCHILD = dict(group="stdio", advice="Fix the startup error quoted from stderr. The server also left a "
                                        "child process holding its pipes (the inspector ended its whole process "
                                        "group): make the server's helpers exit when it does.")
GRANDCHILD_STDERR = "fatal: worker pool failed to start (port 7777 in use)"


def check_grandchild_capture(capture, pid_file: Path) -> None:
    helper = int(pid_file.read_text())
    assert is_gone(helper), f"the helper {helper} still runs"
    assert [(e.data["pids"], e.data["signal"]) for e in lifecycle(capture, "group_leftovers")] == [
        ([helper], "SIGTERM"), ([helper], "SIGKILL")]
    assert lifecycle(capture, "exited")[0].data["code"] == 2
    assert [e.raw for e in from_server(capture, Kind.STDERR)] == [GRANDCHILD_STDERR.encode()]
    assert_nothing_left_running(capture)


@pytest.mark.report("faults", "leaves grandchildren holding the pipes", surface="CLI", **GRANDCHILD)
def test_a_server_that_dies_leaving_a_helper_on_its_pipes_is_named_at_once_and_the_helper_killed_on_the_cli(
        tmp_path, report):
    """The server starts a helper that ignores SIGTERM and inherits stdout and stderr, then exits 2: its exit
    is reported although stdout never reaches end-of-file, and the helper is killed with the group."""
    pid_file = tmp_path / "helper.pid"
    case = record_case(tmp_path, fault_server("grandchild_crash", str(pid_file)))
    assert case.run.returncode == 1, case.run.explain()
    sentence = case.sentence
    assert sentence.startswith("mcp-inspector: the server exited with code 2 before answering initialize; its "
                               f"last stderr lines:\n  {GRANDCHILD_STDERR}"), sentence
    check_grandchild_capture(case.capture, pid_file)
    helper = int(pid_file.read_text())
    assert case.run.stdout.rstrip().endswith(
        f"server exited with code 2; it left 1 process running in its process group (pid {helper}), ended by "
        "mcp-inspector"), case.run.explain()
    report.saw(sentence, seconds=case.seconds)


@pytest.mark.report("faults", "leaves grandchildren holding the pipes", surface="GUI", **GRANDCHILD)
def test_a_server_that_dies_leaving_a_helper_on_its_pipes_is_named_at_once_and_the_helper_killed_in_the_window(
        window, qloop, tmp_path, report):
    pid_file = tmp_path / "helper.pid"
    case = gui_case(window, qloop, target("grandchild", fault_server("grandchild_crash", str(pid_file))),
                    failed_status, "the failure")
    assert case.sentence.startswith("failed: the server exited with code 2 before answering initialize; its "
                                    f"last stderr lines:\n  {GRANDCHILD_STDERR}"), case.sentence
    check_grandchild_capture(case.capture, pid_file)
    helper = int(pid_file.read_text())
    rows = [summary(e) for e in case.tab.timeline.visible_events() if e.kind == Kind.LIFECYCLE]
    assert f"processes left in the group after exit: [{helper}]; sent SIGKILL" in rows, rows
    report.saw(case.sentence, seconds=case.seconds)


# -- frozen with SIGSTOP -------------------------------------------------------------------------------------

FROZEN = dict(group="stdio", advice="The server's process is stopped: resume it (kill -CONT PID, or fg in the "
                                    "shell that suspended it), or detach the debugger that paused it.")
FROZEN_SENTENCE = (f"no response to tools/list within {TIMEOUT} s: the server's process is stopped (SIGSTOP, "
                   f"Ctrl-Z or a debugger) and cannot answer until it gets SIGCONT")


def check_frozen_capture(capture) -> None:
    assert_handshake_recorded(capture)
    assert len([e for e in capture.events if e.kind == Kind.MESSAGE and e.dir == Direction.S2C]) == 1
    # SIGCONT follows SIGTERM, so the stopped server ends by SIGTERM, without waiting 2 s more for SIGKILL
    assert lifecycle(capture, "exited")[0].data["signal"] == "SIGTERM", lifecycle(capture, "exited")
    assert_nothing_left_running(capture)


@pytest.mark.report("faults", "is frozen with SIGSTOP", surface="CLI", **FROZEN)
def test_a_server_frozen_with_sigstop_is_named_as_stopped_on_the_cli(tmp_path, report):
    """The server stops itself when tools/list arrives: the timeout says the process is stopped."""
    case = record_case(tmp_path, fault_server("freezes"), send=TOOLS_LIST)
    assert case.run.returncode == EXIT_TIMEOUT, case.run.explain()
    assert case.sentence == f"mcp-inspector: {FROZEN_SENTENCE}{HINT}"
    check_frozen_capture(case.capture)
    report.saw(case.sentence, seconds=case.seconds)


@pytest.mark.report("faults", "is frozen with SIGSTOP", surface="GUI", **FROZEN)
def test_a_server_frozen_with_sigstop_is_named_as_stopped_in_the_timeline(window, qloop, report):
    case = gui_case(window, qloop, target("frozen", fault_server("freezes")),
                    lambda tab: last_note(tab, "no response to tools/list"), "the timeout note",
                    after_ready=compose(COMPOSE_TOOLS_LIST))
    assert case.sentence == FROZEN_SENTENCE + WINDOW_HINT
    check_frozen_capture(case.capture)
    report.saw(case.sentence, seconds=case.seconds)
