"""``mcp-inspector record`` against servers that break the stdio rules, each in one way (``servers/``).

For each: the exit status, the one sentence on stderr that names the cause, what the capture shows (framing
errors with their exact raw bytes and reason, findings), and that no process of the server is left running.
"""

from __future__ import annotations

import base64
import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from integration_support import (
    Recorded,
    errors_on_stderr,
    exchange,
    finish_inspector,
    is_gone,
    kill_spawned_groups,
    lifecycle,
    live_group_members,
    load_capture,
    messages,
    run_inspector,
    spawned_pid,
    start_inspector,
)

from inspector.core.capture.columns import is_problem
from inspector.core.exits import EXIT_CANNOT_CONNECT, EXIT_PROTOCOL, EXIT_TIMEOUT
from inspector.core.wire.events import Kind
from inspector.core.wire.framing import CUT_BY_STOP

pytestmark = [pytest.mark.integration]

LEGACY = ("--handshake", "legacy")
#: Where servers/still_writing_server.py cuts each line in two, restated as the test's own oracle.
STILL_WRITING_HALF = 40
TOOLS_LIST = [{"method": "tools/list"}]
#: The flood server's stderr, restated here as the test's own oracle: 16384 lines of 64 bytes.
FLOOD = "".join(
    (head := f"flood line {i:05d} ") + "x" * (63 - len(head)) + "\n" for i in range(16384)
).encode("ascii")


def one_error(run: Recorded) -> str:
    """The CLI's error: exactly one ``mcp-inspector: ...`` message on stderr, and no traceback."""
    errors = errors_on_stderr(run.stderr)
    assert len(errors) == 1, run.explain()
    assert "Traceback" not in run.stderr, run.explain()
    return run.stderr


def assert_nothing_left_running(run: Recorded) -> None:
    capture = load_capture(run.out)
    pid = spawned_pid(capture)
    assert is_gone(pid), f"server pid {pid} still runs after record exited"
    assert live_group_members(pid) == [], f"process group {pid} still has members"


def raw_fields(run: Recorded, seq: int) -> dict[str, object]:
    """The capture line of event ``seq``, as JSON (to check how raw bytes were stored)."""
    for line in run.out.read_text(encoding="utf-8").split("\n")[1:-1]:
        obj = json.loads(line)
        if obj["seq"] == seq:
            return obj
    raise AssertionError(f"no event {seq} in {run.out}")


# -- garbage on stdout, but the handshake still succeeds ----------------------------------------------------


def test_a_banner_before_the_first_message_is_a_framing_error_with_its_exact_bytes_and_the_session_succeeds(
        record: Callable[..., Recorded], misbehaving: Callable[..., list[str]]) -> None:
    run = record(misbehaving("junk", "--banner"), *LEGACY, "--timeout", "10", send=TOOLS_LIST)
    assert run.returncode == EXIT_PROTOCOL, run.explain()
    assert run.stderr.startswith("mcp-inspector: the server broke the protocol: 1 of its lines is not a valid "
                                 "JSON-RPC message"), run.explain()
    assert "1 framing error," in run.stdout, run.explain()
    capture = load_capture(run.out)
    from_server = [e for e in capture.events if e.dir == "s2c" and e.kind != Kind.STDERR]
    banner = from_server[0]
    assert banner.kind == Kind.FRAMING_ERROR
    assert banner.raw == b"Welcome to BannerServer v1.0 (stdio mode)"
    assert banner.eol == b"\n"
    assert "plain text, not JSON" in (banner.reason or "")
    assert raw_fields(run, banner.seq)["raw"] == "Welcome to BannerServer v1.0 (stdio mode)"
    assert "eol" not in raw_fields(run, banner.seq), "a plain newline is the default and not written"
    _, response = exchange(capture, "initialize")
    assert response.seq > banner.seq
    exchange(capture, "tools/list")
    assert [e.kind for e in capture.events].count(Kind.FRAMING_ERROR) == 1
    assert_nothing_left_running(run)


def test_a_line_of_non_utf8_bytes_is_a_framing_error_kept_byte_exact_in_base64_and_the_session_succeeds(
        record: Callable[..., Recorded], misbehaving: Callable[..., list[str]],
        show: Callable[..., object]) -> None:
    run = record(misbehaving("junk", "--non-utf8"), *LEGACY, "--timeout", "10", send=TOOLS_LIST)
    assert run.returncode == EXIT_PROTOCOL, run.explain()
    assert "1 framing error," in run.stdout, run.explain()
    capture = load_capture(run.out)
    errors = [e for e in capture.events if e.kind == Kind.FRAMING_ERROR]
    assert len(errors) == 1, capture.events
    bad = errors[0]
    assert bad.dir == "s2c"
    assert bad.raw == b"caf\xe9 \xff status: ready"
    assert bad.eol == b"\n"
    assert "not valid UTF-8" in bad.reason and "E9" in bad.reason and "offset 3" in bad.reason, bad.reason
    stored = raw_fields(run, bad.seq)
    assert "raw" not in stored and base64.b64decode(stored["raw_b64"]) == b"caf\xe9 \xff status: ready"
    exchange(capture, "initialize")
    exchange(capture, "tools/list")
    shown = show(run.out)
    assert shown.returncode == 0
    framing_lines = [line for line in shown.stdout.splitlines() if "FRAMING" in line]
    assert len(framing_lines) == 1 and "caf\\xe9 \\xff" in framing_lines[0], shown.stdout


def test_both_a_banner_and_a_non_utf8_line_before_the_handshake_are_two_framing_errors_in_order(
        record: Callable[..., Recorded], misbehaving: Callable[..., list[str]]) -> None:
    run = record(misbehaving("junk", "--banner", "--non-utf8"), *LEGACY, "--timeout", "10", send=TOOLS_LIST)
    assert run.returncode == EXIT_PROTOCOL, run.explain()
    assert "2 framing errors," in run.stdout, run.explain()
    capture = load_capture(run.out)
    errors = [e for e in capture.events if e.kind == Kind.FRAMING_ERROR]
    assert [(e.raw, e.eol) for e in errors] == [
        (b"Welcome to BannerServer v1.0 (stdio mode)", b"\n"),
        (b"caf\xe9 \xff status: ready", b"\n"),
    ]
    _, response = exchange(capture, "initialize")
    assert response.seq > errors[1].seq


# -- a server that ends badly -------------------------------------------------------------------------------


def test_an_unterminated_last_line_before_exit_is_a_framing_error_and_the_request_counts_as_unanswered(
        record: Callable[..., Recorded], misbehaving: Callable[..., list[str]]) -> None:
    run = record(misbehaving("unterminated"), *LEGACY, "--timeout", "10", send=TOOLS_LIST)
    assert run.returncode == 1, run.explain()
    error = one_error(run)
    assert "exited with code 0 before answering tools/list" in error, error
    capture = load_capture(run.out)
    exchange(capture, "initialize")
    request = messages(capture, "c2s", "tools/list")[0]
    expected = json.dumps({"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}, separators=(",", ":")).encode()
    errors = [e for e in capture.events if e.kind == Kind.FRAMING_ERROR]
    assert len(errors) == 1, capture.events
    cut = errors[0]
    assert cut.raw == expected
    assert cut.eol == b""
    assert raw_fields(run, cut.seq)["eol"] == ""
    assert "ended in the middle of a line" in cut.reason and f"last {len(expected)} bytes" in cut.reason
    assert "complete JSON message otherwise" in cut.reason
    assert not any(e.data.get("reply_to") == request.seq for e in capture.events), "an unframed line answers nothing"
    assert lifecycle(capture, "exited")[0].data == {"what": "exited", "pid": spawned_pid(capture), "code": 0}
    assert_nothing_left_running(run)


def test_a_server_that_exits_with_code_3_before_answering_is_named_with_its_code_and_its_stderr(
        record: Callable[..., Recorded], misbehaving: Callable[..., list[str]]) -> None:
    run = record(misbehaving("exit3"), *LEGACY, "--timeout", "10")
    assert run.returncode == 1, run.explain()
    error = one_error(run)
    assert error.startswith("mcp-inspector: the server exited with code 3 before answering initialize"), error
    assert "fatal: cannot open database /nonexistent/db.sqlite" in error
    assert "server exited with code 3" in run.stdout, run.explain()
    capture = load_capture(run.out)
    stderr_events = [e for e in capture.events if e.kind == Kind.STDERR]
    assert [(e.raw, e.eol) for e in stderr_events] == [(b"fatal: cannot open database /nonexistent/db.sqlite", b"\n")]
    assert lifecycle(capture, "exited")[0].data["code"] == 3
    assert_nothing_left_running(run)


def test_a_server_that_exits_while_probed_is_said_to_exit_before_answering_the_handshake_not_the_probe(
        record: Callable[..., Recorded], misbehaving: Callable[..., list[str]]) -> None:
    run = record(misbehaving("exit3"), "--timeout", "10")
    assert run.returncode == 1, run.explain()
    error = one_error(run)
    assert error.startswith("mcp-inspector: the server exited with code 3 before answering the handshake; its last "
                            "stderr lines:\n  fatal: cannot open database /nonexistent/db.sqlite"), error
    assert "server/discover" not in error, "the user asked for no server/discover: the probe is ours"
    assert [e.method for e in messages(load_capture(run.out), "c2s")] == ["server/discover"]
    assert_nothing_left_running(run)


def test_a_server_that_exits_at_once_is_named_with_its_code_and_its_stderr_every_time(
        record: Callable[..., Recorded]) -> None:
    # A shell exits within a millisecond: before the inspector's first write most of the time. The sentence
    # must not depend on that race, so run it a few times.
    server = ["/bin/sh", "-c", "echo 'fatal: missing config' >&2; exit 3"]
    for _ in range(8):
        run = record(server, *LEGACY, "--timeout", "10")
        assert run.returncode == 1, run.explain()
        error = one_error(run)
        assert "exited with code 3" in error and "fatal: missing config" in error, error


def test_a_server_that_dies_right_after_its_first_reply_is_reported_at_the_next_request(
        record: Callable[..., Recorded], misbehaving: Callable[..., list[str]]) -> None:
    run = record(misbehaving("dies_after_reply"), *LEGACY, "--timeout", "10", send=TOOLS_LIST)
    assert run.returncode == 1, run.explain()
    error = one_error(run)
    assert "wrote nothing to stderr" in error, error
    capture = load_capture(run.out)
    exchange(capture, "initialize")
    sent = [e.method for e in messages(capture, "c2s")]
    # whichever message meets the exit is named: usually tools/list, waiting for its answer; on a loaded
    # machine the exit is seen before that (or even notifications/initialized) could be written
    if sent == ["initialize", "notifications/initialized", "tools/list"]:
        assert "the server exited with code 0 before answering tools/list" in error, error
    elif sent == ["initialize", "notifications/initialized"]:
        assert "the server exited with code 0 before answering tools/list" in error, error
    else:
        assert sent == ["initialize"], sent
        assert "notifications/initialized could not be sent: the server exited with code 0" in error, error
    assert len(messages(capture, "s2c")) == 1
    assert lifecycle(capture, "exited")[0].data["code"] == 0
    assert_nothing_left_running(run)


# -- a server that does not answer ----------------------------------------------------------------------------


def test_a_server_that_never_answers_fails_after_the_timeout_with_a_sentence_naming_initialize(
        record: Callable[..., Recorded], misbehaving: Callable[..., list[str]]) -> None:
    run = record(misbehaving("silent"), *LEGACY, "--timeout", "3", timeout=30)
    assert run.returncode == EXIT_TIMEOUT, run.explain()
    error = one_error(run)
    assert error.strip() == "mcp-inspector: no response to initialize within 3 s; raise --timeout to wait longer", error
    capture = load_capture(run.out)
    notes = [e.data["text"] for e in capture.events if e.kind == Kind.NOTE]
    assert notes == ["no response to initialize within 3 s; raise --timeout to wait longer"]
    request = messages(capture, "c2s", "initialize")[0]
    note = next(e for e in capture.events if e.kind == Kind.NOTE)
    assert 2.9 <= note.t - request.t < 6
    assert lifecycle(capture, "stdin_closed") and lifecycle(capture, "exited")[0].data["code"] == 0
    assert_nothing_left_running(run)


def test_timeout_5_bounds_the_whole_auto_handshake_against_a_silent_server_and_the_sentence_names_the_flag(
        record: Callable[..., Recorded], misbehaving: Callable[..., list[str]]) -> None:
    started = time.monotonic()
    run = record(misbehaving("silent"), "--timeout", "5", timeout=30)
    elapsed = time.monotonic() - started
    assert run.returncode == EXIT_TIMEOUT, run.explain()
    assert one_error(run).strip() == ("mcp-inspector: no response to initialize within the handshake's 5 s; raise "
                                      "--timeout to wait longer"), run.explain()
    capture = load_capture(run.out)
    assert [e.method for e in messages(capture, "c2s")] == ["server/discover", "initialize"]
    notes = [e for e in capture.events if e.kind == Kind.NOTE]
    assert "no answer to server/discover within 2.5 s: treating the server as legacy" in [n.data["text"] for n in notes]
    probe = messages(capture, "c2s")[0]
    # the bound starts as the probe is written, a few ms before its t
    assert 4.95 <= notes[-1].t - probe.t < 5.5, "the probe and initialize share the 5 s"
    assert elapsed < 8, f"record took {elapsed:.1f} s (the interpreter's start and the server's shutdown included)"


def interrupt_a_hanging_record(misbehaving: Callable[..., list[str]], tmp_path: Path) -> Recorded:
    """Start ``record`` on a server that never answers, wait (bounded, no polling) until the server has read
    initialize, press Ctrl-C (SIGINT to the inspector) and wait for the inspector to end."""
    fifo = tmp_path / "ready.fifo"
    os.mkfifo(fifo)
    out = tmp_path / "interrupted.jsonl"
    ready = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # before the writer: its open() then never blocks long
    args = ["record", "--out", str(out), *LEGACY, "--timeout", "30", "--",
            *misbehaving("silent", "--ready", str(fifo))]
    process = start_inspector(args)
    try:
        readable, _, _ = select.select([ready], [], [], 20)
        assert readable and os.read(ready, 100) == b"ready\n", "the server never got initialize"
        process.send_signal(signal.SIGINT)
        done = finish_inspector(process, 20, out)
    finally:
        os.close(ready)
        if process.poll() is None:
            process.kill()
            process.communicate(timeout=10)
            kill_spawned_groups(out)
    return Recorded(done.returncode, done.stdout, done.stderr, out, ["mcp-inspector", *args])


def test_ctrl_c_during_a_hanging_handshake_still_stops_the_server_and_leaves_a_complete_capture(
        misbehaving: Callable[..., list[str]], tmp_path: Path) -> None:
    run = interrupt_a_hanging_record(misbehaving, tmp_path)
    assert run.returncode != 0, run.explain()
    capture = load_capture(run.out)
    assert [e.method for e in messages(capture, "c2s")] == ["initialize"]
    assert lifecycle(capture, "stdin_closed") and lifecycle(capture, "exited"), capture.events
    assert_nothing_left_running(run)


def test_ctrl_c_during_a_hanging_handshake_ends_with_one_sentence_and_no_traceback(
        misbehaving: Callable[..., list[str]], tmp_path: Path) -> None:
    run = interrupt_a_hanging_record(misbehaving, tmp_path)
    assert run.returncode != 0, run.explain()
    assert "Traceback" not in run.stderr, run.explain()
    assert len(errors_on_stderr(run.stderr)) == 1, run.explain()


def test_a_server_that_floods_1_mib_of_stderr_before_answering_does_not_deadlock_and_every_byte_is_kept(
        record: Callable[..., Recorded], misbehaving: Callable[..., list[str]]) -> None:
    run = record(misbehaving("stderr_flood"), *LEGACY, "--timeout", "10", send=TOOLS_LIST, timeout=30)
    assert run.returncode == 0, run.explain()
    assert "16384 stderr lines" in run.stdout, run.explain()
    capture = load_capture(run.out)
    stderr_events = [e for e in capture.events if e.kind == Kind.STDERR]
    assert len(stderr_events) == 16384
    assert all(e.dir == "s2c" for e in stderr_events)
    assert b"".join(e.raw + e.eol for e in stderr_events) == FLOOD
    _, response = exchange(capture, "initialize")
    assert response.seq > stderr_events[-1].seq, "the flood was written before the answer"
    exchange(capture, "tools/list")


# -- leftovers ------------------------------------------------------------------------------------------------


def test_a_grandchild_that_ignores_sigterm_and_holds_the_pipes_is_killed_with_the_whole_process_group(
        record: Callable[..., Recorded], misbehaving: Callable[..., list[str]], tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"
    grandchild: int | None = None
    try:
        run = record(misbehaving("grandchild", str(pid_file)), *LEGACY, "--timeout", "10", send=TOOLS_LIST,
                     timeout=30)
        grandchild = int(pid_file.read_text())
        assert run.returncode == 0, run.explain()
        assert is_gone(grandchild), f"grandchild {grandchild} still runs after record exited"
        capture = load_capture(run.out)
        server = spawned_pid(capture)
        assert live_group_members(server) == []
        leftovers = lifecycle(capture, "group_leftovers")
        assert [(e.data["pids"], e.data["signal"]) for e in leftovers] == [
            ([grandchild], "SIGTERM"), ([grandchild], "SIGKILL")]
        exits = lifecycle(capture, "exited")
        assert len(exits) == 1 and exits[0].data["code"] == 0
        assert exits[0].seq < leftovers[0].seq
        exchange(capture, "tools/list")
    finally:
        if grandchild is not None and not is_gone(grandchild):
            os.kill(grandchild, signal.SIGKILL)  # never leave it behind, even when the test fails


def test_a_server_that_ignores_stdin_eof_and_sigterm_gets_sigterm_then_sigkill_after_the_grace_periods(
        record: Callable[..., Recorded], misbehaving: Callable[..., list[str]]) -> None:
    run = record(misbehaving("stubborn"), "--handshake", "none", "--idle", "0", timeout=30)
    assert run.returncode == 0, run.explain()  # no handshake, nothing sent: nothing went unanswered
    assert run.stdout.rstrip().endswith("; server killed by signal 9"), run.explain()
    capture = load_capture(run.out)
    steps = [e for e in capture.events if e.kind == Kind.LIFECYCLE]
    assert [(e.data["what"], e.data.get("signal")) for e in steps] == [
        ("spawned", None), ("stdin_closed", None), ("signal", "SIGTERM"), ("signal", "SIGKILL"), ("exited", "SIGKILL")]
    assert steps[-1].data["after"] == "SIGKILL"
    assert steps[2].t - steps[1].t >= 1.9, "the server gets 2 s to exit after its stdin closes"
    assert steps[3].t - steps[2].t >= 1.9, "and 2 s more after SIGTERM"
    assert_nothing_left_running(run)


def test_a_line_cut_by_our_own_stop_is_kept_byte_exact_and_said_to_be_ours_not_the_servers_violation(
        record: Callable[..., Recorded], misbehaving: Callable[..., list[str]],
        show: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    # the server floods on after its stdin closes; SIGTERM cuts its last line: that was a framing error and
    # exit status 6, "the server broke the protocol", for a cut made by record itself
    run = record(misbehaving("still_writing"), *LEGACY, "--idle", "0", timeout=30)
    assert run.returncode == 0, run.explain()
    assert run.stderr == "", run.explain()
    assert ", 0 framing errors," in run.stdout and "1 line cut by mcp-inspector's stop" in run.stdout, run.stdout
    capture = load_capture(run.out)
    flood = [e for e in capture.events if e.dir == "s2c" and e.kind in (Kind.MESSAGE, Kind.FRAMING_ERROR)][1:]
    *whole, cut = flood
    assert whole and all(e.kind == Kind.MESSAGE and e.eol == b"\n" for e in whole)
    assert [e.json()["params"]["data"] for e in whole] == [f"flood line {n:06d}" for n in range(1, len(whole) + 1)]
    # the bytes stay as they came: the first half of the next line, without newline
    expected = json.dumps({"jsonrpc": "2.0", "method": "notifications/message", "params": {
        "level": "info", "logger": "flood", "data": f"flood line {len(whole) + 1:06d}"}}, separators=(",", ":"))
    assert cut.kind == Kind.FRAMING_ERROR and cut.raw == expected.encode()[:STILL_WRITING_HALF] and cut.eol == b""
    assert cut.data[CUT_BY_STOP] == "SIGTERM"
    assert cut.reason.startswith("mcp-inspector's own stop cut this line short: the server was still writing when "
                                 "mcp-inspector ended it with SIGTERM"), cut.reason
    assert not is_problem(cut)
    assert lifecycle(capture, "exited")[0].data["after"] == "SIGTERM"
    shown = show(run.out)
    assert shown.returncode == 0, shown.stderr
    [row] = [line for line in shown.stdout.splitlines() if line.lstrip().startswith(f"{cut.seq} ")]
    assert "✗" not in row and "cut by stop" in row and "mcp-inspector's own stop cut this line" in row, row
    [record_of] = [r for r in map(json.loads, show(run.out, "--json").stdout.splitlines()) if r["seq"] == cut.seq]
    assert record_of["cut_by_stop"] == "SIGTERM" and record_of["label"] == "cut by stop", record_of
    linted = run_inspector(["lint", str(run.out)])
    assert linted.returncode == 0, linted.stdout + linted.stderr
    assert "cut-by-stop" in linted.stdout, linted.stdout
    assert_nothing_left_running(run)


def test_a_line_a_child_still_writes_when_we_stop_reading_the_pipe_is_cut_by_our_stop_too(
        record: Callable[..., Recorded], misbehaving: Callable[..., list[str]]) -> None:
    run = record(misbehaving("still_writing", "--in-a-child"), *LEGACY, "--idle", "0", timeout=30)
    assert run.returncode == 0, run.explain()
    capture = load_capture(run.out)
    cut = [e for e in capture.events if e.kind == Kind.FRAMING_ERROR]
    assert [(e.data.get(CUT_BY_STOP), len(e.raw), e.eol) for e in cut] == [("reading stopped", STILL_WRITING_HALF, b"")]
    assert "when mcp-inspector stopped reading" in cut[0].reason
    assert len(messages(capture, "s2c", "notifications/message")) == 100
    assert_nothing_left_running(run)


def test_a_line_the_server_left_half_written_before_the_stop_stays_its_framing_error(
        record: Callable[..., Recorded], misbehaving: Callable[..., list[str]]) -> None:
    # the stop cut nothing the server was still writing: it had hung half-way through its answer
    run = record(misbehaving("stalls_mid_line"), *LEGACY, "--timeout", "1", send=TOOLS_LIST, timeout=30)
    assert run.returncode == EXIT_TIMEOUT, run.explain()
    capture = load_capture(run.out)
    [cut] = [e for e in capture.events if e.kind == Kind.FRAMING_ERROR]
    assert cut.raw == b'{"jsonrpc":"2.0","id' and CUT_BY_STOP not in cut.data and is_problem(cut)
    assert "ended in the middle of a line" in cut.reason
    assert lifecycle(capture, "exited")[0].data["after"] == "SIGTERM"
    assert_nothing_left_running(run)


# -- protocol errors in otherwise framed messages ----------------------------------------------------------


def test_a_response_with_id_2_as_a_string_is_not_paired_and_result_plus_error_is_flagged(
        record: Callable[..., Recorded], misbehaving: Callable[..., list[str]]) -> None:
    # ids: initialize 1, the explicit 3, then the inspector's next id, 2
    run = record(misbehaving("wrong_id"), *LEGACY, "--timeout", "2", timeout=30,
                 send=[{"id": 3, "method": "tools/list"}, {"method": "tools/list"}])
    assert run.returncode == EXIT_TIMEOUT, run.explain()
    assert one_error(run).strip() == ("mcp-inspector: no response to tools/list within 2 s; raise --timeout to wait "
                                      "longer"), run.explain()
    assert "2 protocol findings" in run.stdout, run.explain()
    capture = load_capture(run.out)
    requests = {e.json()["id"]: e for e in messages(capture, "c2s", "tools/list")}
    assert set(requests) == {2, 3}
    both = next(e for e in messages(capture, "s2c") if e.json().get("id") == 3)
    assert both.rpc is not None and both.rpc.kind == "error"
    assert [f.code for f in both.findings] == ["result-and-error"]
    assert both.data["reply_to"] == requests[3].seq and both.data["latency"] >= 0
    string_id = next(e for e in messages(capture, "s2c") if e.json().get("id") == "2")
    assert [f.code for f in string_id.findings] == ["id-type-mismatch"]
    assert f"request #{requests[2].seq} has id 2 (a number)" in string_id.findings[0].text
    assert "reply_to" not in string_id.data and "latency" not in string_id.data
    assert_nothing_left_running(run)


# -- commands that cannot be run ---------------------------------------------------------------------------


def test_a_command_that_is_not_on_path_gets_a_sentence_naming_the_path_searched(
        record: Callable[..., Recorded]) -> None:
    run = record(["mcp-inspector-no-such-server-xyz", "--stdio"], *LEGACY)
    assert run.returncode == EXIT_CANNOT_CONNECT, run.explain()
    error = one_error(run)
    assert error.startswith(
        "mcp-inspector: command not found: mcp-inspector-no-such-server-xyz (searched PATH: "), error
    assert os.environ["PATH"].split(os.pathsep)[0] in error
    capture = load_capture(run.out)
    assert not lifecycle(capture, "spawned")
    assert [e.data["text"] for e in capture.events if e.kind == Kind.NOTE] == [error.strip()[len("mcp-inspector: "):]]


def test_a_file_without_execute_permission_gets_a_sentence_suggesting_chmod(
        record: Callable[..., Recorded], tmp_path: Path) -> None:
    script = tmp_path / "server.sh"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o644)
    run = record([str(script)], *LEGACY)
    assert run.returncode == EXIT_CANNOT_CONNECT, run.explain()
    assert one_error(run).strip() == f"mcp-inspector: {script} is not executable (chmod +x {script}?)", run.explain()


def test_a_non_executable_file_found_on_the_path_given_with_env_gets_a_sentence_naming_it(
        record: Callable[..., Recorded], tmp_path: Path) -> None:
    (tmp_path / "my-server").write_text("#!/bin/sh\nexit 0\n")
    (tmp_path / "my-server").chmod(0o644)
    run = record(["my-server"], *LEGACY, "--env", f"PATH={tmp_path}")
    assert run.returncode == EXIT_CANNOT_CONNECT, run.explain()
    assert f"{tmp_path / 'my-server'} is not executable" in one_error(run), run.explain()


def test_a_directory_given_as_the_command_gets_a_sentence_saying_it_is_not_a_program(
        record: Callable[..., Recorded], tmp_path: Path) -> None:
    run = record([str(tmp_path)], *LEGACY)
    assert run.returncode == EXIT_CANNOT_CONNECT, run.explain()
    assert one_error(run).strip() == f"mcp-inspector: {tmp_path} is a directory, not a program", run.explain()


def test_a_missing_working_directory_gets_a_sentence_naming_it(record: Callable[..., Recorded],
                                                              tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    run = record([sys.executable, "-c", "pass"], *LEGACY, "--cwd", str(missing))
    assert run.returncode == EXIT_CANNOT_CONNECT, run.explain()
    assert one_error(run).strip() == f"mcp-inspector: the working directory {missing} does not exist", run.explain()


def test_the_summary_of_a_command_that_never_started_does_not_say_the_server_is_running(
        record: Callable[..., Recorded]) -> None:
    run = record(["mcp-inspector-no-such-server-xyz"], *LEGACY)
    assert run.returncode == EXIT_CANNOT_CONNECT, run.explain()
    assert "still running" not in run.stdout, run.explain()
