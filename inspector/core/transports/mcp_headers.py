"""The 2026-07-28 request headers mirrored from the body: ``Mcp-Method``, ``Mcp-Name`` and ``Mcp-Param-*``.

Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#request-metadata
A tool's ``inputSchema`` may mark primitive properties with ``x-mcp-header``; the client must mirror their
values into ``Mcp-Param-{name}`` headers, and must reject tool definitions whose annotations break the rules.
"""

from __future__ import annotations

import base64
import re
from typing import Any

#: RFC 9110 token characters (the header field-name syntax).
# used with fullmatch: "$" would also match before a final newline
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_SAFE_VALUE = re.compile(r"[\x21-\x7e]([\x20-\x7e\t]*[\x21-\x7e])?")
_SENTINEL = re.compile(r"=\?base64\?.*\?=", re.S)
JS_SAFE_INTEGER = 2**53 - 1
NAME_METHODS = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}

HeaderPlan = list[tuple[tuple[str, ...], str]]  # (property path, header name suffix)


def encode_value(value: str) -> str:
    """A header value as is when it is plain visible ASCII, else ``=?base64?...?=`` of its UTF-8."""
    if _SAFE_VALUE.fullmatch(value) and not _SENTINEL.fullmatch(value):
        return value
    return "=?base64?" + base64.b64encode(value.encode("utf-8")).decode("ascii") + "?="


def header_plan(input_schema: Any) -> HeaderPlan:
    """The ``x-mcp-header`` annotations of a tool's input schema; raises ValueError with the reason if invalid."""
    plan: HeaderPlan = []
    _walk(input_schema, (), plan, statically_reachable=True)
    seen: dict[str, str] = {}
    for path, name in plan:
        key = name.lower()
        if key in seen:
            raise ValueError(f"x-mcp-header {name!r} is used twice (also on {seen[key]}); names must be unique "
                             "ignoring case")
        seen[key] = ".".join(path)
    return plan


def _walk(schema: Any, path: tuple[str, ...], plan: HeaderPlan, statically_reachable: bool) -> None:
    if isinstance(schema, list):
        for item in schema:
            _walk(item, path, plan, False)
        return
    if not isinstance(schema, dict):
        return
    if "x-mcp-header" in schema:
        name = schema["x-mcp-header"]
        where = ".".join(path) or "(root)"
        if not statically_reachable or not path:
            raise ValueError(f"x-mcp-header on {where} is not reachable through 'properties' alone")
        if not isinstance(name, str) or not name or not _TOKEN.fullmatch(name):
            raise ValueError(f"x-mcp-header {name!r} on {where} is not a valid header name token")
        kind = schema.get("type")
        if kind not in ("string", "integer", "boolean"):
            raise ValueError(f"x-mcp-header on {where} needs a string, integer or boolean property, not {kind!r}")
        plan.append((path, name))
    for key, value in schema.items():
        if key == "properties" and isinstance(value, dict):
            for prop, sub in value.items():
                _walk(sub, path + (prop,), plan, statically_reachable)
        elif key not in ("x-mcp-header",) and isinstance(value, (dict, list)):
            _walk(value, path, plan, False)


def param_headers(plan: HeaderPlan, arguments: Any) -> dict[str, str]:
    """``Mcp-Param-*`` headers for a call's arguments; absent or null values give no header."""
    headers: dict[str, str] = {}
    for path, name in plan:
        value: Any = arguments
        for step in path:
            value = value.get(step) if isinstance(value, dict) else None
        if value is None:
            continue
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, int):
            if abs(value) > JS_SAFE_INTEGER:
                raise ValueError(f"{'.'.join(path)} = {value} is outside the safe integer range for headers")
            text = str(value)
        elif isinstance(value, str):
            text = value
        else:
            continue  # a value of the wrong type: the server will say so
        headers[f"Mcp-Param-{name}"] = encode_value(text)
    return headers


def standard_headers(obj: dict[str, Any]) -> dict[str, str]:
    """``Mcp-Method`` and, where the method has one, ``Mcp-Name``."""
    method = obj.get("method")
    if not isinstance(method, str):
        return {}
    headers = {"Mcp-Method": encode_value(method)}
    field = NAME_METHODS.get(method)
    params = obj.get("params")
    if field and isinstance(params, dict) and isinstance(params.get(field), str):
        headers["Mcp-Name"] = encode_value(params[field])
    return headers
