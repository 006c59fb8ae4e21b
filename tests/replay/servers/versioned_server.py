"""A tiny legacy stdio MCP server (stdlib only) whose answers depend on ``--version``: the "changed server"
of the replay tests.

Tools: ``echo`` (the same in every version) and ``greet`` (``hello, NAME (vN)``; from version 2 on it also
logs a ``notifications/message`` before answering). ``--exit-on-greet`` makes it exit with code 3 when greet
is called; ``--exit-at-once`` makes it exit with code 3 before reading anything; ``--refuse-initialize``
answers initialize with an error.
"""

from __future__ import annotations

import argparse
import json
import sys


def send(obj: object) -> None:
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def tool(name: str, description: str) -> dict[str, object]:
    return {"name": name, "description": description,
            "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--version", type=int, default=1)
    parser.add_argument("--exit-on-greet", action="store_true")
    parser.add_argument("--exit-at-once", action="store_true")
    parser.add_argument("--refuse-initialize", action="store_true")
    args = parser.parse_args()
    if args.exit_at_once:
        sys.stderr.write("versioned: refusing to start\n")
        return 3
    for raw in sys.stdin.buffer:  # bytes: a line that is not UTF-8 gets a parse error, not a crash
        line = raw.decode("utf-8", errors="replace")
        if not line.strip():
            continue
        try:
            msg = json.loads(line)
        except ValueError:
            send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
            continue
        method, msg_id = msg.get("method"), msg.get("id")
        if msg_id is None or method is None:
            continue  # a notification, or an answer to us
        if method == "initialize" and args.refuse_initialize:
            send({"jsonrpc": "2.0", "id": msg_id, "error": {"code": -32600, "message": "this build refuses clients"}})
        elif method == "initialize":
            send({"jsonrpc": "2.0", "id": msg_id, "result": {
                "protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}, "logging": {}},
                "serverInfo": {"name": "versioned", "version": f"{args.version}.0"}}})
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": msg_id, "result": {"tools": [tool("echo", "Echo the text"),
                                                                      tool("greet", "Greet someone")]}})
        elif method == "tools/call":
            name = msg["params"]["name"]
            text = msg["params"].get("arguments", {}).get("text", "")
            if name == "greet":
                if args.exit_on_greet:
                    sys.stderr.write("versioned: greet is broken in this build\n")
                    return 3
                if args.version >= 2:
                    send({"jsonrpc": "2.0", "method": "notifications/message",
                          "params": {"level": "info", "data": f"greeting {text}"}})
                text = f"hello, {text} (v{args.version})"
            send({"jsonrpc": "2.0", "id": msg_id, "result": {"content": [{"type": "text", "text": text}]}})
        elif method == "ping":
            send({"jsonrpc": "2.0", "id": msg_id, "result": {}})
        else:
            send({"jsonrpc": "2.0", "id": msg_id, "error": {"code": -32601, "message": f"Method not found: {method}"}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
