"""A deliberately broken stdio MCP client, for test-client's tests: it never sends notifications/initialized,
reuses the id of its initialize request for tools/list, and ignores the server's requests (a ping goes
unanswered). Standard library only: it launches the server argv it is given and speaks raw JSON lines.
"""

import json
import subprocess
import sys


def main(argv: list[str]) -> int:
    if argv and argv[0] == "--":
        argv = argv[1:]
    server = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert server.stdin is not None and server.stdout is not None
    lines = iter(server.stdout.readline, b"")

    def send(message: dict) -> None:
        server.stdin.write(json.dumps(message).encode() + b"\n")
        server.stdin.flush()

    def wait_for(msg_id: object) -> None:
        for raw in lines:
            try:
                message = json.loads(raw)
            except ValueError:
                continue
            if message.get("id") == msg_id and "method" not in message:
                return  # requests of the server (a ping) are ignored

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "broken", "version": "0"}}})
    wait_for(1)
    # no notifications/initialized; the same id again
    send({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    wait_for(1)
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "x"}}})
    wait_for(2)
    server.stdin.close()
    server.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
