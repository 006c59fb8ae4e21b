"""`record --rules FILE` (issue 40): a bad rules file or a pause rule is one sentence and exit 2 before anything
starts (no server launched, no capture written); each action does what it says on the demo server, and the
capture keeps what it did, marked."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from helpers import DEMO, cli

from inspector.core.capture import read_capture
from inspector.core.exits import EXIT_BAD_INPUT, EXIT_OK, EXIT_RPC_ERROR, EXIT_TIMEOUT
from inspector.core.wire.events import Direction, Event
from inspector.core.wire.intercepted import mark_of

ECHO = {"method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hello"}}}
ADVICE = "Fix the rules file where the sentence says (docs/user-guide.md, Intercept rules, lists the keys)."


def refused(tmp_path: Path, rules_text: str | bytes) -> tuple[str, float]:
    """Run record with this rules file on a command that would leave a trace; check nothing started."""
    rules = tmp_path / "rules.json"
    rules.write_bytes(rules_text.encode() if isinstance(rules_text, str) else rules_text)
    out = tmp_path / "c.jsonl"
    trace = tmp_path / "launched"
    started = time.monotonic()
    done = cli("record", "--out", str(out), "--rules", str(rules), "--",
               sys.executable, "-c", f"open({str(trace)!r}, 'w')")
    elapsed = time.monotonic() - started
    assert done.returncode == EXIT_BAD_INPUT, done.stderr
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"mcp-inspector: {rules}"), done.stderr
    assert not trace.exists(), "the server was launched"
    assert not out.exists(), "a capture was written"
    return lines[0].replace(str(tmp_path) + "/", ""), elapsed


@pytest.mark.report("faults", "record --rules: a rules file that is not JSON", surface="CLI", group="input",
                    advice=ADVICE)
def test_a_rules_file_that_is_not_json_is_refused_before_anything_starts(tmp_path, report):
    sentence, elapsed = refused(tmp_path, '{"rules": [')
    assert sentence.startswith("mcp-inspector: rules.json: not JSON (")
    report.saw(sentence, seconds=elapsed)


@pytest.mark.report("faults", "record --rules: a rule with an unknown key", surface="CLI", group="input",
                    advice=ADVICE)
def test_a_rule_with_an_unknown_key_is_refused_before_anything_starts(tmp_path, report):
    sentence, elapsed = refused(tmp_path, json.dumps({"rules": [{"do": "delay", "ms": 5, "wait": 3}]}))
    assert sentence == "mcp-inspector: rules.json: rule 1: unknown key 'wait' for a delay rule"
    report.saw(sentence, seconds=elapsed)


@pytest.mark.report("faults", "record --rules: a rule with an unknown action", surface="CLI", group="input",
                    advice=ADVICE)
def test_a_rule_with_an_unknown_action_is_refused_before_anything_starts(tmp_path, report):
    sentence, elapsed = refused(tmp_path, json.dumps({"rules": [{"do": "delay", "ms": 1}, {"do": "explode"}]}))
    assert sentence == ('mcp-inspector: rules.json: rule 2: unknown action "explode" (one of rewrite, delay, drop, '
                        'error, pause)')
    report.saw(sentence, seconds=elapsed)


@pytest.mark.report("faults", "record --rules: a rewrite whose pointer is not a JSON Pointer", surface="CLI",
                    group="input", advice=ADVICE)
def test_a_rewrite_with_a_bad_pointer_is_refused_before_anything_starts(tmp_path, report):
    sentence, elapsed = refused(tmp_path, json.dumps({"rules": [{"do": "rewrite", "set": {"result/x": 1}}]}))
    assert sentence == ("mcp-inspector: rules.json: rule 1: 'result/x' is not a JSON Pointer (RFC 6901: it starts "
                        'with "/", as in "/result/content/0/text")')
    report.saw(sentence, seconds=elapsed)


@pytest.mark.report("faults", "record --rules: a match pattern that is no regular expression", surface="CLI",
                    group="input", advice=ADVICE)
def test_a_bad_pattern_is_refused_before_anything_starts(tmp_path, report):
    sentence, elapsed = refused(tmp_path, json.dumps({"rules": [{"when": {"match": "(unclosed"}, "do": "drop"}]}))
    assert sentence.startswith('mcp-inspector: rules.json: rule 1: the pattern "(unclosed" cannot be read ('), sentence
    report.saw(sentence, seconds=elapsed)


@pytest.mark.report("faults", "record --rules: a pause rule, headless", surface="CLI", group="input",
                    advice="Pause in the window (Breakpoints); headless, use delay, drop, error or rewrite.")
def test_a_pause_rule_is_refused_headless_before_anything_starts(tmp_path, report):
    sentence, elapsed = refused(tmp_path, json.dumps({"rules": [{"when": {"dir": "c2s"}, "do": "pause"}]}))
    assert sentence == ("mcp-inspector: rules.json: rule 1 pauses messages, which needs a person to decide; record "
                        "runs without one (use the window's Breakpoints, or delay, drop, error or rewrite)")
    report.saw(sentence, seconds=elapsed)


@pytest.mark.integration
def test_a_disabled_pause_rule_is_no_reason_to_refuse(tmp_path):
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps({"rules": [{"do": "pause", "enabled": False}]}))
    done = cli("record", "--out", str(tmp_path / "c.jsonl"), "--rules", str(rules), "--idle", "0",
               "--handshake", "legacy", "--", *DEMO)
    assert done.returncode == EXIT_OK, done.stderr


def test_a_missing_rules_file_is_refused_before_anything_starts(tmp_path):
    out = tmp_path / "c.jsonl"
    done = cli("record", "--out", str(out), "--rules", str(tmp_path / "nope.json"), "--", *DEMO)
    assert done.returncode == EXIT_BAD_INPUT
    assert done.stderr == f"mcp-inspector: {tmp_path / 'nope.json'}: no such rules file\n"
    assert not out.exists()


# -- each action, end to end on the demo server ------------------------------------------------------------------

def record_with(tmp_path: Path, rules: list[dict], *messages: dict, timeout: str = "10"
                ) -> tuple[object, list[Event], dict]:
    (tmp_path / "rules.json").write_text(json.dumps({"rules": rules}))
    (tmp_path / "send.jsonl").write_text("".join(json.dumps(m) + "\n" for m in messages))
    out = tmp_path / "c.jsonl"
    done = cli("record", "--out", str(out), "--send", str(tmp_path / "send.jsonl"), "--rules",
               str(tmp_path / "rules.json"), "--handshake", "legacy", "--timeout", timeout, "--idle", "0", "--",
               *DEMO)
    capture = read_capture(out)
    return done, capture.events, capture.header


def marked(events: list[Event]) -> list[tuple[str | None, str, dict]]:
    return [(e.dir, e.method or "", dict(found)) for e in events if (found := mark_of(e.data)) is not None]


@pytest.mark.integration
def test_a_rewritten_request_reaches_the_server_changed_and_its_answer_says_so(tmp_path):
    rule = {"when": {"dir": "c2s", "method": "tools/call", "tool": "echo"}, "do": "rewrite",
            "set": {"/params/arguments/text": "changed on the way"}}
    done, events, header = record_with(tmp_path, [rule], ECHO)
    assert done.returncode == EXIT_OK, done.stderr
    assert done.stderr == ""
    assert "2 messages marked by --rules (show says what each rule did)" in done.stdout
    assert header["intercept_rules"] == [rule]
    calls = [e for e in events if e.method == "tools/call"]
    assert [mark_of(e.data) for e in calls] == [{"rule": 1, "action": "rewrite", "role": "original"},
                                                 {"rule": 1, "action": "rewrite", "role": "changed"}]
    assert calls[0].json()["params"]["arguments"] == {"text": "hello"}
    assert calls[1].json()["params"]["arguments"] == {"text": "changed on the way"}
    [answer] = [e for e in events if e.dir == Direction.S2C and e.data.get("reply_to") in {c.seq for c in calls}]
    assert answer.data["reply_to"] == calls[1].seq  # the original was never delivered: not paired
    assert answer.json()["result"]["content"][0]["text"] == "changed on the way"
    shown = cli("show", str(tmp_path / "c.jsonl"))
    assert "» original, never delivered: rule 1 (rewrite) changed it (the next message went instead)" in shown.stdout
    assert "» changed by rule 1 (rewrite)" in shown.stdout


@pytest.mark.integration
def test_a_delayed_request_records_its_delay_and_when_it_came(tmp_path):
    done, events, _ = record_with(tmp_path, [{"when": {"dir": "c2s", "method": "tools/list"}, "do": "delay",
                                               "ms": 300}], {"method": "tools/list"})
    assert done.returncode == EXIT_OK, done.stderr
    assert done.stderr == ""
    [listed] = [e for e in events if e.method == "tools/list" and e.dir == Direction.C2S]
    found = mark_of(listed.data)
    assert found is not None and found["role"] == "delayed" and found["ms"] == 300
    assert listed.t >= found["arrived"] + 0.3
    assert "» delayed 300 ms by rule 1 (delay)" in cli("show", str(tmp_path / "c.jsonl")).stdout


@pytest.mark.integration
def test_a_dropped_answer_leaves_its_request_to_time_out_with_status_4(tmp_path):
    done, events, _ = record_with(tmp_path, [{"when": {"dir": "s2c", "method": "tools/call"}, "do": "drop"}], ECHO,
                                  timeout="1")
    assert done.returncode == EXIT_TIMEOUT, done.stderr
    assert done.stderr.startswith("mcp-inspector: no response to tools/call within 1 s"), done.stderr
    [(direction, _, found)] = marked(events)
    assert direction == Direction.S2C and found == {"rule": 1, "action": "drop", "role": "dropped"}
    [dropped] = [e for e in events if mark_of(e.data)]
    assert "reply_to" not in dropped.data  # never delivered: not paired


@pytest.mark.integration
def test_an_error_rule_on_a_request_answers_it_in_place_of_the_server_with_status_5(tmp_path):
    rule = {"when": {"dir": "c2s", "method": "tools/call"}, "do": "error", "code": -32000, "message": "injected"}
    done, events, _ = record_with(tmp_path, [rule], ECHO)
    assert done.returncode == EXIT_RPC_ERROR, done.stderr
    assert done.stderr == ("mcp-inspector: --rules answered 1 request with a JSON-RPC error in the server's place "
                           "(the first: tools/call: injected (code -32000), by rule 1 (error))\n")
    assert [(d, m, f["role"]) for d, m, f in marked(events)] == [(Direction.C2S, "tools/call", "held"),
                                                                 (Direction.S2C, "", "answer")]
    held, answer = (e for e in events if mark_of(e.data))
    assert answer.data["reply_to"] == held.seq
    assert answer.json()["error"] == {"code": -32000, "message": "injected"}
    assert sum(1 for e in events if e.method == "tools/call") == 1  # never written to the server


@pytest.mark.integration
def test_an_error_rule_on_an_answer_replaces_it(tmp_path):
    rule = {"when": {"dir": "s2c", "method": "tools/call", "tool": "echo"}, "do": "error", "code": -32001,
            "message": "replaced"}
    done, events, _ = record_with(tmp_path, [rule], ECHO)
    assert done.returncode == EXIT_RPC_ERROR, done.stderr
    assert [(d, f["role"]) for d, _, f in marked(events)] == [(Direction.S2C, "original"), (Direction.S2C, "changed")]
    original, changed = (e for e in events if mark_of(e.data))
    assert "reply_to" not in original.data and changed.data["reply_to"] is not None
    assert changed.json()["error"]["message"] == "replaced"


@pytest.mark.integration
@pytest.mark.report("faults", "record --rules: a request delayed past --timeout", surface="CLI", group="capture",
                    advice="Give the delay less than --timeout, or raise --timeout: the delay counts against it.")
def test_a_request_delayed_past_its_timeout_is_recorded_as_never_delivered(tmp_path, report):
    rule = {"when": {"dir": "c2s", "method": "tools/call"}, "do": "delay", "ms": 30_000}
    started = time.monotonic()
    done, events, _ = record_with(tmp_path, [rule], ECHO, timeout="1")
    elapsed = time.monotonic() - started
    assert done.returncode == EXIT_TIMEOUT, done.stderr
    assert done.stderr == ("mcp-inspector: no response to tools/call within 1 s; raise --timeout to wait longer (rule "
                           "1 (delay) was still holding the request: its delay counts against --timeout)\n")
    report.saw(f"{done.stderr.strip()}; show: " + cli("show", str(tmp_path / "c.jsonl")).stdout.split("» ")[1]
               .splitlines()[0], seconds=elapsed)
    [(direction, method, found)] = marked(events)
    assert (direction, method, found["role"], found["action"]) == (Direction.C2S, "tools/call", "dropped", "delay")
    assert found["note"] == "it was still held when the session ended or stopped waiting for it"


@pytest.mark.integration
def test_an_error_rule_on_a_server_request_answers_the_server_and_the_session_does_not(tmp_path):
    rule = {"when": {"dir": "s2c", "method": "sampling/createMessage"}, "do": "error", "code": -1,
            "message": "no sampling here"}
    ask = {"method": "tools/call", "params": {"name": "ask_llm", "arguments": {"prompt": "hi"}}}
    (tmp_path / "rules.json").write_text(json.dumps({"rules": [rule]}))
    (tmp_path / "send.jsonl").write_text(json.dumps(ask) + "\n")
    out = tmp_path / "c.jsonl"
    done = cli("record", "--out", str(out), "--send", str(tmp_path / "send.jsonl"), "--rules",
               str(tmp_path / "rules.json"), "--handshake", "legacy", "--answer", "sampling=text:hello", "--idle", "0",
               "--", *DEMO)
    assert done.returncode == EXIT_OK, done.stderr
    events = read_capture(out).events
    assert [(d, f["role"]) for d, _, f in marked(events)] == [(Direction.S2C, "held"), (Direction.C2S, "answer")]
    held, answer = (e for e in events if mark_of(e.data))
    assert answer.data["reply_to"] == held.seq
    assert not [e for e in events if e.dir == Direction.C2S and b"hello" in e.raw], "the session answered too"
    [result] = [e for e in events if e.dir == Direction.S2C and e.data.get("request_method") == "tools/call"]
    assert "no sampling here" in result.json()["result"]["content"][0]["text"]


@pytest.mark.integration
def test_a_capture_recorded_with_rules_replays_as_the_server_saw_it(tmp_path):
    rules = [{"when": {"dir": "c2s", "method": "tools/call", "tool": "echo"}, "do": "rewrite",
              "set": {"/params/arguments/text": "changed on the way"}},
             {"when": {"dir": "s2c", "method": "tools/call", "tool": "add"}, "do": "rewrite",
              "set": {"/result/content/0/text": "forty-two"}},
             {"when": {"dir": "c2s", "method": "prompts/list"}, "do": "error", "code": -32000, "message": "no"}]
    add = {"method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 2}}}
    done, _, _ = record_with(tmp_path, rules, ECHO, add, {"method": "prompts/list"})
    assert done.returncode == EXIT_RPC_ERROR, done.stderr
    replayed = cli("replay", str(tmp_path / "c.jsonl"), "--out", str(tmp_path / "r.jsonl"), "--", *DEMO)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "everything matches the recording" in replayed.stdout + replayed.stderr
    sent = [e.json() for e in read_capture(tmp_path / "r.jsonl").events if e.dir == Direction.C2S and e.method]
    assert {"name": "echo", "arguments": {"text": "changed on the way"}}.items() <= \
        next(m["params"] for m in sent if m["method"] == "tools/call").items()
    assert "prompts/list" not in [m["method"] for m in sent]
