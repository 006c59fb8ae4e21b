"""Static content served by the demo: resources, prompts and completions.

Resources: https://modelcontextprotocol.io/specification/2025-11-25/server/resources
Prompts: https://modelcontextprotocol.io/specification/2025-11-25/server/prompts
Completion: https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/completion

Every function returns the era-neutral part of a result; the server adds
``resultType`` and friends for modern requests.
"""

from __future__ import annotations

import base64
import json
import struct
import urllib.parse
import zlib
from typing import Any

from inspector.demo import protocol
from inspector.demo.protocol import RpcError

INSTRUCTIONS = (
    "Demo server bundled with mcp-inspector. It speaks both the legacy "
    "(initialize handshake, 2024-11-05 to 2025-11-25) and the modern "
    "(2026-07-28, per-request _meta) protocol. Well-behaved tools: echo, add, "
    "slow_count (progress + logging), ask_llm (sampling). The tools "
    "junk_stdout, stderr_burst, flood, big_message, exit and split_json "
    "misbehave on purpose so the inspector can show and explain what goes "
    "wrong on the wire."
)

README_URI = "demo://readme"
CONFIG_URI = "demo://config.json"
LOGO_URI = "demo://logo.png"
ECHO_TEMPLATE = "demo://echo/{text}"
_ECHO_PREFIX = "demo://echo/"

_README = """\
# mcp-inspector demo server

This server ships with mcp-inspector so there is always something to inspect.
Start it with `python -m inspector.demo`; it talks newline-delimited
JSON-RPC on stdin/stdout and logs to stderr.

- Legacy clients: send `initialize`, then `notifications/initialized`.
- Modern clients (2026-07-28): call `server/discover`, then put
  `io.modelcontextprotocol/protocolVersion` and
  `io.modelcontextprotocol/clientCapabilities` in every request's `_meta`.

Some tools break the rules on purpose (`junk_stdout`, `split_json`, `flood`,
`big_message`, `stderr_burst`, `exit`): the inspector should flag each one.
"""


def _png_chunk(kind: bytes, payload: bytes) -> bytes:
    """One PNG chunk: length, type, data, CRC over type + data."""
    crc = zlib.crc32(kind + payload) & 0xFFFFFFFF
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", crc)


def make_logo_png(size: int = 16) -> bytes:
    """A tiny valid RGB PNG (a diagonal gradient), built with zlib only.

    Generated rather than pasted as base64 so that it is obviously a real PNG
    (signature, IHDR, IDAT, IEND with correct CRCs) and easy to change.
    """
    rows = bytearray()
    for y in range(size):
        rows.append(0)  # filter type 0 (None) for this scanline
        for x in range(size):
            rows += bytes((x * 255 // (size - 1), y * 255 // (size - 1), 160))
    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", header)
        + _png_chunk(b"IDAT", zlib.compress(bytes(rows), 9))
        + _png_chunk(b"IEND", b"")
    )


def _config_text(tool_names: list[str]) -> str:
    config = {
        "server": protocol.server_info(),
        "supportedVersions": list(protocol.SUPPORTED_VERSIONS),
        "tools": tool_names,
        "logging": {"defaultLegacyLevel": "info"},
    }
    return json.dumps(config, indent=2) + "\n"


def list_resources() -> list[dict[str, Any]]:
    """``resources/list`` entries."""
    logo_size = len(make_logo_png())
    return [
        {
            "uri": README_URI,
            "name": "readme",
            "title": "About the demo server",
            "mimeType": "text/markdown",
            "size": len(_README.encode("utf-8")),
        },
        {
            "uri": CONFIG_URI,
            "name": "config.json",
            "title": "Demo server configuration",
            "mimeType": "application/json",
        },
        {
            "uri": LOGO_URI,
            "name": "logo.png",
            "title": "A 16x16 PNG (binary resource)",
            "mimeType": "image/png",
            "size": logo_size,
        },
    ]


def list_resource_templates() -> list[dict[str, Any]]:
    """``resources/templates/list`` entries."""
    return [
        {
            "uriTemplate": ECHO_TEMPLATE,
            "name": "echo",
            "title": "Echo a path segment",
            "description": "Reading demo://echo/<text> returns <text> (percent-decoded).",
            "mimeType": "text/plain",
        }
    ]


def read_resource(uri: Any, tool_names: list[str], modern: bool) -> list[dict[str, Any]]:
    """The ``contents`` of ``resources/read`` for ``uri``.

    An unknown URI is -32002 in legacy revisions but -32602 in 2026-07-28,
    which forbids -32002
    (https://modelcontextprotocol.io/specification/2026-07-28/basic/index#error-codes).
    """
    if not isinstance(uri, str):
        raise RpcError(protocol.INVALID_PARAMS, "resources/read needs a string 'uri'")
    if uri == README_URI:
        return [{"uri": uri, "mimeType": "text/markdown", "text": _README}]
    if uri == CONFIG_URI:
        return [{"uri": uri, "mimeType": "application/json", "text": _config_text(tool_names)}]
    if uri == LOGO_URI:
        blob = base64.b64encode(make_logo_png()).decode("ascii")
        return [{"uri": uri, "mimeType": "image/png", "blob": blob}]
    if uri.startswith(_ECHO_PREFIX):
        text = urllib.parse.unquote(uri[len(_ECHO_PREFIX) :])
        return [{"uri": uri, "mimeType": "text/plain", "text": text}]
    code = protocol.INVALID_PARAMS if modern else protocol.LEGACY_RESOURCE_NOT_FOUND
    raise RpcError(code, "Resource not found", {"uri": uri})


PROMPTS: list[dict[str, Any]] = [
    {
        "name": "greet",
        "title": "Greet someone",
        "description": "Asks the model for a one-sentence greeting.",
        "arguments": [{"name": "name", "description": "Who to greet", "required": True}],
    },
    {
        "name": "review_code",
        "title": "Review code",
        "description": "Asks the model to review a piece of code.",
        "arguments": [
            {"name": "code", "description": "The code to review", "required": True},
            {"name": "language", "description": "Programming language (optional)", "required": False},
        ],
    },
]


def _user_text(text: str) -> dict[str, Any]:
    return {"role": "user", "content": {"type": "text", "text": text}}


def get_prompt(name: Any, arguments: Any) -> dict[str, Any]:
    """The ``GetPromptResult`` (description + messages) for ``prompts/get``.

    Unknown prompts and missing required arguments are -32602, as the prompts
    page prescribes.
    """
    prompt = next((p for p in PROMPTS if p["name"] == name), None)
    if prompt is None:
        raise RpcError(protocol.INVALID_PARAMS, f"Unknown prompt: {name!r}")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict) or not all(isinstance(v, str) for v in arguments.values()):
        raise RpcError(protocol.INVALID_PARAMS, "prompt arguments must be an object of strings")
    missing = [a["name"] for a in prompt["arguments"] if a["required"] and a["name"] not in arguments]
    if missing:
        raise RpcError(
            protocol.INVALID_PARAMS,
            f"Missing required prompt argument(s): {', '.join(missing)}",
            {"missing": missing},
        )
    if name == "greet":
        messages = [_user_text(f"Please greet {arguments['name']} warmly in one sentence.")]
    else:
        language = arguments.get("language", "")
        fence = language.lower() if language else ""
        intro = f"Please review this {language} code" if language else "Please review this code"
        messages = [
            _user_text(
                f"{intro}. Point out bugs first, then style issues.\n\n"
                f"```{fence}\n{arguments['code']}\n```"
            )
        ]
    return {"description": prompt["description"], "messages": messages}


_COMPLETIONS: dict[tuple[str, str, str], list[str]] = {
    ("ref/prompt", "review_code", "language"): [
        "c", "cpp", "csharp", "go", "java", "javascript", "kotlin", "python", "ruby", "rust",
        "shell", "sql", "swift", "typescript",
    ],
    ("ref/prompt", "greet", "name"): ["Ada", "Alan", "Grace", "Linus", "Margaret"],
}


def complete(params: dict[str, Any]) -> dict[str, Any]:
    """The ``completion`` object for ``completion/complete``.

    Values are filtered by case-insensitive prefix; unknown references simply
    get no suggestions, which the spec allows.
    """
    ref = params.get("ref")
    argument = params.get("argument")
    if not isinstance(ref, dict) or not isinstance(argument, dict):
        raise RpcError(protocol.INVALID_PARAMS, "completion/complete needs 'ref' and 'argument' objects")
    target = ref.get("name") if ref.get("type") == "ref/prompt" else ref.get("uri")
    key = (str(ref.get("type")), str(target), str(argument.get("name")))
    prefix = str(argument.get("value", "")).lower()
    values = [v for v in _COMPLETIONS.get(key, []) if v.lower().startswith(prefix)]
    return {"values": values[:100], "total": len(values), "hasMore": len(values) > 100}
