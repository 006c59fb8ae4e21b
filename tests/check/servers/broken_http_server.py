"""Streamable HTTP servers (standard library only) that break the rules `mcp-inspector check` probes beside
the official conformance suite's generic checks, one way each.

``python broken_http_server.py MODE PORT_FILE`` binds 127.0.0.1 on an ephemeral port, writes the port to
PORT_FILE once it listens and serves ``/mcp`` until killed. Modes:

- ``modern``: a 2026-07-28 server, below;
- ``modern-case-sensitive``: the same, and it also refuses (400, -32020) a request whose header is not
  spelled exactly ``Mcp-Method`` (http-standard-headers-lenient), and a call whose Mcp-Param-Region is not
  the body's value byte for byte, Base64 left undecoded (http-param-headers-decoded);
- ``spaced-session-id``: a 2025-11-25 server whose session id has a space in it (http-session-id-ascii);
- ``initialized-200``: a 2025-11-25 server that answers the handshake's notifications/initialized with HTTP 200
  and a body, every other notification with 202 (http-notification-202);
- ``one-at-a-time``: the ``modern`` server that refuses (409) a tools/list arriving while another is in
  hand: it holds each tools/list until another request comes or a second has passed
  (http-concurrent-requests).
- ``modern-streams``: the ``modern`` server that also answers on event streams, and gets them wrong: it refuses
  (403) any request with an Origin, its own too (http-loopback-accepted); tools/list has a tool with no
  description (tools-listed); subscriptions/listen is acknowledged with one list more than asked, then brings
  an untagged tools/list_changed and a tagged prompts/list_changed (subscription-notifications-tagged,
  subscription-filter-honored); resources/read of its resource sends a log message nobody asked for and an
  elicitation/create request of its own before the result (no-log-without-log-level,
  no-requests-on-response-streams), and refuses one that carries inputResponses (-32602,
  input-responses-unasked-ignored).

The ``modern`` server answers server/discover well enough for a client to talk to it (the handshake passes),
then gets wrong:

- a request with no ``_meta`` is served; one whose ``_meta`` has no clientInfo is refused with -32602
  (request-meta-required, request-meta-client-info-optional);
- server/discover names the server only in the result body, not in ``_meta`` (discover-server-info), and
  declares tools but not prompts, which it serves anyway (discover-capabilities-match);
- an unknown revision gets -32022 with data.supported but no data.requested (unsupported-version-details);
- initialize, ping, logging/setLevel and resources/subscribe get HTTP 400 with -32000 and a null id, an
  unknown method HTTP 200 with -32601 (http-method-not-found-404, error-ids-echoed);
- it reads no header: a MCP-Protocol-Version, Mcp-Method, Mcp-Name or Mcp-Param-Region (of its tool
  ``region``) that contradicts the body is ignored (http-version-header-mismatch, http-standard-headers,
  http-param-headers), and any Host is served (http-host);
- resources/read of a uri it does not have is a result with empty contents (resource-not-found,
  resource-not-found-code);
- tools/list carries no ttlMs, resources/list a cacheScope "everyone" (caching-hints), and tools/list gives
  its two tools in turn in one order and the other (tools-order-stable);
- prompts/list first answers input_required with only a requestState (input-required-not-on-lists);
- it declares tools.listChanged, yet answers subscriptions/listen with -32601 (subscription-acknowledged).
"""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "http" / "servers"))
# found through the path set just above
from misbehaving_http_server import Handler, serve

MODERN = "2026-07-28"
META_VERSION = "io.modelcontextprotocol/protocolVersion"
CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
SERVER_INFO = {"name": "broken-modern", "version": "1.0.0"}
TOOLS = [{"name": "echo", "description": "Return the message unchanged.",
          "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}}},
         {"name": "shout", "description": "Return the message in capitals.",
          "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}}},
         {"name": "region", "description": "Say which region was asked for.", "annotations": {"readOnlyHint": True},
          "inputSchema": {"type": "object", "required": ["region"],
                          "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}}}]
RESOURCES = [{"uri": "test://kept", "name": "kept", "mimeType": "text/plain"}]
PROMPTS = [{"name": "greet", "description": "Say hello."}]
CACHE = {"resultType": "complete", "ttlMs": 0, "cacheScope": "public"}


#: How long the one-at-a-time server holds a tools/list for another request to come (a bound, not a pause:
#: a second request ends the wait at once).
HOLD_SECONDS = 1.0


class BrokenModern(Handler):
    case_sensitive = False
    one_at_a_time = False
    busy = threading.Lock()
    another_came = threading.Event()
    lists = 0  #: tools/list answered so far (a class attribute: one count for every connection)

    def on_message(self, message: dict[str, Any]) -> None:
        if "method" not in message or "id" not in message:
            self.send_body(202, b"")
            return
        if self.case_sensitive and "Mcp-Method" not in self.headers.keys():
            self.send_json(400, {"jsonrpc": "2.0", "id": message.get("id"),
                                 "error": {"code": -32020, "message": "Mcp-Method header missing"}})
            return
        params = p if isinstance(p := message.get("params"), dict) else {}
        arguments = a if isinstance(a := params.get("arguments"), dict) else {}
        mirrored = self.headers.get("Mcp-Param-Region")
        if self.case_sensitive and mirrored is not None and mirrored != arguments.get("region"):
            self.send_json(400, {"jsonrpc": "2.0", "id": message.get("id"),
                                 "error": {"code": -32020, "message": "Mcp-Param-Region does not match"}})
            return
        if self.one_at_a_time and message.get("method") == "tools/list":
            if not self.busy.acquire(blocking=False):
                self.another_came.set()
                self.send_json(409, {"jsonrpc": "2.0", "id": message.get("id"),
                                     "error": {"code": -32000, "message": "busy: one request at a time"}})
                return
            try:
                self.another_came.clear()
                self.another_came.wait(HOLD_SECONDS)
                status, reply = self.reply(message)
                self.send_json(status, reply)
            finally:
                self.busy.release()
            return
        status, reply = self.reply(message)
        self.send_json(status, reply)

    def reply(self, message: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        method = message.get("method")
        params = p if isinstance(p := message.get("params"), dict) else {}
        meta = params.get("_meta")

        def ok(result: dict[str, Any]) -> tuple[int, dict[str, Any]]:
            return 200, {"jsonrpc": "2.0", "id": message.get("id"), "result": result}

        def error(status: int, code: int, text: str, data: Any = None, echo: bool = True
                  ) -> tuple[int, dict[str, Any]]:
            body: dict[str, Any] = {"code": code, "message": text}
            if data is not None:
                body["data"] = data
            return status, {"jsonrpc": "2.0", "id": message.get("id") if echo else None, "error": body}

        if isinstance(meta, dict):
            if meta.get(META_VERSION) not in (None, MODERN):
                return error(400, -32022, "Unsupported protocol version", {"supported": [MODERN]})
            if CLIENT_INFO not in meta:
                return error(400, -32602, "clientInfo is required here")
        if method in ("initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"):
            return error(400, -32000, "Bad Request: Server not initialized", echo=False)
        if method == "server/discover":
            return ok({"supportedVersions": [MODERN], "capabilities": {"tools": {"listChanged": True}, "resources": {}},
                       "serverInfo": SERVER_INFO, **CACHE})
        if method == "tools/list":
            type(self).lists += 1
            order = TOOLS if self.lists % 2 else TOOLS[::-1]
            return ok({"tools": order, "resultType": "complete", "cacheScope": "public"})
        if method == "tools/call":
            arguments = a if isinstance(a := params.get("arguments"), dict) else {}
            text = str(arguments.get("message", ""))
            return ok({"content": [{"type": "text", "text": text}], "resultType": "complete"})
        if method == "prompts/list":
            if "requestState" not in params:
                return ok({"resultType": "input_required", "requestState": "list-again"})
            return ok({"prompts": PROMPTS, **CACHE})
        if method == "resources/list":
            return ok({"resources": RESOURCES, "resultType": "complete", "ttlMs": 0, "cacheScope": "everyone"})
        if method == "resources/templates/list":
            return ok({"resourceTemplates": [], **CACHE})
        if method == "resources/read":
            uri = params.get("uri")
            if uri == RESOURCES[0]["uri"]:
                return ok({"contents": [{"uri": uri, "mimeType": "text/plain", "text": "kept"}], **CACHE})
            return ok({"contents": [], **CACHE})
        return error(200, -32601, f"Method not found: {method}")

    def do_GET(self) -> None:
        self.send_body(405, b"", headers={"Allow": "POST"})

    def do_DELETE(self) -> None:
        self.send_body(405, b"", headers={"Allow": "POST"})


class BrokenStreams(BrokenModern):
    """``modern-streams`` (the module's notes)."""

    def on_message(self, message: dict[str, Any]) -> None:
        if self.headers.get("Origin"):
            self.send_json(403, {"jsonrpc": "2.0", "id": message.get("id"),
                                 "error": {"code": -32000, "message": "no Origin is trusted here"}})
            return
        params = p if isinstance(p := message.get("params"), dict) else {}
        method = message.get("method")
        if "id" in message and method == "subscriptions/listen":
            self.listen(message["id"], params.get("notifications"))
            return
        if "id" in message and method == "resources/read":
            if "inputResponses" in params:
                self.send_json(400, {"jsonrpc": "2.0", "id": message["id"],
                                     "error": {"code": -32602, "message": "unexpected inputResponses"}})
                return
            if params.get("uri") == RESOURCES[0]["uri"]:
                self.read_with_extras(message["id"])
                return
        super().on_message(message)

    def reply(self, message: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        status, body = super().reply(message)
        if message.get("method") == "tools/list" and isinstance(body.get("result"), dict):
            body["result"]["tools"] = [*body["result"]["tools"], {"name": "quiet", "inputSchema": {"type": "object"}}]
        return status, body

    def event(self, obj: dict[str, Any]) -> None:
        self.chunk(b"event: message\ndata: " + json.dumps(obj).encode() + b"\n\n")

    def listen(self, msg_id: Any, asked: Any) -> None:
        wanted = asked if isinstance(asked, dict) else {}
        self.start_sse()
        agreed = {**wanted, "promptsListChanged": True}
        self.event({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
                    "params": {"_meta": {SUBSCRIPTION_ID: msg_id}, "notifications": agreed}})
        self.event({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {}})
        self.event({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed",
                    "params": {"_meta": {SUBSCRIPTION_ID: msg_id}}})
        self.hold_open()

    def read_with_extras(self, msg_id: Any) -> None:
        self.start_sse()
        self.event({"jsonrpc": "2.0", "method": "notifications/message",
                    "params": {"level": "info", "data": "a log line nobody asked for"}})
        self.event({"jsonrpc": "2.0", "id": "from-the-server-1", "method": "elicitation/create",
                    "params": {"message": "Your name?", "requestedSchema": {"type": "object", "properties": {}}}})
        self.event({"jsonrpc": "2.0", "id": msg_id,
                    "result": {"contents": [{"uri": RESOURCES[0]["uri"], "mimeType": "text/plain", "text": "kept"}],
                               **CACHE}})
        self.end_chunks()


class SpacedSessionId(Handler):
    """2025-11-25, well behaved but for its session id: "session 1", with a space (0x20)."""

    def on_message(self, message: dict[str, Any]) -> None:
        if "method" not in message or "id" not in message:
            self.on_notification_or_response(message)
            return
        headers = {"Mcp-Session-Id": "session 1"} if message.get("method") == "initialize" else {}
        self.send_json(200, self.answer(message), headers)


class Initialized200(Handler):
    """2025-11-25, well behaved but for the initialized notification: HTTP 200 with a JSON body, not 202."""

    def on_notification_or_response(self, message: dict[str, Any]) -> None:
        if message.get("method") == "notifications/initialized":
            self.send_json(200, {"accepted": True})
        else:
            self.send_body(202, b"")


MODES: dict[str, tuple[type[Handler], dict[str, Any]]] = {
    "modern": (BrokenModern, {}),
    "modern-case-sensitive": (BrokenModern, {"case_sensitive": True}),
    "modern-streams": (BrokenStreams, {}),
    "spaced-session-id": (SpacedSessionId, {}),
    "initialized-200": (Initialized200, {}),
    "one-at-a-time": (BrokenModern, {"one_at_a_time": True, "busy": threading.Lock(),
                                     "another_came": threading.Event()}),
}


def main() -> None:
    mode, port_file = sys.argv[1], Path(sys.argv[2])
    base, extra = MODES[mode]
    handler = type(base.__name__, (base,), {"mode": mode, "sessions": set(), **extra})
    serve(handler, port_file)


if __name__ == "__main__":
    main()
