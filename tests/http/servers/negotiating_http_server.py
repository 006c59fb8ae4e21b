"""The negotiating test server (tests/integration/servers/negotiating_server.py) over Streamable HTTP.

``python negotiating_http_server.py PORT_FILE [--supported V1,V2,...] [--reject N]`` binds 127.0.0.1 on an
ephemeral port, writes the port to PORT_FILE once it listens and serves ``/mcp`` until killed: the same
revisions, the same rejection of the first request, as the 2026-07-28 Streamable HTTP binding wants them
(a rejected version is ``400 Bad Request`` with the JSON-RPC error as its body). A request answered with
progress notifications gets an SSE stream; every other answer is one JSON body. No sessions.
"""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path
from typing import Any

from misbehaving_http_server import Handler, serve

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "integration" / "servers"))
# found through the path set just above
from negotiating_server import (
    INVALID_PARAMS,
    UNSUPPORTED_PROTOCOL_VERSION,
    Negotiator,
    negotiator_from,
)


class Negotiating(Handler):
    negotiator: Negotiator

    def on_message(self, message: dict[str, Any]) -> None:
        if "method" not in message or "id" not in message:
            self.on_notification_or_response(message)
            return
        answers = self.negotiator.answer(message)
        first = next(answers)
        if "id" in first:  # the response itself: no notifications came before it
            rejected = "error" in first and first["error"]["code"] in (UNSUPPORTED_PROTOCOL_VERSION, INVALID_PARAMS)
            self.send_json(400 if rejected else 200, first)
            return
        self.start_sse()
        for answer in itertools.chain([first], answers):  # each as it comes: the tool's delays are between them
            self.chunk(b"event: message\ndata: " + json.dumps(answer).encode() + b"\n\n")
        self.end_chunks()


def main() -> None:
    port_file = Path(sys.argv[1])
    handler = type("Negotiating", (Negotiating,), {
        "mode": "negotiating", "negotiator": negotiator_from(sys.argv)})
    serve(handler, port_file)


if __name__ == "__main__":
    main()
