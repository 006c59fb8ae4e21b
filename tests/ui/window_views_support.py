"""Helpers of the window-view tests of issue 32 (compare, load, collections, baseline drift): the two-version SDK
server of tests/compare/servers, captures of it recorded with the CLI, and where screenshots go (the test's own
folder, or ``MCP_INSPECTOR_TEST_SHOTS`` when a person wants to look at them)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import warm_python
from helpers import cli

from inspector.core.connect.target import Target

VERSIONED = Path(__file__).resolve().parents[1] / "compare" / "servers" / "versioned_server.py"
LOAD_SERVER = Path(__file__).resolve().parents[1] / "load" / "servers" / "load_server.py"
RUN_TIMEOUT = 90.0
SCRIPT = [{"method": "tools/list"}, {"method": "resources/list"},
          {"method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}}},
          {"method": "tools/call", "params": {"name": "echo", "arguments": {"message": "hi"}}}]


def versioned_target(version: int, name: str = "") -> Target:
    return Target(name=name or f"versioned-{version}", argv=warm_python.command(VERSIONED),
                  env={"TOOLS_VERSION": str(version)})


def record_version(folder: Path, version: int) -> Path:
    send = folder / f"send-{version}.jsonl"
    send.write_text("".join(json.dumps(m) + "\n" for m in SCRIPT))
    out = folder / f"v{version}.jsonl"
    done = cli("record", "--out", str(out), "--send", str(send), "--env", f"TOOLS_VERSION={version}", "--",
               *warm_python.command(VERSIONED), timeout=RUN_TIMEOUT)
    assert done.returncode == 0, done.stderr
    return out


def shot(widget: object, tmp_path: Path, name: str) -> Path:
    """Save a picture of ``widget`` (for a person to look at); returns where."""
    folder = Path(os.environ.get("MCP_INSPECTOR_TEST_SHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    assert widget.grab().save(str(path))  # type: ignore[attr-defined]  # a QWidget
    return path
