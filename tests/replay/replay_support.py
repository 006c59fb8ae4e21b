"""Helpers for the replay tests (a plain module, so test modules can import it by name; fixtures are in
the conftest): the test servers' argv and the messages the captures are recorded with."""

from __future__ import annotations

import sys
from pathlib import Path

SERVERS = Path(__file__).resolve().parent / "servers"
#: One record or replay run: interpreter start, a few round trips, shutdown.
RUN_TIMEOUT = 60.0

TOOLS_LIST = {"method": "tools/list"}
ECHO = {"method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hi"}}}
GREET = {"method": "tools/call", "params": {"name": "greet", "arguments": {"text": "Ada"}}}
ASK_LLM = {"method": "tools/call", "params": {"name": "ask_llm", "arguments": {"prompt": "Capital of France?"}}}


def versioned(*args: str) -> list[str]:
    """The argv of the test server whose answers change with ``--version``."""
    return [sys.executable, str(SERVERS / "versioned_server.py"), *args]
