"""A real WebSocket MCP server on 127.0.0.1: subprotocol ``mcp``, one JSON-RPC message per text frame.

Each connection gets its own bundled demo server (``python -m inspector.demo``) behind it: text frames are
written to its stdin as lines, its stdout lines come back as text frames. A frame ``"binary please"`` makes
the server answer with one binary frame, to test how the client reports it.
Usage: ws_bridge_server.py PORT
"""

import asyncio
import sys

import uvicorn
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect


async def bridge(websocket: WebSocket) -> None:
    offered = websocket.scope.get("subprotocols", [])
    await websocket.accept(subprotocol="mcp" if "mcp" in offered else None)
    server = await asyncio.create_subprocess_exec(sys.executable, "-m", "inspector.demo", stdin=asyncio.subprocess.PIPE,
                                                  stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)

    async def downstream() -> None:
        while line := await server.stdout.readline():
            await websocket.send_text(line.decode("utf-8", errors="replace").rstrip("\n"))

    pump = asyncio.ensure_future(downstream())
    try:
        while True:
            text = await websocket.receive_text()
            if text == "binary please":
                await websocket.send_bytes(b"\x00\x01binary")
                continue
            server.stdin.write(text.encode() + b"\n")
            await server.stdin.drain()
    except WebSocketDisconnect:
        pass
    finally:
        pump.cancel()
        server.stdin.close()
        try:
            await asyncio.wait_for(server.wait(), 5)
        except TimeoutError:
            server.kill()


app = Starlette(routes=[WebSocketRoute("/ws", bridge)])

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning", ws="wsproto")
