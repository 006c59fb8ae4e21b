"""--config FILE --server NAME on the commands that connect (issue 18 point 3): a client's config entry is
run exactly as the client would run it, and a wrong name gets a sentence naming what there is."""

from __future__ import annotations

import json
import sys

import pytest
from integration.integration_support import run_inspector

from inspector.core.capture import read_capture
from inspector.core.wire.events import Kind, Lifecycle

pytestmark = pytest.mark.integration


@pytest.fixture
def claude_config(tmp_path):
    path = tmp_path / "claude_desktop_config.json"
    path.write_text(json.dumps({"mcpServers": {
        "time": {"command": sys.executable, "args": ["-m", "mcp_server_time", "--local-timezone=UTC"]},
        "demo": {"command": sys.executable, "args": ["-m", "inspector.demo"], "env": {"DEMO_FLAG": "1"}},
    }}))
    return path


def test_record_runs_the_config_entry_named_by_server(claude_config, tmp_path):
    out = tmp_path / "s.jsonl"
    done = run_inspector(["record", "--config", str(claude_config), "--server", "time", "--out", str(out)])
    assert done.returncode == 0, done.stderr
    capture = read_capture(out)
    spawned = next(e for e in capture.events if e.kind == Kind.LIFECYCLE and e.data["what"] == Lifecycle.SPAWNED)
    assert spawned.data["argv"] == [sys.executable, "-m", "mcp_server_time", "--local-timezone=UTC"]
    assert any(e.kind == Kind.MESSAGE and b"mcp-time" in e.raw for e in capture.events)


def test_call_takes_the_server_from_the_config_too(claude_config):
    done = run_inspector(["call", "add", "a=2", "b=3", "--json", "--config", str(claude_config), "--server", "demo"])
    assert done.returncode == 0, done.stderr
    assert "5" in json.dumps(json.loads(done.stdout))


def test_a_wrong_or_missing_server_name_is_a_sentence_naming_the_servers(claude_config, tmp_path):
    done = run_inspector(["record", "--config", str(claude_config), "--server", "tme", "--out", str(tmp_path / "x")])
    assert done.returncode == 2 and "no server named 'tme'" in done.stderr and "time" in done.stderr
    done = run_inspector(["tools", "--config", str(claude_config)])
    assert done.returncode == 2 and "choose one with --server: time, demo" in done.stderr
    done = run_inspector(["tools", "--config", str(claude_config), "--server", "time", "--", "python", "x.py"])
    assert done.returncode == 2 and "leave out --url and the command" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_window_opens_the_config_entry_too(claude_config):
    from inspector.cli.main import build_parser
    from inspector.core.connect.target import Target

    args = build_parser().parse_args(["--config", str(claude_config), "--server", "demo", "--timeout", "12"])
    target = Target.from_window_args(args, [])
    assert target is not None
    assert (target.name, target.argv, target.env, target.timeout) == \
        ("demo", [sys.executable, "-m", "inspector.demo"], {"DEMO_FLAG": "1"}, 12.0)
