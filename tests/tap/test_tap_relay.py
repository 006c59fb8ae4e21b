"""``mcp-inspector tap`` between a client and a real server: the client gets exactly the server's bytes, the
server gets exactly the client's, exit status and EOF pass through, and the capture holds everything."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
import warm_cli
from helpers import ROOT, wait_until
from tap_support import (
    DEMO,
    DEMO_COLD,
    DEMO_SESSION,
    FLOOD,
    SCRIPT,
    SCRIPT_SESSION,
    TIMEOUT,
    lifecycle,
    run,
    stderr_of,
    stop,
    tap,
    wire,
)

from inspector.core.capture import read_capture
from inspector.core.transports.process_group import group_members, process_state
from inspector.core.wire.events import Kind


def test_a_scripted_demo_session_through_tap_gives_the_client_exactly_the_bytes_it_gets_directly(tmp_path):
    session = tmp_path / "session.jsonl"
    session.write_bytes(DEMO_SESSION)
    direct = run(DEMO, stdin=session)
    tapped = run(tap(*DEMO, capture=tmp_path / "c.jsonl"), stdin=session)
    assert direct.returncode == tapped.returncode == 0
    assert b'"id":4' in direct.stdout and b"Parse error" in direct.stdout  # the session really happened
    assert tapped.stdout == direct.stdout
    assert tapped.stderr == direct.stderr  # the server's stderr, and nothing of the tap's own


def test_invalid_lines_in_both_directions_pass_through_tap_unchanged_from_a_pipe(tmp_path):
    direct = run(SCRIPT, stdin=SCRIPT_SESSION)
    tapped = run(tap(*SCRIPT, capture=tmp_path / "c.jsonl"), stdin=SCRIPT_SESSION)
    assert b"this banner is not JSON" in direct.stdout and b"caf\xe9 \xff" in direct.stdout
    assert direct.stdout.endswith(b'"notifications/bye"}')  # cut short on purpose
    assert b"not json: \xff\xfe invalid utf-8" in direct.stderr  # the server saw the client's bytes as sent
    assert (tapped.returncode, tapped.stdout, tapped.stderr) == (direct.returncode, direct.stdout, direct.stderr)


def test_the_capture_holds_both_directions_byte_exactly_and_the_stderr_with_pairing(tmp_path):
    out = tmp_path / "c.jsonl"
    tapped = run(tap(*SCRIPT, capture=out, name="script"), stdin=SCRIPT_SESSION)
    capture = read_capture(out)
    assert capture.warnings == []
    assert wire(capture, "c2s") == SCRIPT_SESSION
    assert wire(capture, "s2c") == tapped.stdout
    assert stderr_of(capture) == tapped.stderr
    assert [e.seq for e in capture.events] == list(range(1, len(capture.events) + 1))
    assert {e.kind for e in capture.events} >= {Kind.MESSAGE, Kind.FRAMING_ERROR, Kind.STDERR, Kind.LIFECYCLE}
    responses = [e for e in capture.events if e.kind == Kind.MESSAGE and e.dir == "s2c" and "reply_to" in e.data]
    assert [e.data["request_method"] for e in responses] == ["initialize", "junk", "tools/list"]
    assert all(e.data["latency"] >= 0 for e in responses)
    assert capture.header["tap"]["name"] == "script"
    assert capture.target["argv"] == SCRIPT


def test_the_servers_exit_code_comes_back_through_tap():
    tapped = run(tap(*SCRIPT, "--exit", "3"), stdin=SCRIPT_SESSION)
    assert tapped.returncode == 3


def test_a_server_that_dies_while_the_client_still_writes_ends_the_tap_with_its_code_and_eof(tmp_path):
    out = tmp_path / "c.jsonl"
    client = warm_cli.Popen(tap(*SCRIPT, "--die-after-first", "3", capture=out), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    try:
        client.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"initialize"}\n')
        client.stdin.flush()
        assert client.wait(timeout=TIMEOUT) == 3  # with our stdin still open
        stdout = client.stdout.read()  # EOF came: read() returns
    finally:
        stop(client)
    assert stdout.endswith(b'"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},'
                           b'"serverInfo":{"name":"script","version":"1.0"}}}\n')
    assert lifecycle(read_capture(out), "exited")[0].data["code"] == 3


def test_a_server_killed_by_a_signal_makes_tap_exit_with_128_plus_the_signal_number(tmp_path):
    out = tmp_path / "c.jsonl"
    tapped = run(tap(*SCRIPT, "--kill-self", capture=out), stdin=SCRIPT_SESSION)
    assert tapped.returncode == 128 + signal.SIGTERM
    assert lifecycle(read_capture(out), "exited")[0].data["signal"] == "SIGTERM"


def test_closing_taps_stdin_closes_the_servers_so_the_demo_sees_eof_and_exits_0(tmp_path):
    out = tmp_path / "c.jsonl"
    client = warm_cli.Popen(tap(*DEMO, capture=out), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT)
    try:
        first = DEMO_SESSION.split(b"\n")[0] + b"\n"
        client.stdin.write(first)
        client.stdin.flush()
        assert b'"id":1,"result"' in client.stdout.readline()  # the server is up and answering
        client.stdin.close()  # the client goes away
        assert client.wait(timeout=TIMEOUT) == 0
    finally:
        stop(client)
    capture = read_capture(out)
    assert lifecycle(capture, "stdin_closed")[0].data["by"] == "client"
    exited = lifecycle(capture, "exited")[0].data
    assert exited == {"what": "exited", "pid": lifecycle(capture, "spawned")[0].data["pid"], "code": 0}
    assert lifecycle(capture, "signal") == []  # it left by itself, on EOF


def test_a_client_that_closes_stdin_but_keeps_reading_gets_everything_from_a_server_that_takes_its_time(tmp_path):
    out = tmp_path / "c.jsonl"
    # 3 s of output after EOF: past the 2 s grace; both runs at once, so the test waits 3 s, not 6
    with ThreadPoolExecutor(2) as pool:
        direct_run = pool.submit(run, SCRIPT + ["--linger", "3"], stdin=SCRIPT_SESSION)
        tapped = run(tap(*SCRIPT, "--linger", "3", capture=out), stdin=SCRIPT_SESSION)
        direct = direct_run.result()
    assert direct.stdout.count(b"notifications/still-here") == 30
    assert (tapped.returncode, tapped.stdout) == (0, direct.stdout)
    assert lifecycle(read_capture(out), "signal") == []


def test_when_the_client_dies_a_server_that_ignores_eof_gets_sigterm_after_the_grace_as_with_the_stdio_transport(
        tmp_path):
    out = tmp_path / "c.jsonl"
    client = warm_cli.Popen(tap(*SCRIPT, "--ignore-eof", capture=out), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=ROOT)
    try:
        client.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"initialize"}\n')
        client.stdin.flush()
        client.stdout.readline()  # the banner
        assert b'"id":1,"result"' in client.stdout.readline()  # the answer: the server now waits for input
        client.stdin.close()  # the client dies: both its ends close
        client.stdout.close()
        assert client.wait(timeout=TIMEOUT) == 128 + signal.SIGTERM
    finally:
        stop(client)
    capture = read_capture(out)
    assert [e.data["signal"] for e in lifecycle(capture, "signal")] == ["SIGTERM"]
    assert lifecycle(capture, "exited")[0].data["after"] == "SIGTERM"
    assert any(e.data.get("text") == "the client is gone (its stdin and stdout are closed)" for e in capture.events)


def test_tap_leaves_no_process_of_the_servers_group_behind(tmp_path):
    out = tmp_path / "c.jsonl"
    tapped = run(tap(*SCRIPT, "--grandchild", capture=out), stdin=SCRIPT_SESSION)
    assert tapped.returncode == 0
    capture = read_capture(out)
    pid = lifecycle(capture, "spawned")[0].data["pid"]
    assert lifecycle(capture, "group_leftovers")[0].data["signal"] == "SIGTERM"
    assert group_members(pid) == []


def stopped_server_under_tap(out):
    """A client with a tap'd server that answered once and was then stopped (SIGSTOP, as Ctrl-Z or a debugger
    would): the client process, and the server's pid."""
    client = warm_cli.Popen(tap(*SCRIPT, "--ignore-eof", capture=out), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=ROOT)
    client.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"initialize"}\n')
    client.stdin.flush()
    client.stdout.readline()  # the banner
    assert b'"id":1,"result"' in client.stdout.readline()
    # the recorder creates the capture in its own time: under load it may not exist yet
    wait_until(lambda: out.exists() and '"spawned"' in out.read_text(), TIMEOUT,
               "the recorder to write the spawned event")
    pid = lifecycle(read_capture(out), "spawned")[0].data["pid"]
    os.kill(pid, signal.SIGSTOP)
    wait_until(lambda: process_state(pid) == "T", TIMEOUT, "the server to be stopped")
    return client, pid


@pytest.mark.parametrize("shutdown", ["the client is gone", "the client sends the tap SIGTERM"])
def test_a_stopped_server_still_ends_by_sigterm_on_the_taps_shutdown(tmp_path, shutdown):
    out = tmp_path / "c.jsonl"
    client, pid = stopped_server_under_tap(out)
    try:
        if shutdown == "the client is gone":  # the tap sends SIGTERM after the grace
            client.stdin.close()
            client.stdout.close()
        else:  # the tap forwards it
            client.send_signal(signal.SIGTERM)
        assert client.wait(timeout=TIMEOUT) == 128 + signal.SIGTERM  # not SIGKILL: SIGCONT let it act on SIGTERM
    finally:
        stop(client)
    wait_until(lambda: '"exited"' in out.read_text(), TIMEOUT, "the recorder to finish")
    capture = read_capture(out)
    assert [e.data["signal"] for e in lifecycle(capture, "signal")] == ["SIGTERM"]
    after = {"after": "SIGTERM"} if shutdown == "the client is gone" else {}
    assert lifecycle(capture, "exited")[0].data == {"what": "exited", "pid": pid, "signal": "SIGTERM", **after}


def test_tap_forwards_sigterm_to_the_servers_group_and_exits_like_the_server(tmp_path):
    out = tmp_path / "c.jsonl"
    client = warm_cli.Popen(tap(*DEMO_COLD, capture=out), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT)
    try:
        wait_until(lambda: out.exists() and '"spawned"' in out.read_text(), TIMEOUT, "the server to start")
        client.send_signal(signal.SIGTERM)
        assert client.wait(timeout=TIMEOUT) == 128 + signal.SIGTERM
    finally:
        stop(client)
    wait_until(lambda: '"exited"' in out.read_text(), TIMEOUT, "the recorder to finish")
    capture = read_capture(out)
    assert lifecycle(capture, "signal")[0].data["forwarded"] is True
    assert lifecycle(capture, "exited")[0].data["signal"] == "SIGTERM"


def test_a_command_that_does_not_exist_makes_tap_exit_127_with_a_sentence(tmp_path):
    tapped = run(tap("no-such-mcp-server-anywhere", capture=tmp_path / "c.jsonl"))
    assert tapped.returncode == 127
    assert tapped.stdout == b""
    assert b"mcp-inspector tap: command not found: no-such-mcp-server-anywhere" in tapped.stderr
    assert "could not be started" in (tmp_path / "c.jsonl").read_text()


def test_the_default_capture_is_a_private_timestamped_file_in_the_captures_folder_named_after_the_server(tmp_path):
    tapped = run(tap(*DEMO, name="my demo"), stdin=DEMO_SESSION, env={"XDG_DATA_HOME": str(tmp_path)})
    assert tapped.returncode == 0
    [capture_file] = (tmp_path / "mcp-inspector" / "captures").glob("*.jsonl")
    assert capture_file.name.startswith("my-demo-")
    assert stat.S_IMODE(capture_file.stat().st_mode) == 0o600
    assert wire(read_capture(capture_file), "s2c") == tapped.stdout


def test_without_a_listening_window_tap_relays_and_records_all_the_same(tmp_path):
    out = tmp_path / "c.jsonl"
    nobody = tmp_path / "private"
    nobody.mkdir(mode=0o700)
    tapped = run(tap(*DEMO, capture=out, live=True), stdin=DEMO_SESSION,
                 env={"MCP_INSPECTOR_TAP_SOCKET": str(nobody / "tap.sock")})
    direct = run(DEMO, stdin=DEMO_SESSION)
    assert (tapped.returncode, tapped.stdout, tapped.stderr) == (0, direct.stdout, direct.stderr)
    assert wire(read_capture(out), "c2s") == DEMO_SESSION


def test_stdout_to_a_regular_file_gets_the_same_bytes(tmp_path):
    session = tmp_path / "session.jsonl"
    session.write_bytes(DEMO_SESSION)
    direct = run(DEMO, stdin=session)
    with session.open("rb") as stdin, (tmp_path / "out").open("wb") as stdout:
        code = warm_cli.run(tap(*DEMO), stdin=stdin, stdout=stdout, stderr=subprocess.DEVNULL, cwd=ROOT,
                            timeout=TIMEOUT).returncode
    assert code == 0
    assert (tmp_path / "out").read_bytes() == direct.stdout


def test_tap_writes_its_capture_header_with_the_redacted_command_line(tmp_path):
    out = tmp_path / "c.jsonl"
    run(tap(sys.executable, "-c", "pass", "--api-key", "sk-secret", capture=out))
    header = json.loads(out.read_text().splitlines()[0])
    assert header["target"]["argv"][-2:] == ["--api-key", "[redacted]"]
    assert "sk-secret" not in out.read_text()
    assert header["tap"]["pid"] > 0 and header["format"] == "mcp-inspector-capture"


def test_a_client_that_gives_dev_null_for_stdin_and_stdout_still_gets_the_exit_status_and_a_full_capture(tmp_path):
    out = tmp_path / "c.jsonl"
    code = warm_cli.run(tap(*SCRIPT, "--exit", "5", capture=out), stdin=subprocess.DEVNULL,
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT, timeout=TIMEOUT).returncode
    assert code == 5
    assert wire(read_capture(out), "s2c") == (b"script server 1.0 starting (this banner is not JSON)\n"
                                               b'{"jsonrpc":"2.0","method":"notifications/bye"}')


@pytest.mark.integration  # end to end through subprocesses, 7-13 s: CI's second step
def test_a_recorder_far_behind_holds_the_relay_back_without_losing_or_blocking_anything(tmp_path):
    out = tmp_path / "c.jsonl"
    count = 40_000  # 20 MB against a 64 KiB backlog: the relay pauses and resumes many times
    tapped = warm_cli.run(tap(*FLOOD, str(count), "500", capture=out), stdin=subprocess.DEVNULL,
                          capture_output=True, cwd=ROOT, timeout=TIMEOUT,
                          env={**os.environ, "MCP_INSPECTOR_TAP_BACKLOG": "65536"})
    assert tapped.returncode == 0
    assert tapped.stdout.count(b"\n") == count
    assert wire(read_capture(out), "s2c") == tapped.stdout


def test_a_server_that_exits_at_once_still_ends_the_tap_with_its_status(tmp_path):
    # `sh -c "exit 7"` is gone before asyncio has finished starting it: its exit must not be missed
    for run_number in range(5):
        out = tmp_path / f"c{run_number}.jsonl"
        tapped = run(tap("sh", "-c", "echo hi; exit 7", capture=out), timeout=20)
        assert (tapped.returncode, tapped.stdout) == (7, b"hi\n")
        assert lifecycle(read_capture(out), "exited")[0].data["code"] == 7
