"""A hostile stdio MCP server (standard library only): its tools' schemas, icons or results are made to hang, freeze
or exhaust the inspector. Usage: ``python stdio_hostile.py MODE [ARG]``.

Copied from the adversarial pass of issue 26 (hs.py and modes.py of the hostile servers), the modes the schema,
form and image tests use:

- ``redos PATTERN``: one tool ``r`` whose string argument ``s`` has ``pattern: PATTERN``;
- ``refcycle``: tools whose schemas refer to themselves (``self``, ``pair``, ``prop``, ``selfobj``);
- ``deepschema N``: one tool ``deep`` whose schema nests ``properties`` N levels deep (written as text);
- ``dagschema PxL``: a tool ``dag`` whose ``$defs`` are L levels of P properties that all refer to the next
  level (1.2 KB for 4x8, which a naive expansion makes 4^8 = 65,536 fields);
- ``icons N``: N tools, each with a data: PNG icon that decodes to 7000x7000 RGBA (196 MB);
- ``images N``: ``tools/call`` answers with N such images;
- ``fair``: the same shapes at a fair size (a tool with a 16x16 icon, a result with a 40x30 image and one bomb),
  the control: fair images are still shown.

It answers ``server/discover`` with -32601 (the inspector falls back to initialize) and initialize with the
revision asked for.
"""

import base64
import json
import struct
import sys
import zlib
from pathlib import Path

MODE = sys.argv[1] if len(sys.argv) > 1 else "plain"
ARG = sys.argv[2] if len(sys.argv) > 2 else ""
BOMB = Path(__file__).resolve().parents[2] / "data" / "bomb7000.png"
out = sys.stdout.buffer


def send(obj):
    out.write(json.dumps(obj).encode() + b"\n")
    out.flush()


def result(mid, res):
    send({"jsonrpc": "2.0", "id": mid, "result": res})


def tool(name, schema=None, **extra):
    return {"name": name, "inputSchema": schema or {"type": "object"}, **extra}


def bomb():
    return base64.b64encode(BOMB.read_bytes()).decode()


def small_png(width, height):
    """A PNG of ``width`` x ``height`` opaque red pixels, written by hand (no imaging library here)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def tools():
    if MODE == "redos":
        return [tool("r", {"type": "object", "properties": {"s": {"type": "string", "pattern": ARG}}})]
    if MODE == "refcycle":
        return [tool("self", {"$ref": "#"}),
                tool("pair", {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}),
                tool("prop", {"type": "object", "properties": {"x": {"$ref": "#"}}}),
                tool("selfobj", {"type": "object", "$ref": "#"})]
    if MODE == "dagschema":
        props, levels = map(int, (ARG or "4x8").split("x"))
        defs = {}
        for i in range(levels):
            nxt = {"$ref": f"#/$defs/d{i + 1}"} if i + 1 < levels else {"type": "string"}
            defs[f"d{i}"] = {"type": "object", "properties": {f"p{j}": nxt for j in range(props)}}
        return [tool("first", {"type": "object"}),
                tool("dag", {"type": "object", "$defs": defs, "properties": {"root": {"$ref": "#/$defs/d0"}}})]
    if MODE == "icons":
        icon = [{"src": "data:image/png;base64," + bomb(), "mimeType": "image/png"}]
        return [tool(f"t{i}", icons=icon) for i in range(int(ARG or 20))]
    if MODE == "fair":
        icon = [{"src": "data:image/png;base64," + base64.b64encode(small_png(16, 16)).decode(),
                 "mimeType": "image/png"}]
        return [tool("fair", icons=icon), tool("bomb", icons=[{"src": "data:image/png;base64," + bomb()}])]
    return [tool("echo", {"type": "object", "properties": {"message": {"type": "string"}}})]


def list_tools(mid):
    if MODE == "deepschema":  # as text: json.dumps cannot nest this deep
        n = int(ARG or 100)
        schema = '{"type":"object","properties":{"a":' * n + '{"type":"string"}' + "}}" * n
        head = '{"jsonrpc":"2.0","id":' + json.dumps(mid) + ',"result":{"tools":[{"name":"deep","inputSchema":'
        out.write((head + schema + "}]}}\n").encode())
        out.flush()
        return
    result(mid, {"tools": tools()})


def call(mid):
    if MODE == "images":
        data = bomb()
        result(mid, {"content": [{"type": "image", "mimeType": "image/png", "data": data}
                                 for _ in range(int(ARG or 10))]})
        return
    if MODE == "fair":
        fair = base64.b64encode(small_png(40, 30)).decode()
        result(mid, {"content": [{"type": "image", "mimeType": "image/png", "data": fair},
                                 {"type": "image", "mimeType": "image/png", "data": bomb()}]})
        return
    result(mid, {"content": [{"type": "text", "text": "ok"}]})


def main():
    for line in sys.stdin.buffer:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if not isinstance(msg, dict) or "method" not in msg:
            continue
        method, mid = msg["method"], msg.get("id")
        if method == "initialize":
            result(mid, {"protocolVersion": msg["params"].get("protocolVersion", "2025-11-25"),
                         "capabilities": {"tools": {}}, "serverInfo": {"name": "hostile-" + MODE, "version": "1"}})
        elif mid is None:
            continue
        elif method == "tools/list":
            list_tools(mid)
        elif method == "tools/call":
            call(mid)
        elif method == "ping":
            result(mid, {})
        else:
            send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "Method not found"}})


if __name__ == "__main__":
    main()
