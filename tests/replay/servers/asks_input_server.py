"""A tiny 2026-07-28 (modern) stdio MCP server (stdlib only) with one multi round-trip tool.

``tools/call confirm`` first answers ``input_required`` with an elicitation and a fresh random
``requestState``; the retry must carry that very ``requestState`` (a stale one from another run is refused
with an error) and gets the elicited answer back as text.
Spec: https://modelcontextprotocol.io/specification/2026-07-28 (multi round-trip requests).
"""

from __future__ import annotations

import json
import secrets
import sys

VERSION = "2026-07-28"


def send(obj: object) -> None:
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def main() -> int:
    issued: set[str] = set()
    for line in sys.stdin:
        msg = json.loads(line)
        method, msg_id = msg.get("method"), msg.get("id")
        if msg_id is None or method is None:
            continue
        params = msg.get("params") or {}
        if method == "server/discover":
            send({"jsonrpc": "2.0", "id": msg_id, "result": {
                "supportedVersions": [VERSION], "capabilities": {"tools": {}},
                "serverInfo": {"name": "asks-input", "version": "1.0"}}})
        elif method == "tools/call" and params.get("name") == "confirm":
            if "inputResponses" not in params:
                state = secrets.token_hex(8)
                issued.add(state)
                send({"jsonrpc": "2.0", "id": msg_id, "result": {
                    "resultType": "input_required", "requestState": state,
                    "inputRequests": {"ok": {"method": "elicitation/create", "params": {
                        "message": "Proceed?", "requestedSchema": {"type": "object", "properties": {
                            "answer": {"type": "string", "default": "yes"}}}}}}}})
            elif params.get("requestState") not in issued:
                send({"jsonrpc": "2.0", "id": msg_id, "error": {"code": -32602, "message": "unknown requestState"}})
            else:
                issued.discard(params["requestState"])
                answer = params["inputResponses"].get("ok", {})
                send({"jsonrpc": "2.0", "id": msg_id, "result": {
                    "resultType": "complete",
                    "content": [{"type": "text", "text": json.dumps(answer, sort_keys=True)}]}})
        else:
            send({"jsonrpc": "2.0", "id": msg_id, "error": {"code": -32601, "message": f"Method not found: {method}"}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
