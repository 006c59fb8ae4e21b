"""A stdio MCP client that hangs, for test-client's tests: it launches the server argv it is given, initializes
properly, then never ends (nor closes the server's stdin). With HANGING_CLIENT_PID_FILE set it writes its pid
there once the handshake is done."""

import json
import os
import subprocess
import sys
import time


def main(argv: list[str]) -> int:
    if argv and argv[0] == "--":
        argv = argv[1:]
    server = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "hanging", "version": "0"}}}).encode() + b"\n")
    server.stdin.flush()
    server.stdout.readline()
    server.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    server.stdin.flush()
    pid_file = os.environ.get("HANGING_CLIENT_PID_FILE")
    if pid_file:
        with open(pid_file + ".tmp", "w") as f:
            f.write(str(os.getpid()))
        os.replace(pid_file + ".tmp", pid_file)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
