"""A stdio MCP server that breaks each protocol rule a server can break, exactly once (standard library only).

Scenarios (the first argument):

- ``legacy`` (default): asked for 2025-11-25 it chooses 2025-06-18 (revision-other); asks for roots before
  notifications/initialized (request-before-handshake); its tools/list result has a tool without inputSchema
  (schema), lists echo twice (tool-name), the second time with an outputSchema its call's result then ignores
  (tool-output-schema); on
  tools/call it sends progress for an unknown token, progress that goes back, a list_changed it
  never declared, a sampling request the client never declared, a cancel for a request it never sent, a
  tasks/list request (not in 2025-06-18), a notification with an id, the same ping id twice while the first
  is in flight, a batch, and the call's answer with its id as a string before the right answer.
- ``unknown-revision``: chooses the revision "1999-01-01" and is otherwise well behaved.
- ``modern``: answers server/discover (2026-07-28) and logs on a tools/list that asked for no log level (a
  deprecated feature too: logging, an information).
- ``subscriptions``: 2026-07-28; on subscriptions/listen (asking for tools list changes) it sends a tools
  list_changed on the subscription before acknowledging it (subscription-before-ack), then the acknowledgement,
  then a prompts list_changed the filter did not ask for (subscription-filter), and ends the subscription.
"""

from __future__ import annotations

import json
import sys
from typing import Any

out = sys.stdout.buffer


def send(obj: Any) -> None:
    out.write(json.dumps(obj, separators=(",", ":")).encode() + b"\n")
    out.flush()


def answer(request: dict[str, Any], result: dict[str, Any]) -> None:
    send({"jsonrpc": "2.0", "id": request["id"], "result": result})


INFO = {"name": "broken-protocol-server", "version": "0.0.1"}
TOOL = {"name": "echo", "inputSchema": {"type": "object"}}


def legacy(request: dict[str, Any], chosen: str) -> None:
    method = request.get("method")
    if method == "initialize":
        result = {"protocolVersion": chosen, "capabilities": {"tools": {}}, "serverInfo": INFO}
        if chosen == "2025-06-18":
            # the answer and the early request in one write: the client reads both before it can send
            # notifications/initialized, so the request is recorded before the handshake completes every time
            lines = [{"jsonrpc": "2.0", "id": request["id"], "result": result},
                     {"jsonrpc": "2.0", "id": "early", "method": "roots/list"}]
            out.write(b"".join(json.dumps(line, separators=(",", ":")).encode() + b"\n" for line in lines))
            out.flush()
        else:
            answer(request, result)
    elif method == "tools/list":
        tools = [{"name": "no-schema"}, TOOL, {**TOOL, "outputSchema": {"type": "object", "required": ["n"]}}] \
            if chosen == "2025-06-18" else [TOOL]
        answer(request, {"tools": tools})
    elif method == "tools/call" and chosen == "2025-06-18":
        misbehave(request)
    elif method == "tools/call":
        answer(request, {"content": [{"type": "text", "text": "ok"}]})
    elif "id" in request and "method" in request:
        answer(request, {})


def misbehave(request: dict[str, Any]) -> None:
    # every line in one write: the client reads them all before it can answer any, so "in flight" and "before
    # the answer" hold every time, whatever the machine's timing
    lines: list[Any] = []
    queue = lines.append
    token = request.get("params", {}).get("_meta", {}).get("progressToken")
    queue({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "nobody", "progress": 1}})
    queue({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": 5}})
    queue({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": 3}})
    queue({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    queue({"jsonrpc": "2.0", "id": "sample", "method": "sampling/createMessage",
          "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5}})
    queue({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "never-sent"}})
    queue({"jsonrpc": "2.0", "id": "tasks", "method": "tasks/list"})
    queue({"jsonrpc": "2.0", "id": "with-id", "method": "notifications/broken"})
    queue({"jsonrpc": "2.0", "id": "dup", "method": "ping"})
    queue({"jsonrpc": "2.0", "id": "dup", "method": "ping"})
    queue([{"jsonrpc": "2.0", "method": "notifications/batched"}])
    msg_id = request["id"]
    queue({"jsonrpc": "2.0", "id": str(msg_id) if isinstance(msg_id, int) else 0, "result": {"content": []}})
    queue({"jsonrpc": "2.0", "id": request["id"], "result": {"content": [{"type": "text", "text": "ok"}]}})
    out.write(b"".join(json.dumps(line, separators=(",", ":")).encode() + b"\n" for line in lines))
    out.flush()


def modern(request: dict[str, Any]) -> None:
    method = request.get("method")
    meta = {"_meta": {"io.modelcontextprotocol/serverInfo": INFO}}
    cache = {"resultType": "complete", "cacheScope": "public", "ttlMs": 0}
    if method == "server/discover":
        answer(request, {**meta, **cache, "supportedVersions": ["2026-07-28"],
                         "capabilities": {"tools": {"listChanged": True}, "prompts": {"listChanged": True},
                                          "logging": {}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "unasked"}})
        answer(request, {**meta, **cache, "tools": [TOOL]})
    elif "id" in request and "method" in request:
        answer(request, {**meta, "resultType": "complete"})


def subscriptions(request: dict[str, Any]) -> None:
    method = request.get("method")
    if method != "subscriptions/listen":
        return modern(request)
    on = {"_meta": {"io.modelcontextprotocol/subscriptionId": request["id"]}}
    send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": on})
    send({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
          "params": {**on, "notifications": {"toolsListChanged": True}}})
    send({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed", "params": on})
    answer(request, {**on, "resultType": "complete"})


def main() -> None:
    scenario = sys.argv[1] if len(sys.argv) > 1 else "legacy"
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        message = json.loads(line)
        if not isinstance(message, dict) or "method" not in message:
            continue  # answers to our own requests
        if scenario == "modern":
            modern(message)
        elif scenario == "subscriptions":
            subscriptions(message)
        else:
            legacy(message, "1999-01-01" if scenario == "unknown-revision" else "2025-06-18")


if __name__ == "__main__":
    main()
