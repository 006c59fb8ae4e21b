"""``mcp-inspector serve CAPTURE`` with ``--fault``, ``--seed`` and ``--rules``, and the capture's server requests,
end to end on stdio: a capture of the demo server recorded in the test, served to raw lines, to our own one-shot
commands and to the Python SDK's client; a bad fault spec and a bad rules file refused before serving."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
import warm_cli
from helpers import DEMO, cli

from inspector.cli.main import main
from inspector.core.capture import read_capture
from inspector.core.exits import EXIT_BAD_INPUT, EXIT_OK, EXIT_RPC_ERROR
from inspector.core.serve.faults import JUNK_LINE, PADDING_KEY
from inspector.core.wire.events import Direction, Kind

RUN_TIMEOUT = 60.0
CLIENT_TIMEOUT = 60.0
ADD = {"name": "add", "arguments": {"a": 2, "b": 3}}
SCRIPT: list[dict[str, Any]] = [{"method": "tools/list"}, {"method": "tools/call", "params": ADD}]
ASK = {"name": "ask_llm", "arguments": {"prompt": "hi"}}


def serve_command(capture: Path, *options: str) -> list[str]:
    return [sys.executable, "-m", "inspector", "serve", str(capture), *options]


def record(folder: Path, name: str, script: list[dict[str, Any]], *options: str) -> Path:
    send = folder / f"{name}-send.jsonl"
    send.write_text("".join(json.dumps(m) + "\n" for m in script), encoding="utf-8")
    out = folder / f"{name}.jsonl"
    result = cli("record", "--out", str(out), "--send", str(send), "--handshake", "legacy", *options, "--", *DEMO,
                 timeout=RUN_TIMEOUT)
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture(scope="module")
def capture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return record(tmp_path_factory.mktemp("faults"), "demo", SCRIPT)


@pytest.fixture(scope="module")
def asking(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo's tools and its ask_llm, whose sampling request the recording client answered (the SDK lists the
    tools to check a result)."""
    return record(tmp_path_factory.mktemp("faults"), "ask", [SCRIPT[0], {"method": "tools/call", "params": ASK}],
                  "--answer", "sampling=text:hello from the model")


def init() -> dict[str, Any]:
    return {"id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                                         "clientInfo": {"name": "t", "version": "1"}}}


def call(msg_id: int) -> dict[str, Any]:
    return {"id": msg_id, "method": "tools/call", "params": ADD}


def drive(capture: Path, messages: list[dict[str, Any]], *options: str) -> tuple[list[str], Any]:
    """Serve ``capture`` to these messages on stdin (then its end): the lines of stdout, and the run."""
    lines = "".join(json.dumps({"jsonrpc": "2.0", **m}) + "\n" for m in messages)
    run = warm_cli.run(serve_command(capture, *options), input=lines, capture_output=True, text=True,
                       timeout=RUN_TIMEOUT, env=dict(os.environ))
    assert run.returncode == EXIT_OK, run.stderr
    return run.stdout.splitlines(), run


def parsed(lines: list[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in lines]


class Served:
    """``serve`` in a process whose stdin stays open: lines written one at a time, stdout read line by line (the
    process is killed after :data:`RUN_TIMEOUT` so a read never hangs the test)."""

    def __init__(self, capture: Path, *options: str) -> None:
        self.process = warm_cli.Popen(serve_command(capture, *options), stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ))
        self.guard = threading.Timer(RUN_TIMEOUT, self.process.kill)
        self.guard.start()

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")
        self.process.stdin.flush()

    def line(self) -> bytes:
        assert self.process.stdout is not None
        return self.process.stdout.readline()

    def end(self) -> tuple[int, str]:
        try:
            if self.process.stdin is not None and not self.process.stdin.closed:
                self.process.stdin.close()
        except BrokenPipeError:
            pass
        status = self.process.wait(timeout=RUN_TIMEOUT)
        self.guard.cancel()
        assert self.process.stderr is not None and self.process.stdout is not None
        err = self.process.stderr.read().decode()
        self.process.stdout.close()
        self.process.stderr.close()
        return status, err


# -- each fault ------------------------------------------------------------------------------------------------


@pytest.mark.integration
def test_latency_holds_each_answer_and_out_records_when_it_went(capture, tmp_path):
    out = tmp_path / "served.jsonl"
    lines, run = drive(capture, [init(), call(1)], "--fault", "latency=300", "--out", str(out))
    assert [m["id"] for m in parsed(lines)] == [0, 1]
    assert "mcp-inspector: faults: each answer waits 300 ms (--seed " in run.stderr
    events = [e for e in read_capture(out).events if e.kind == Kind.MESSAGE]
    asked = next(e for e in events if e.dir == Direction.C2S and e.method == "tools/call")
    answered = next(e for e in events if e.dir == Direction.S2C and e.data.get("request_method") == "tools/call")
    assert answered.t - asked.t >= 0.3


@pytest.mark.integration
def test_error_rate_answers_with_an_internal_error_our_call_shows(capture):
    done = cli("call", "add", "a=2", "b=3", "--", *serve_command(capture, "--fault", "error-rate=1"),
               timeout=RUN_TIMEOUT)
    assert done.returncode == EXIT_RPC_ERROR, done.stderr
    assert "Internal error: a fault injected by mcp-inspector serve (--fault error-rate=1)" in done.stderr


@pytest.mark.integration
def test_a_seed_makes_the_same_answers_fail_again(capture):
    def failed(seed: str) -> list[bool]:
        lines, _ = drive(capture, [init(), *(call(n) for n in range(1, 21))], "--fault", "error-rate=0.5",
                         "--seed", seed)
        return ["error" in m for m in parsed(lines)[1:]]

    first = failed("11")
    assert first == failed("11") and True in first and False in first


@pytest.mark.integration
def test_junk_writes_a_line_that_is_no_json_before_each_answer(capture):
    lines, _ = drive(capture, [init(), call(1)], "--fault", "junk")
    assert lines[0] == lines[2] == JUNK_LINE.decode()
    assert [json.loads(lines[n])["id"] for n in (1, 3)] == [0, 1]


@pytest.mark.integration
def test_a_dropped_method_is_never_answered_and_the_others_are(capture):
    lines, run = drive(capture, [init(), call(1), {"id": 2, "method": "tools/list"}], "--fault", "drop=tools/call")
    assert [m["id"] for m in parsed(lines)] == [0, 2]
    assert "faults: drop 1" in run.stderr


@pytest.mark.integration
def test_close_after_ends_the_twin_with_status_0_while_the_client_still_writes(capture):
    served = Served(capture, "--fault", "close-after=2")
    served.send(init())
    served.send(call(1))
    assert [json.loads(served.line())["id"] for _ in range(2)] == [0, 1]
    assert served.line() == b""  # stdout ends: the twin is gone, stdin still open
    status, err = served.end()
    assert status == EXIT_OK, err
    assert "mcp-inspector: the twin ended after 2 requests, as --fault close-after=2 asked" in err


@pytest.mark.integration
def test_oversize_pads_the_next_answer_past_the_size(capture):
    lines, _ = drive(capture, [init(), call(1), call(2)], "--fault", "oversize=100K")
    assert [len(line) > 100 * 1024 for line in lines] == [False, True, False]
    answer = json.loads(lines[1])
    assert PADDING_KEY in answer["result"]["_meta"] and answer["result"]["structuredContent"] == {"sum": 5}


@pytest.mark.integration
def test_list_changed_comes_every_period_once_the_handshake_is_answered(capture):
    served = Served(capture, "--fault", "list-changed=0.2")
    served.send(init())
    assert json.loads(served.line())["id"] == 0
    ticks = [json.loads(served.line()) for _ in range(2)]
    assert ticks == [{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}] * 2
    status, err = served.end()
    assert status == EXIT_OK, err


# -- rules -----------------------------------------------------------------------------------------------------


@pytest.mark.integration
def test_rules_rewrite_what_the_twin_matches_and_what_it_sends_and_out_keeps_the_marks(capture, tmp_path):
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps({"rules": [
        {"when": {"dir": "c2s", "tool": "add"}, "do": "rewrite", "set": {"/params/arguments/b": 3}},
        {"when": {"dir": "s2c", "tool": "add"}, "do": "rewrite", "set": {"/result/content/0/text": "five"}}]}),
        encoding="utf-8")
    out = tmp_path / "served.jsonl"
    done = cli("call", "add", "a=2", "b=40", "--json", "--", *serve_command(capture, "--rules", str(rules), "--out",
                                                                              str(out)), timeout=RUN_TIMEOUT)
    assert done.returncode == EXIT_OK, done.stderr
    assert json.loads(done.stdout)["content"][0]["text"] == "five"  # b=40 became the recorded b=3, then rewritten
    roles = [(e.dir, e.data["intercept"]["role"]) for e in read_capture(out).events if "intercept" in e.data]
    assert roles == [(Direction.C2S, "original"), (Direction.C2S, "changed"), (Direction.S2C, "original"),
                     (Direction.S2C, "changed")]


@pytest.mark.integration
def test_an_error_rule_answers_in_the_twins_place(capture, tmp_path):
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps({"rules": [{"when": {"dir": "c2s", "method": "tools/call"}, "do": "error",
                                            "code": -32050, "message": "refused by a rule"}]}), encoding="utf-8")
    done = cli("call", "add", "a=2", "b=3", "--", *serve_command(capture, "--rules", str(rules)), timeout=RUN_TIMEOUT)
    assert done.returncode == EXIT_RPC_ERROR and "refused by a rule" in done.stderr


# -- bad options: one sentence before serving (in process: nothing is served) -----------------------------------


@pytest.mark.report("faults", "serve --fault with a spec it cannot honour", surface="CLI", group="input",
                    advice="Write the fault as --help lists them, e.g. --fault latency=200 or --fault error-rate=0.1.")
def test_a_bad_fault_spec_is_one_sentence_and_exit_2_before_serving(tmp_path, capsys, report):
    assert main(["serve", str(tmp_path / "any.jsonl"), "--fault", "latency=slow"]) == EXIT_BAD_INPUT
    captured = capsys.readouterr()
    report.saw(captured.err)
    assert captured.err == ("mcp-inspector: --fault latency=slow: 'slow' is not a number of milliseconds up to "
                            "3,600,000, or MIN-MAX\n")
    assert captured.out == ""


@pytest.mark.report("faults", "serve --rules with a file it cannot use", surface="CLI", group="input",
                    advice="Fix the rule the sentence names; a pause rule needs the window (Breakpoints), serve "
                           "runs without a person to decide.")
def test_a_bad_rules_file_is_one_sentence_and_exit_2_before_serving(tmp_path, capsys, report):
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps({"rules": [{"when": {"dir": "c2s"}, "do": "pause"}]}), encoding="utf-8")
    assert main(["serve", str(tmp_path / "any.jsonl"), "--rules", str(rules)]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    report.saw(err)
    assert err == (f"mcp-inspector: {rules}: rule 1 pauses messages, which needs a person to decide; serve runs "
                   "without one (use the window's Breakpoints, or delay, drop, error or rewrite)\n")
    rules.write_text("{not json", encoding="utf-8")
    assert main(["serve", str(tmp_path / "any.jsonl"), "--rules", str(rules)]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert err.startswith(f"mcp-inspector: {rules}") and err.count("\n") == 1


# -- the capture's server requests -----------------------------------------------------------------------------


@pytest.mark.integration
def test_our_call_answers_the_served_sampling_request_and_gets_the_recorded_result(asking, tmp_path):
    out = tmp_path / "served.jsonl"
    done = cli("call", "ask_llm", "prompt=hi", "--json", "--answer", "sampling=text:from the one-shot", "--",
               *serve_command(asking, "--out", str(out)), timeout=RUN_TIMEOUT)
    assert done.returncode == EXIT_OK, done.stderr
    assert json.loads(done.stdout)["content"][0]["text"] == "hello from the model"  # as recorded
    messages = [e for e in read_capture(out).events if e.kind == Kind.MESSAGE]
    asked = next(e for e in messages if e.dir == Direction.S2C and e.method == "sampling/createMessage")
    answer = next(e for e in messages if e.dir == Direction.C2S and e.data.get("request_method") ==
                  "sampling/createMessage")
    assert messages.index(asked) < messages.index(answer)
    assert answer.json()["result"]["content"]["text"] == "from the one-shot"  # the client's answer, recorded
    recorded = next(e for e in read_capture(asking).events if e.method == "sampling/createMessage")
    assert asked.json()["params"] == recorded.json()["params"]


async def sdk_sampling(capture: Path) -> tuple[str, list[str]]:
    from mcp import types
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    asked: list[str] = []

    async def sample(context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        asked.append(params.messages[0].content.text)  # type: ignore[union-attr]  # the recorded prompt: text
        return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text="sdk model"),
                                         model="test")

    server = StdioServerParameters(command=sys.executable, args=["-m", "inspector", "serve", str(capture)],
                                   env=dict(os.environ))
    with anyio.fail_after(CLIENT_TIMEOUT):
        async with stdio_client(server) as (read, write), \
                ClientSession(read, write, sampling_callback=sample) as session:
            await session.initialize()
            result = await session.call_tool("ask_llm", {"prompt": "hi"})
    return result.content[0].text, asked  # type: ignore[union-attr]  # the demo answers text


@pytest.mark.integration
def test_the_sdks_sampling_callback_is_asked_what_the_capture_asked_before_the_recorded_result(asking):
    text, asked = anyio.run(sdk_sampling, asking)
    assert asked == ["hi"]
    assert text == "hello from the model"
