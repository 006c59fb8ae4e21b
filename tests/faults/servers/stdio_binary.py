"""Answers initialize, then answers tools/list with the raw bytes of a PNG image on stdout instead of a
JSON-RPC response (a tool that writes its picture to stdout), then behaves.

The bytes are the same on every run: a real PNG signature, then 4 KiB from a seeded generator, then a newline.
"""

import os
import random

import stdio_wire  # noqa: F401 - makes _wire importable
from _wire import default_reply, messages, send

SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_bytes() -> bytes:
    return SIGNATURE + random.Random(6).randbytes(4096) + b"\n"


if __name__ == "__main__":
    for message in messages():
        if "id" not in message or "method" not in message:
            continue
        if message["method"] == "tools/list":
            os.write(1, png_bytes())
        else:
            send(default_reply(message, "binary-server"))
