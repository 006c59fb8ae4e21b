"""The probe of ``mcp-inspector check`` for 2026-07-28's ``Mcp-Param-*`` headers (SEP-2243): a tool whose
inputSchema marks a string argument with ``x-mcp-header`` is called with that argument mirrored into its
header in each form the spec's Value Encoding names, and in forms it forbids.

https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#custom-headers-from-tool-parameters
A server must decode ``=?base64?...?=`` values and compare them with the body, take a value without the whole
sentinel as literal text, and refuse (HTTP 400, -32020) a value that is not valid Base64, one that differs
from the body, and a header left out while the body has the value. Calls that should be taken run the tool,
so the probe calls only what the user allowed: a read-only tool with ``--call-tools``, any with
``--call-all-tools``.
"""

from __future__ import annotations

import base64
from typing import Any

from inspector.core.check.checks import MODERN
from inspector.core.check.context import Context
from inspector.core.check.modern_probes import HEADER_MISMATCH, full_meta, post
from inspector.core.transports.mcp_headers import header_plan

#: The body value the calls send, and its Base64 (the suite's own example).
VALUE = "Hello"
ENCODED = base64.b64encode(VALUE.encode()).decode()
IDS = ("http-param-headers", "http-param-headers-decoded")


def _target(ctx: Context, tools: list[dict[str, Any]]) -> tuple[str, str, str] | str:
    """(tool, argument, header suffix) of a tool the user allows calling whose only required argument, if
    any, is a top-level string marked ``x-mcp-header``; else why there is none."""
    annotated = 0
    for tool in tools:
        schema = tool.get("inputSchema")
        name = tool.get("name")
        if not isinstance(schema, dict) or not isinstance(name, str):
            continue
        try:
            plan = header_plan(schema)
        except ValueError:
            continue
        found = schema.get("properties")
        properties: dict[str, Any] = found if isinstance(found, dict) else {}
        required = [r for r in schema.get("required") or [] if isinstance(r, str)]
        for path, suffix in plan:
            prop = properties.get(path[0]) if len(path) == 1 else None
            if not (isinstance(prop, dict) and prop.get("type") == "string"):
                continue
            annotated += 1
            if any(r != path[0] for r in required):
                continue
            read_only = isinstance(tool.get("annotations"), dict) and tool["annotations"].get("readOnlyHint") is True
            if ctx.options.call_all_tools or (ctx.options.call_tools and read_only):
                return name, path[0], suffix
    if not annotated:
        return "no tool has a string argument marked x-mcp-header"
    return (f"the tools with a string argument marked x-mcp-header are called only with "
            f"{ctx.options.call_tools_hint} (read-only ones) or {ctx.options.call_all_tools_hint}, and need no other "
            "required argument")


async def probe_param_headers(ctx: Context) -> None:
    tools, sentence, seqs = await ctx.listing("tools")
    if tools is None:
        for check_id in IDS:
            ctx.unlisted(check_id, "tools", sentence, seqs)
        return
    target = _target(ctx, tools)
    if isinstance(target, str):
        for check_id in IDS:
            ctx.not_applicable(check_id, target)
        return
    tool, argument, suffix = target
    header = f"Mcp-Param-{suffix}"

    async def call(value: str | None, body: str, purpose: str) -> Any:
        params = {"name": tool, "arguments": {argument: body}, "_meta": full_meta()}
        headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": tool,
                   header: value if value is not None else ""}
        return await post(ctx, {"jsonrpc": "2.0", "id": ctx.session.next_id(), "method": "tools/call",
                                "params": params}, headers, f"check: {purpose}")

    refused: list[str] = []
    refused_seqs: list[int] = []
    for value, body, what in ((f"=?base64?{ENCODED.rstrip('=')}?=", VALUE, "Base64 without its padding"),
                              ("=?base64?SGVs!!!bG8=?=", VALUE, "Base64 with characters outside its alphabet"),
                              ("Other", VALUE, "a value other than the body's"),
                              (None, VALUE, "no header while the body has the value")):
        answer = await call(value, body, f"{header} with {what}")
        refused_seqs += answer.seqs
        if answer.status != 400 or answer.code != HEADER_MISMATCH:
            refused.append(f"{what} got {answer.what()}")
    if refused:
        ctx.failed("http-param-headers", f"calls of {tool} with {header}: " + "; ".join(refused)
                   + ", not HTTP 400 with -32020", refused_seqs)
    else:
        ctx.passed("http-param-headers", f"calls of {tool} with a broken, different or missing {header}: each "
                                         "HTTP 400 with -32020", refused_seqs)
    taken: list[str] = []
    taken_seqs: list[int] = []
    for value, body, what in ((f"=?base64?{ENCODED}?=", VALUE, f"=?base64?{ENCODED}?= for {VALUE!r}"),
                              (ENCODED, ENCODED, f"{ENCODED} for {ENCODED!r} (no sentinel: literal)"),
                              (f"=?base64?{ENCODED}", f"=?base64?{ENCODED}", "a sentinel without its ?= (literal)")):
        answer = await call(value, body, f"{header} {what}")
        taken_seqs += answer.seqs
        if answer.status is None or answer.code == HEADER_MISMATCH or (answer.error is None and answer.status >= 400):
            taken.append(f"{what} got {answer.what()}")
    if taken:
        ctx.failed("http-param-headers-decoded", f"calls of {tool} with {header}: " + "; ".join(taken), taken_seqs)
    else:
        ctx.passed("http-param-headers-decoded", f"calls of {tool} with {header} in Base64 and as literal text were "
                                                 "taken", taken_seqs)
