"""``mcp-inspector tap --rules FILE -- SERVER``: intercept rules between a real client and a real server (issue
40): the client gets what the rules make of the server's answers, the server what they make of the client's
requests, and the capture holds the originals and the changes, marked."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import warm_cli
from helpers import ROOT, wait_until
from tap_support import DEMO, TIMEOUT, lifecycle, run, stop, tap

from inspector.core.capture import read_capture
from inspector.core.tap import splice
from inspector.core.wire.events import Event, Kind

pytestmark = pytest.mark.integration

INIT = (b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},'
        b'"clientInfo":{"name":"scripted","version":"1"}}}\n'
        b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')

#: The Python SDK's own client, through the tap command given as JSON in argv[1]: prints add's answer.
SDK_CLIENT = """
import json, sys, anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

async def main():
    argv = json.loads(sys.argv[1])
    params = StdioServerParameters(command=argv[0], args=argv[1:])
    with anyio.fail_after(60):
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("add", {"a": 1, "b": 2})
            print(result.content[0].text)

anyio.run(main)
"""


def rules_file(tmp_path: Path, *rules: dict[str, Any]) -> Path:
    path = tmp_path / "rules.json"
    path.write_text(json.dumps({"rules": list(rules)}))
    return path


def with_rules(rules: Path, *server: str, capture: Path) -> list[str]:
    argv = tap(*server, capture=capture)
    return [*argv[:4], "--rules", str(rules), *argv[4:]]


def marked(capture_path: Path) -> list[tuple[str | None, str, dict[str, Any]]]:
    """(direction, method or id, mark) of each marked message."""
    return [(e.dir, e.rpc.method if e.rpc and e.rpc.method else f"#{e.rpc.id if e.rpc else '?'}",
             e.data["intercept"]) for e in messages(capture_path) if "intercept" in e.data]


def messages(capture_path: Path) -> list[Event]:
    return [e for e in read_capture(capture_path).events if e.kind == Kind.MESSAGE]


def answers(stdout: bytes) -> dict[Any, dict[str, Any]]:
    found = [json.loads(line) for line in stdout.splitlines() if line.strip()]
    return {item.get("id"): item for item in found}


def test_the_sdk_client_through_the_stdio_tap_with_a_rewrite_rule_prints_the_rewritten_answer(tmp_path):
    rules = rules_file(tmp_path, {"when": {"dir": "s2c", "method": "tools/call", "tool": "add"}, "do": "rewrite",
                                  "set": {"/result/content/0/text": "forty-two"}})
    capture = tmp_path / "c.jsonl"
    command = with_rules(rules, *DEMO, capture=capture)
    client = subprocess.run([sys.executable, "-c", SDK_CLIENT, json.dumps(command)], capture_output=True,
                            timeout=TIMEOUT, cwd=ROOT)
    assert client.returncode == 0, client.stderr.decode(errors="replace")
    assert client.stdout.decode().splitlines() == ["forty-two"]
    calls = [e for e in messages(capture) if e.dir == "s2c" and e.data.get("request_method") == "tools/call"
             or "intercept" in e.data]
    original, changed = calls
    assert json.loads(original.raw)["result"]["content"][0]["text"] == "3"
    assert json.loads(changed.raw)["result"]["content"][0]["text"] == "forty-two"
    assert original.data["intercept"] == {"rule": 1, "action": "rewrite", "role": "original"}
    assert changed.data["intercept"] == {"rule": 1, "action": "rewrite", "role": "changed"}
    assert changed.data["latency"] >= 0 and "latency" not in original.data  # the answer the client got is paired
    assert read_capture(capture).header["intercept_rules"] == [json.loads(rules.read_text())["rules"][0]]


def test_drop_delay_and_error_rules_act_through_the_tap_on_a_real_server(tmp_path):
    rules = rules_file(
        tmp_path,
        {"when": {"dir": "c2s", "method": "tools/list"}, "do": "delay", "ms": 300},
        {"when": {"dir": "s2c", "method": "tools/call", "tool": "add"}, "do": "drop"},
        {"when": {"dir": "c2s", "method": "tools/call", "tool": "echo"}, "do": "error", "code": -32000,
         "message": "injected"},
    )
    session = INIT + b"".join(line + b"\n" for line in (
        b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}',
        b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}',
        b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}',
        b'{"jsonrpc":"2.0","id":5,"method":"ping"}',
    ))
    capture = tmp_path / "c.jsonl"
    tapped = run(with_rules(rules, *DEMO, capture=capture), stdin=session)
    assert tapped.returncode == 0, tapped.stderr
    got = answers(tapped.stdout)
    assert got[4] == {"jsonrpc": "2.0", "id": 4, "error": {"code": -32000, "message": "injected"}}
    assert 3 not in got  # dropped on its way back
    assert {1, 2, 5} <= set(got) and "tools" in got[2]["result"]  # the delayed list still got its answer
    assert list(got).index(5) < list(got).index(2)  # the ping overtook the delayed list
    assert marked(capture) == [
        ("c2s", "tools/call", {"rule": 3, "action": "error", "role": "held"}),
        ("s2c", "#4", {"rule": 3, "action": "error", "role": "answer"}),
        ("s2c", "#3", {"rule": 2, "action": "drop", "role": "dropped"}),
        ("c2s", "tools/list", {"rule": 1, "action": "delay", "role": "delayed", "ms": 300,
                               "arrived": pytest.approx(marked(capture)[3][2]["arrived"])}),
    ]
    listed = next(e for e in messages(capture) if e.rpc and e.rpc.method == "tools/list")
    assert listed.t - listed.data["intercept"]["arrived"] >= 0.29  # recorded when it went on, and when it came
    echo = [e for e in messages(capture) if e.rpc and e.rpc.id == 4]
    assert echo[1].data["latency"] >= 0  # the held request is paired with the tap's answer
    # the server never got the held request
    assert b'"id":4' not in b"".join(e.raw for e in messages(capture) if e.dir == "c2s" and "intercept" not in e.data)


def test_a_delayed_answer_of_a_server_that_exits_at_once_still_reaches_the_client(tmp_path):
    rules = rules_file(tmp_path, {"when": {"dir": "s2c"}, "do": "delay", "ms": 400})
    server = [sys.executable, "-c", "import sys\nline = sys.stdin.readline()\n"
              "print('{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}', flush=True)\n"]
    capture = tmp_path / "c.jsonl"
    began = time.monotonic()
    tapped = run(with_rules(rules, *server, capture=capture), stdin=b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
    assert tapped.returncode == 0, tapped.stderr
    assert tapped.stdout == b'{"jsonrpc":"2.0","id":1,"result":{}}\n'
    assert time.monotonic() - began >= 0.4
    (_, _, mark), = marked(capture)
    assert mark["role"] == "delayed" and mark["ms"] == 400
    exited, = lifecycle(read_capture(capture), "exited")
    assert exited.data["code"] == 0


@pytest.mark.report("faults", "tap --rules with a rules file that cannot be used (not JSON, an unknown action) "
                    "or a pause rule: one sentence, exit 2, the server never started", surface="CLI",
                    advice="fix the rules file as the sentence says; pause rules work in the window's Breakpoints")
@pytest.mark.parametrize(("content", "sentence"), [
    ("{not json", "not JSON"),
    ('{"rules": [{"when": {"dir": "s2c"}, "do": "explode"}]}', "rule 1: unknown action \"explode\""),
    ('{"rules": [{"when": {"dir": "c2s", "method": "tools/call"}, "do": "pause"}]}',
     "rule 1 pauses messages, which needs a person to decide; the tap runs without one"),
], ids=["not-json", "unknown-action", "pause"])
def test_a_bad_rules_file_exits_2_with_one_sentence_and_the_server_never_starts(tmp_path, content, sentence,
                                                                               report):
    rules = tmp_path / "rules.json"
    rules.write_text(content)
    marker = tmp_path / "started"
    server = [sys.executable, "-c", f"open({str(marker)!r}, 'w').close()"]
    result = warm_cli.run(with_rules(rules, *server, capture=tmp_path / "c.jsonl"), input=b"",
                          capture_output=True, timeout=TIMEOUT, cwd=ROOT)
    assert result.returncode == 2
    assert result.stdout == b""
    text = result.stderr.decode()
    assert text.count("\n") == 1 and text.startswith("mcp-inspector tap: ") and sentence in text
    assert not marker.exists() and not (tmp_path / "c.jsonl").exists()
    report.saw(text.strip())


@pytest.mark.skipif(not splice.available(), reason="tee/splice between pipes is Linux only")
def test_rules_that_are_all_disabled_leave_the_relay_on_its_zero_copy_path_and_enabled_ones_frame_both_ways(
        tmp_path):
    rule = {"when": {"dir": "s2c", "method": "tools/call"}, "do": "drop"}
    spliced = {}
    for enabled in (False, True):
        rules = rules_file(tmp_path, {**rule, "enabled": enabled})
        capture = tmp_path / f"c-{enabled}.jsonl"
        tapped = run(with_rules(rules, *DEMO, capture=capture), stdin=INIT)
        assert tapped.returncode == 0, tapped.stderr
        assert b'"id":1' in tapped.stdout
        spawned, = lifecycle(read_capture(capture), "spawned")
        spliced[enabled] = spawned.data["zero_copy"]
    assert spliced == {False: ["stdin", "stdout"], True: []}


def test_a_signal_to_the_tap_while_a_request_waits_out_a_long_delay_ends_it_at_once_and_records_it(tmp_path):
    rules = rules_file(tmp_path, {"when": {"dir": "c2s", "method": "tools/list"}, "do": "delay", "ms": 600_000})
    capture = tmp_path / "c.jsonl"
    client = subprocess.Popen(with_rules(rules, *DEMO, capture=capture), stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    try:
        assert client.stdin is not None and client.stdout is not None
        client.stdin.write(INIT + b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n')  # one write: one read
        client.stdin.flush()
        assert b'"id":1' in client.stdout.readline()  # the relay has read the list too, and holds it
        began = time.monotonic()
        client.terminate()
        client.wait(timeout=TIMEOUT)
        assert time.monotonic() - began < 8  # not the rule's ten minutes, nor the 10 s the tap gives held ones
    finally:
        stop(client)
    # the signal cut the tap's wait for its recorder short (it exits at once), and the recorder, in a session of
    # its own, still finishes the capture: wait for it to get that far
    wait_until(lambda: any(e.rpc and e.rpc.method == "tools/list" for e in messages(capture)), TIMEOUT,
               "the recorder to record the held request")
    listed, = [e for e in messages(capture) if e.rpc and e.rpc.method == "tools/list"]
    assert listed.data["intercept"]["role"] == "dropped"  # the server was gone before its delay was over
    notes = [e.data["text"] for e in read_capture(capture).events if e.kind == Kind.NOTE]
    assert "rule 1 (delay) held a message until the server's stdin was closed: it was never delivered" in notes
