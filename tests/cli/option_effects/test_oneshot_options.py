"""The options of ``call`` (shared by the other one-shot commands) besides its target options, and those of
``complete``: each observed in the output, the server's log or the capture."""

from __future__ import annotations

import json
import sys

from helpers import ROOT
from option_effects_support import ProbeLog, inspector, messages, on_terminal, probe

from inspector.core.capture import read_capture
from inspector.core.wire.events import Direction


def test_json_handshake_protocol_version_root_answer_and_out_of_call_reach_the_terminal_and_the_server(tmp_path):
    """One run on a terminal: --json prints one line (a terminal gets indented JSON otherwise: see the next
    test); --handshake legacy and --protocol-version reach the server; --root answers roots/list with the
    folder's URI; --answer answers the elicitation and the sampling request; --out saves the session."""
    log = ProbeLog(tmp_path / "server.log")
    root = tmp_path / "project"
    root.mkdir()
    out = tmp_path / "call.jsonl"
    code, printed, stderr = on_terminal(
        "call", "ask", "--json", "--handshake", "legacy", "--protocol-version", "2025-06-18", "--root", str(root),
        "--answer", "elicitation=accept-defaults", "--answer", "sampling=text:probe-sampled", "--out", str(out),
        "--", *probe(log.path))
    assert code == 0, stderr
    # --json: one line, even on a terminal
    assert printed.count("\n") == 1 and printed.endswith("\n"), printed
    answers = json.loads(json.loads(printed)["content"][0]["text"])
    # --handshake legacy: no server/discover probe; --protocol-version: the revision initialize asked for
    assert log.methods()[0] == "initialize" and "server/discover" not in log.methods()
    assert log.asked_revisions() == ["2025-06-18"]
    # --root: the folder, as a file:// URI
    assert answers["roots/list"] == {"roots": [{"uri": root.as_uri(), "name": "project"}]}
    # --answer elicitation=accept-defaults and sampling=text:...
    assert answers["elicitation/create"] == {"action": "accept", "content": {"name": "Ada"}}
    assert answers["sampling/createMessage"]["content"] == {"type": "text", "text": "probe-sampled"}
    # --out: the capture holds the session
    calls = messages(read_capture(out), Direction.C2S, "tools/call")
    assert [c.json()["params"]["name"] for c in calls] == ["ask"]


def test_args_go_under_the_words_and_a_terminal_gets_indented_json_without_json(tmp_path):
    """--args: a JSON object of arguments, which KEY=VALUE words go over; without --json a terminal gets the
    result indented over several lines."""
    code, printed, stderr = on_terminal("call", "echo", "text=from-a-word", "--args", '{"text": "over", "n": 7}',
                                        "--", *probe(tmp_path / "server.log"))
    assert code == 0, stderr
    assert printed.count("\n") > 1, printed
    assert json.loads(json.loads(printed)["content"][0]["text"]) == {"n": 7, "text": "from-a-word"}


def test_text_prints_only_the_text_of_the_result(tmp_path):
    done, _ = inspector("call", "echo", "text=plain", "--text", "--", *probe(tmp_path / "server.log"))
    assert done.returncode == 0, done.stderr
    assert done.stdout == '{"text": "plain"}\n'


def test_complete_prompt_asks_about_an_argument_of_that_prompt(tmp_path):
    done, _ = inspector("complete", "--prompt", "greet", "name", "Ad", "--text", "--", *probe(tmp_path / "s.log"))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "ref/prompt:greet:name:Ad\n"


def test_complete_template_asks_about_a_variable_of_that_resource_template(tmp_path):
    done, _ = inspector("complete", "--template", "probe://item/{id}", "id", "4", "--text", "--",
                        *probe(tmp_path / "s.log"))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "ref/resource:probe://item/{id}:id:4\n"


TASK_SERVER = ROOT / "tests" / "core" / "servers" / "task_server.py"


def test_task_runs_an_optional_tool_as_a_task_and_prints_its_result(tmp_path):
    """--task: slow-sum (taskSupport optional) is called with params.task, followed with tasks/get and
    tasks/result, and the task's result is what is printed; without --task the same call is a plain one."""
    out = tmp_path / "task.jsonl"
    done, _ = inspector("call", "slow-sum", "a=2", "b=3", "--task", "--json", "--out", str(out),
                        "--", sys.executable, str(TASK_SERVER), "--legacy")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["content"] == [{"type": "text", "text": "5"}]
    capture = read_capture(out)
    [call] = messages(capture, Direction.C2S, "tools/call")
    assert "task" in call.json()["params"]
    assert messages(capture, Direction.C2S, "tasks/get") and messages(capture, Direction.C2S, "tasks/result")
    plain = tmp_path / "plain.jsonl"
    done, _ = inspector("call", "slow-sum", "a=2", "b=3", "--json", "--out", str(plain),
                        "--", sys.executable, str(TASK_SERVER), "--legacy")
    assert done.returncode == 0, done.stderr
    [call] = messages(read_capture(plain), Direction.C2S, "tools/call")
    assert "task" not in call.json()["params"] and not messages(read_capture(plain), Direction.C2S, "tasks/get")
