"""A sent message as something to paste: the JSON-RPC message, an ``mcp-inspector`` command that sends it
again, or (HTTP) a ``curl`` command with the session's headers.

Contract: every command is one line for a POSIX shell, each argument quoted with :func:`shlex.quote`, so a
value with spaces, quotes or ``$`` arrives unchanged. Headers the capture redacted stay ``[redacted]``:
the line says so rather than inventing a secret.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from typing import Any

#: headers curl or the transport sets by itself, left out of the copied command
_SKIPPED_HEADERS = frozenset({"host", "content-length", "accept-encoding", "connection", "user-agent"})


def as_jsonrpc(message: Mapping[str, Any]) -> str:
    """The message, indented."""
    return json.dumps(message, ensure_ascii=False, indent=2)


def _reads_as_json(text: str) -> bool:
    """Whether ``KEY=text`` could be read back as a JSON literal (``2``, ``true``, ``[1]``) rather than the
    string, where a schema does not say: such a string goes in ``--args``, which says it unambiguously."""
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _key_values(arguments: Mapping[str, Any]) -> tuple[list[str], dict[str, Any]]:
    """``KEY=VALUE`` words for the primitive arguments, and the rest (objects, arrays, null, strings that
    would not survive ``KEY=VALUE`` typing, such as one with a newline) for ``--args``."""
    words: list[str] = []
    rest: dict[str, Any] = {}
    for key, value in arguments.items():
        if "=" in key or not key:
            rest[key] = value
        elif isinstance(value, bool):
            words.append(f"{key}={'true' if value else 'false'}")
        elif isinstance(value, (int, float)):
            words.append(f"{key}={json.dumps(value)}")
        elif isinstance(value, str) and "\n" not in value and not _reads_as_json(value):
            words.append(f"{key}={value}")
        else:
            rest[key] = value
    return words, rest


def as_command(message: Mapping[str, Any], server: list[str]) -> str:
    """The ``mcp-inspector`` command that sends this request again to the same server: ``call`` for
    tools/call, ``read`` for resources/read, ``prompt`` for prompts/get, ``request`` for anything else.
    ``server``: the options that reach the server (:meth:`~inspector.core.connect.target.Target.command_options`:
    ``--url ...`` or ``-- COMMAND``)."""
    method = str(message.get("method", ""))
    params = message.get("params") if isinstance(message.get("params"), dict) else {}
    assert isinstance(params, dict)
    params = {k: v for k, v in params.items() if k != "_meta"}
    words: list[str]
    if method == "tools/call" and isinstance(params.get("name"), str):
        arguments = params.get("arguments") if isinstance(params.get("arguments"), dict) else {}
        assert isinstance(arguments, dict)
        pairs, rest = _key_values(arguments)
        words = ["call", params["name"], *pairs]
        if rest:
            words += ["--args", json.dumps(rest, ensure_ascii=False, separators=(",", ":"))]
    elif method == "resources/read" and isinstance(params.get("uri"), str):
        words = ["read", params["uri"]]
    elif method == "prompts/get" and isinstance(params.get("name"), str):
        arguments = params.get("arguments") if isinstance(params.get("arguments"), dict) else {}
        assert isinstance(arguments, dict)
        words = ["prompt", params["name"], *(f"{k}={v}" for k, v in arguments.items())]
    else:
        words = ["request", method]
        if params:
            words.append(json.dumps(params, ensure_ascii=False, separators=(",", ":")))
    return shlex.join(["mcp-inspector", *words, *server])


def as_curl(body: bytes | str, url: str, headers: Mapping[str, str]) -> str:
    """A ``curl`` command that POSTs ``body`` to ``url`` with ``headers`` (as the session sent them: the
    session id and protocol version headers included; host, length and encoding headers left to curl).
    ``-N`` shows an SSE answer as it streams."""
    text = body.decode("utf-8", errors="replace") if isinstance(body, bytes) else body
    words = ["curl", "-sS", "-N", "-X", "POST", url]
    for name, value in headers.items():
        if name.lower() not in _SKIPPED_HEADERS:
            words += ["-H", f"{name}: {value}"]
    words += ["--data-raw", text]
    line = shlex.join(words)
    if any(value == "[redacted]" for value in headers.values()):
        line += "  # replace [redacted] with the real value"
    return line
