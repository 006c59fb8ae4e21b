"""Helpers of the comparison tests: the two-version SDK server (servers/versioned_server.py), recording a
capture of it with the CLI, and writing a capture by hand."""

from __future__ import annotations

import json
from pathlib import Path

import warm_python
from helpers import cli

SERVER = Path(__file__).parent / "servers" / "versioned_server.py"
#: Recording starts the SDK server (1-4 s on the shared 2-core machine); bounded generously.
RUN_TIMEOUT = 90.0
#: What the captures ask: the lists, then two calls whose answers are compared.
SCRIPT = [
    {"method": "tools/list"},
    {"method": "resources/list"},
    {"method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}}},
    {"method": "tools/call", "params": {"name": "echo", "arguments": {"message": "hi"}}},
]


def server_options(version: int) -> list[str]:
    """The options and command after which the CLI runs ``version`` of the server."""
    return ["--env", f"TOOLS_VERSION={version}", "--", *warm_python.command(SERVER)]


def record_version(folder: Path, version: int, script: list[dict[str, object]] = SCRIPT) -> Path:
    send = folder / f"send-v{version}.jsonl"
    send.write_text("".join(json.dumps(m) + "\n" for m in script), encoding="utf-8")
    out = folder / f"v{version}.jsonl"
    done = cli("record", "--out", str(out), "--send", str(send), *server_options(version), timeout=RUN_TIMEOUT)
    assert done.returncode == 0, done.stderr
    return out


def write_capture(path: Path, exchanges: list[tuple[dict[str, object], dict[str, object] | None, float]],
                  *, server: str = "hand-written", version: str = "1") -> Path:
    """A capture (format version 1, as docs/capture-format.md says) of an ``initialize`` and then ``exchanges``:
    each a request (its id is given here), its answer (None: no answer came) and the answer's latency in seconds."""
    header = {"format": "mcp-inspector-capture", "version": 1, "created": "2026-12-04T00:00:00+00:00",
              "target": {"transport": "stdio", "argv": ["server"], "cwd": None, "env": {}, "redacted": True}}
    initialize = ({"method": "initialize", "params": {"protocolVersion": "2025-11-25"}},
                  {"result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                              "serverInfo": {"name": server, "version": version}}}, 0.001)
    lines = [json.dumps(header)]
    seq = 0
    for number, (request, answer, latency) in enumerate([initialize, *exchanges], 1):
        seq += 1
        lines.append(json.dumps({"seq": seq, "t": seq / 100, "wall": 1.0, "kind": "message", "dir": "c2s",
                                 "raw": json.dumps({"jsonrpc": "2.0", "id": number, **request})}))
        if answer is None:
            continue
        asked = seq
        seq += 1
        lines.append(json.dumps({"seq": seq, "t": seq / 100, "wall": 1.0, "kind": "message", "dir": "s2c",
                                 "raw": json.dumps({"jsonrpc": "2.0", "id": number, **answer}),
                                 "data": {"reply_to": asked, "latency": latency,
                                          "request_method": request["method"]}}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
