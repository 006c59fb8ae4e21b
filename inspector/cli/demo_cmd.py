"""``mcp-inspector --demo``: a session with the bundled demo server, saved and shown.

Headless until the desktop window exists: it records a short scripted session against
``python -m inspector.demo`` into the captures folder and prints its timeline.
"""

from __future__ import annotations

import datetime as _dt
import sys
from typing import Any

from inspector.cli.main import run_async
from inspector.cli.show_cmd import run_show
from inspector.core.connect.target import Target
from inspector.core.exits import EXIT_OK, EXIT_PROTOCOL
from inspector.core.paths import captures_dir
from inspector.core.record.run import RecordOptions, record

DEMO_SCRIPT: list[dict[str, Any]] = [
    {"method": "tools/list"},
    {"method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hello from mcp-inspector"}}},
    {"method": "tools/call", "params": {"name": "junk_stdout", "arguments": {}}},
    {"method": "resources/list"},
    {"method": "prompts/list"},
]


def demo_command() -> list[str]:
    return [sys.executable, "-m", "inspector.demo"]


def run_demo() -> int:
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = captures_dir() / f"demo-{stamp}.jsonl"
    messages = [{"jsonrpc": "2.0", **m} for m in DEMO_SCRIPT]
    result = run_async(record(RecordOptions(Target(argv=demo_command()), out=out, messages=messages)))
    run_show(out)
    print()
    print(result.summary)
    # the junk on stdout (junk_stdout) is what the demo is there to show, not a failure of the run
    code = EXIT_OK if result.exit_code == EXIT_PROTOCOL else result.exit_code
    if code != EXIT_OK and result.error:
        print(f"mcp-inspector: {result.error}", file=sys.stderr)
    else:
        print(f"saved; open it again with: mcp-inspector show {out}")
    return code
