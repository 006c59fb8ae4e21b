"""A capture to serve: the demo server recorded in the test session (tools/list and add(2, 3))."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import DEMO, cli

SCRIPT = [{"method": "tools/list"}, {"method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}}}]


@pytest.fixture(scope="module")
def demo_capture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo server recorded answering tools/list and add(2, 3), with the initialize handshake."""
    folder = tmp_path_factory.mktemp("served")
    send = folder / "send.jsonl"
    send.write_text("".join(json.dumps(m) + "\n" for m in SCRIPT), encoding="utf-8")
    out = folder / "demo.jsonl"
    result = cli("record", "--out", str(out), "--send", str(send), "--handshake", "legacy", "--", *DEMO, timeout=60)
    assert result.returncode == 0, result.stderr
    return out
