"""Headless plumbing (issue 13, point 8): ``--send -`` reads the messages from stdin, ``--out -`` writes the
capture to stdout (and nothing else: the summary goes to stderr), and record's exit statuses tell apart
usage, cannot start or connect, timeout, a JSON-RPC error answer and a protocol violation."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import pytest
import warm_cli
from helpers import DEMO, ROOT, cli

from inspector.core.capture import read_capture
from inspector.core.exits import (
    EXIT_BAD_INPUT,
    EXIT_CANNOT_CONNECT,
    EXIT_OK,
    EXIT_PROTOCOL,
    EXIT_RPC_ERROR,
    EXIT_SERVER_FAILED,
    EXIT_TIMEOUT,
    RECORD_EXITS,
    REPLAY_EXITS,
)
from inspector.core.wire.events import Direction

JUNK_SERVER = ROOT / "tests" / "integration" / "servers" / "junk_server.py"
#: answers every request, initialize included, with a JSON-RPC error
REFUSER = ("import json, sys\nfor line in sys.stdin:\n    m = json.loads(line)\n    if 'id' in m:\n"
           "        print(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'error': {'code': -32603, "
           "'message': 'not today'}}), flush=True)\n")


def record(*args: str, stdin: str | None = None, cwd=None) -> subprocess.CompletedProcess[str]:
    return warm_cli.run([sys.executable, "-m", "inspector", "record", *args], input=stdin, capture_output=True,
                        text=True, timeout=120, cwd=cwd or ROOT, env=os.environ)


# -- - for stdin and stdout ---------------------------------------------------------------------------------


def test_send_dash_reads_the_messages_from_stdin(tmp_path):
    out = tmp_path / "c.jsonl"
    done = record("--out", str(out), "--send", "-", "--", *DEMO, stdin='{"method": "tools/list"}\n')
    assert done.returncode == EXIT_OK, done.stderr
    sent = [e.method for e in read_capture(out).events if e.dir == Direction.C2S and e.method]
    assert "tools/list" in sent


def test_out_dash_puts_the_capture_and_only_the_capture_on_stdout(tmp_path):
    done = record("--out", "-", "--send", "-", "--", *DEMO, stdin='{"method": "tools/list"}\n', cwd=tmp_path)
    assert done.returncode == EXIT_OK, done.stderr
    assert list(tmp_path.iterdir()) == [], "no file named - (or anything else) was written"
    (tmp_path / "piped.jsonl").write_text(done.stdout)
    capture = read_capture(tmp_path / "piped.jsonl")
    assert capture.warnings == [] and all(json.loads(line) for line in done.stdout.splitlines())
    assert any(e.data.get("request_method") == "tools/list" for e in capture.events)
    assert done.stderr.startswith("stdout: 2 sent, 2 received"), "the summary goes to stderr, naming stdout"


def test_out_dash_into_a_reader_that_stops_early_ends_quietly(tmp_path):
    process = warm_cli.Popen([sys.executable, "-m", "inspector", "record", "--out", "-", "--", *DEMO],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=os.environ)
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.read(10) == b'{"format":'
    process.stdout.close()  # like `| head -c 10`
    with process.stderr:
        stderr = process.stderr.read().decode()
    assert process.wait(timeout=60) == EXIT_OK, stderr
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr, stderr


# -- exit statuses --------------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_command_that_cannot_start_exits_3(tmp_path):
    done = record("--out", str(tmp_path / "c.jsonl"), "--", "mcp-inspector-no-such-server")
    assert done.returncode == EXIT_CANNOT_CONNECT
    assert "command not found: mcp-inspector-no-such-server" in done.stderr


def test_a_url_nobody_listens_on_exits_3(tmp_path):
    done = record("--out", str(tmp_path / "c.jsonl"), "--url", f"http://127.0.0.1:{free_port()}/mcp")
    assert done.returncode == EXIT_CANNOT_CONNECT, done.stderr
    assert "connection refused" in done.stderr


def test_a_silent_server_exits_4(tmp_path):
    done = record("--out", str(tmp_path / "c.jsonl"), "--handshake", "legacy", "--timeout", "1", "--",
                  sys.executable, "-c", "import time; time.sleep(60)")
    assert done.returncode == EXIT_TIMEOUT, done.stderr
    assert "no response to initialize within 1 s" in done.stderr


def test_a_server_that_exits_before_answering_exits_1(tmp_path):
    done = record("--out", str(tmp_path / "c.jsonl"), "--handshake", "legacy", "--",
                  sys.executable, "-c", "import sys; sys.exit(3)")
    assert done.returncode == EXIT_SERVER_FAILED, done.stderr
    assert "exited with code 3" in done.stderr


def test_an_error_answer_to_a_request_of_send_exits_5_and_says_which(tmp_path):
    done = record("--out", str(tmp_path / "c.jsonl"), "--send", "-", "--", *DEMO,
                  stdin='{"method": "tools/list"}\n{"method": "no/such/method"}\n')
    assert done.returncode == EXIT_RPC_ERROR, done.stderr
    assert "the server answered 1 request with a JSON-RPC error (the first: no/such/method: " in done.stderr


def test_a_handshake_refused_with_an_error_answer_exits_5(tmp_path):
    done = record("--out", str(tmp_path / "c.jsonl"), "--handshake", "legacy", "--",
                  sys.executable, "-c", REFUSER)
    assert done.returncode == EXIT_RPC_ERROR, done.stderr
    assert "the server answered initialize with an error: not today" in done.stderr


def test_a_server_that_refuses_the_probe_then_exits_before_initialize_exits_1_not_5(tmp_path):
    # the error answer to server/discover is negotiation, not the failure: the server's exit is
    script = ("import json, sys\nm = json.loads(sys.stdin.readline())\n"
              "print(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'error': {'code': -32601, 'message': 'no'}}), "
              "flush=True)\nsys.stdin.readline()\nsys.exit(3)\n")
    done = record("--out", str(tmp_path / "c.jsonl"), "--", sys.executable, "-c", script)
    assert done.returncode == EXIT_SERVER_FAILED, done.stderr
    assert "exited with code 3" in done.stderr


def test_junk_on_stdout_is_a_protocol_violation_exit_6_even_when_every_request_got_a_result(tmp_path):
    done = record("--out", str(tmp_path / "c.jsonl"), "--handshake", "legacy", "--",
                  sys.executable, str(JUNK_SERVER), "--banner")
    assert done.returncode == EXIT_PROTOCOL, done.stderr
    assert "the server broke the protocol: 1 of its lines is not a valid JSON-RPC message" in done.stderr


def test_a_protocol_violation_outranks_an_error_answer(tmp_path):
    done = record("--out", str(tmp_path / "c.jsonl"), "--handshake", "legacy", "--send", "-", "--",
                  sys.executable, str(JUNK_SERVER), "--banner", stdin='{"method": "no/such/method"}\n')
    assert done.returncode == EXIT_PROTOCOL, done.stderr


def test_an_unreadable_send_file_is_a_usage_error_exit_2(tmp_path):
    done = record("--out", str(tmp_path / "c.jsonl"), "--send", "-", "--", *DEMO, stdin="not json\n")
    assert done.returncode == EXIT_BAD_INPUT
    assert done.stderr.strip() == "mcp-inspector: stdin line 1 is not JSON: Expecting value at column 1"


def test_replay_exits_3_when_its_server_cannot_start(tmp_path):
    capture = ROOT / "tests" / "data" / "sample-v1.jsonl"
    done = cli("replay", str(capture), "--out", str(tmp_path / "r.jsonl"), "--", "mcp-inspector-no-such-server")
    assert done.returncode == EXIT_CANNOT_CONNECT, done.stderr


@pytest.mark.parametrize(("command", "exits"), [("record", RECORD_EXITS), ("replay", REPLAY_EXITS)])
def test_help_lists_every_exit_status(command, exits):
    done = cli(command, "--help", env={"COLUMNS": "100"})
    assert done.returncode == 0
    listed = done.stdout.split("exit status:\n", 1)[1]
    assert [int(line.split()[0]) for line in listed.splitlines() if line[:6].strip().isdigit()] == \
        [code for code, _ in exits]
    assert len({code for code, _ in exits}) == len(exits), "each status means one thing"


def test_replay_and_tap_refuse_a_dash_for_their_capture_since_their_stdout_is_taken(tmp_path):
    capture = ROOT / "tests" / "data" / "sample-v1.jsonl"
    replay = cli("replay", str(capture), "--out", "-", "--", *DEMO, cwd=tmp_path)
    assert replay.returncode == EXIT_BAD_INPUT and "replay prints its comparison on stdout" in replay.stderr
    tap = cli("tap", "--capture", "-", "--no-live", "--", *DEMO, cwd=tmp_path)
    assert tap.returncode == EXIT_BAD_INPUT and "tap's stdout carries the server's messages" in tap.stderr
    assert list(tmp_path.iterdir()) == [], "no file named -"
