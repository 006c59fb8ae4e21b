"""The probes of ``mcp-inspector check`` that list and use what the server offers: every page of every list,
the tools' schemas and names, resources read, prompts got and (with ``--call-tools``) tools called, each
checked against the schemas the server declared."""

from __future__ import annotations

import json
from typing import Any

from inspector.core.check.context import (
    MAX_ITEMS,
    Context,
    code_text,
    error_of,
    exchange_seqs,
    seqs_of,
)
from inspector.core.explore.listing import LISTS
from inspector.core.protocol.names import name_problems, shown_name
from inspector.core.schemas.validate import first_violation, schema_problem
from inspector.core.session.outcomes import RequestTimeout, result_of


async def probe_pagination(ctx: Context) -> None:
    """The first page of every list the server declares; the second one of each that has a nextCursor. Not
    applicable only when a list was answered and none had a second page: lists that were never answered
    leave the rule untested (incomplete), they do not show it holds."""
    paged: list[str] = []
    seqs: list[int] = []
    answered = 0
    unanswered: list[str] = []  # why each declared list gave no first page
    for kind, (method, field, capability) in LISTS.items():
        if capability not in ctx.info.capabilities:
            continue
        mark = ctx.mark()
        try:
            first = await ctx.ask(method)
        except RequestTimeout:
            unanswered.append(f"{method} got no answer within {ctx.timeout:g} s")
            seqs += seqs_of(ctx.since(mark))
            continue
        result, error = result_of(first)
        if error is not None:
            unanswered.append(f"{method} answered {code_text(error_of(first) or {})}")
            seqs += exchange_seqs(first)
            continue
        if not isinstance(result, dict) or not isinstance(result.get(field), list):
            unanswered.append(f"{method}'s result has no {field} list")
            seqs += exchange_seqs(first)
            continue
        answered += 1
        cursor = result.get("nextCursor")
        if not isinstance(cursor, str):
            continue
        try:
            second = await ctx.ask(method, {"cursor": cursor})
        except RequestTimeout as exc:
            ctx.failed("pagination", f"{method} with the nextCursor the server gave got no answer: {exc}",
                       seqs_of(ctx.since(mark)))
            return
        seqs += exchange_seqs(first) + exchange_seqs(second)
        result2, error2 = result_of(second)
        if error2 is not None:
            ctx.failed("pagination", f"{method} with the nextCursor {cursor[:40]!r} the server gave got "
                                     f"{code_text(error_of(second) or {})}",
                       exchange_seqs(first) + exchange_seqs(second))
            return
        if not isinstance(result2, dict) or not isinstance(result2.get(field), list):
            ctx.failed("pagination", f"{method}'s second page has no {field} list", exchange_seqs(second))
            return
        paged.append(f"{kind} ({len(result2[field])} on the second page)")
    if paged:
        ctx.passed("pagination", "the nextCursor round-tripped for " + ", ".join(paged), seqs)
    elif answered:
        ctx.not_applicable("pagination", "no list the server offers had a second page")
    elif unanswered:
        ctx.incomplete("pagination", "no list the server declares was answered, so no page could be followed: "
                       + "; ".join(unanswered), seqs)
    else:
        ctx.not_applicable("pagination", "the server declares no tools, resources or prompts to list")


async def probe_tool_schemas(ctx: Context) -> None:
    tools, sentence, seqs = await ctx.listing("tools")
    if tools is None:
        ctx.unlisted("tool-schemas", "tools", sentence, seqs)
        ctx.unlisted("tool-names", "tools", sentence, seqs)
        ctx.unlisted("tools-listed", "tools", sentence, seqs)
        return
    missing = listing_problems(tools)
    if missing:
        more = f" (and {len(missing) - 5} more)" if len(missing) > 5 else ""
        ctx.failed("tools-listed", "; ".join(missing[:5]) + more, seqs)
    else:
        ctx.passed("tools-listed", f"{len(tools)} tools, each with a name, a description and an inputSchema", seqs)
    named = name_problems(tool.get("name") for tool in tools)
    if named:
        more = f" (and {len(named) - 3} more)" if len(named) > 3 else ""
        ctx.failed("tool-names", "; ".join(named[:3]) + more, seqs)
    else:
        ctx.passed("tool-names", f"{len(tools)} tools, each a unique plain name", seqs)
    problems = []
    for tool in tools:
        name = shown_name(tool.get("name"))
        for key in ("inputSchema", "outputSchema"):
            if key not in tool:
                if key == "inputSchema":
                    problems.append(f"{name} has no inputSchema")
                continue
            # 2026-07-28: "This can be any valid JSON Schema 2020-12" for outputSchema (type "object" for input only)
            problem = _schema_object_problem(tool[key], need_object=key == "inputSchema" or not ctx.modern)
            if problem:
                problems.append(f"{name}'s {key} {problem}")
    if problems:
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        ctx.failed("tool-schemas", "; ".join(problems[:5]) + more, seqs)
    else:
        ctx.passed("tool-schemas", f"{len(tools)} tools, every schema a valid JSON Schema"
                   + ("" if ctx.modern else " of type \"object\""), seqs)


def listing_problems(tools: list[dict[str, Any]]) -> list[str]:
    """What each listed tool lacks of a name, a description and an inputSchema (the conformance suite's
    ``tools-list``): one clause per tool that lacks any, in list order."""
    problems = []
    for number, tool in enumerate(tools, 1):
        lacks = [what for what, ok in (("name", isinstance(tool.get("name"), str) and tool["name"] != ""),
                                       ("description", isinstance(tool.get("description"), str)
                                        and tool["description"].strip() != ""),
                                       ("inputSchema", isinstance(tool.get("inputSchema"), dict))) if not ok]
        if lacks:
            who = shown_name(tool["name"]) if isinstance(tool.get("name"), str) and tool["name"] else f"tool {number}"
            problems.append(f"{who} has no {' and no '.join(lacks)}")
    return problems


def _schema_object_problem(schema: Any, need_object: bool = True) -> str | None:
    if not isinstance(schema, dict):
        return "is not an object"
    if need_object and schema.get("type") != "object":
        return f"has type {json.dumps(schema.get('type'))}, not \"object\""
    problem = schema_problem(schema)
    return f"is not a valid JSON Schema: {problem}" if problem else None


async def probe_resources(ctx: Context) -> None:
    resources, sentence, seqs = await ctx.listing("resources")
    if resources is None:
        ctx.unlisted("resources-readable", "resources", sentence, seqs)
        return
    if not resources:
        ctx.not_applicable("resources-readable", "the server lists no resources")
        return
    problems: list[str] = []
    read_seqs: list[int] = []
    chosen = resources[:MAX_ITEMS]
    for resource in chosen:
        uri = resource.get("uri")
        try:
            response = await ctx.ask("resources/read", {"uri": uri})
        except RequestTimeout:
            problems.append(f"{shown_name(uri)}: no answer within {ctx.timeout:g} s")
            continue
        result, _ = result_of(response)
        error = error_of(response)
        if error is not None:
            problems.append(f"{shown_name(uri)}: {code_text(error)}")
            read_seqs += exchange_seqs(response)
        elif not isinstance(result, dict) or not isinstance(result.get("contents"), list):
            problems.append(f"{shown_name(uri)}: the result has no contents list")
            read_seqs += exchange_seqs(response)
    of = f" (the first {len(chosen)} of {len(resources)})" if len(resources) > len(chosen) else ""
    if problems:
        ctx.failed("resources-readable", f"{len(problems)} of {len(chosen)} resources{of} could not be read: "
                   + "; ".join(problems[:3]), read_seqs)
    else:
        ctx.passed("resources-readable", f"{len(chosen)} resources{of} read", seqs[-2:])


async def probe_prompts(ctx: Context) -> None:
    prompts, sentence, list_seqs = await ctx.listing("prompts")
    if prompts is None:
        ctx.unlisted("prompts-gettable", "prompts", sentence, list_seqs)
        return
    if not prompts:
        ctx.not_applicable("prompts-gettable", "the server lists no prompts")
        return
    problems: list[str] = []
    seqs: list[int] = []
    chosen = prompts[:MAX_ITEMS]
    for prompt in chosen:
        name = prompt.get("name")
        arguments = {str(a.get("name")): "test" for a in prompt.get("arguments") or []
                     if isinstance(a, dict) and a.get("required")}
        params: dict[str, Any] = {"name": name}
        if arguments:
            params["arguments"] = arguments
        try:
            response = await ctx.ask("prompts/get", params)
        except RequestTimeout:
            problems.append(f"{shown_name(name)}: no answer within {ctx.timeout:g} s")
            continue
        result, _ = result_of(response)
        error = error_of(response)
        if error is not None:
            problems.append(f"{shown_name(name)}: {code_text(error)}")
            seqs += exchange_seqs(response)
        elif not isinstance(result, dict) or not isinstance(result.get("messages"), list):
            problems.append(f"{shown_name(name)}: the result has no messages list")
            seqs += exchange_seqs(response)
    if problems:
        ctx.failed("prompts-gettable", f"{len(problems)} of {len(chosen)} prompts could not be got with \"test\" "
                                       "for each required argument (a server may rightly refuse such a value): "
                   + "; ".join(problems[:3]), seqs)
    else:
        ctx.passed("prompts-gettable", f"{len(chosen)} prompts got with their required arguments filled")


def sample_arguments(schema: Any) -> dict[str, Any]:
    """Arguments that fit ``schema``'s required properties, as simply as possible (an enum's first value, a
    default, "test", 1, false, [], an object of its own required properties)."""
    if not isinstance(schema, dict):
        return {}
    properties = p if isinstance(p := schema.get("properties"), dict) else {}
    required = [r for r in schema.get("required") or [] if isinstance(r, str)]
    return {name: _sample_value(properties.get(name, {})) for name in required}


def _sample_value(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return "test"
    if "default" in schema:
        return schema["default"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    minimum = schema.get("minimum")
    return {"string": "test", "integer": int(minimum) if isinstance(minimum, (int, float)) else 1,
            "number": minimum if isinstance(minimum, (int, float)) else 1, "boolean": False,
            "array": [], "object": sample_arguments(schema), "null": None}.get(str(kind), "test")


async def probe_tools(ctx: Context) -> None:
    if not ctx.options.call_tools and not ctx.options.call_all_tools:
        reason = f"tools are called only with {ctx.options.call_tools_hint}"
        ctx.not_applicable("tools-callable", reason)
        ctx.not_applicable("tool-output-conforms", reason)
        return
    tools, sentence, list_seqs = await ctx.listing("tools")
    if tools is None:
        ctx.unlisted("tools-callable", "tools", sentence, list_seqs)
        ctx.unlisted("tool-output-conforms", "tools", sentence, list_seqs)
        return
    allowed = [t for t in tools if ctx.options.call_all_tools
               or (isinstance(t.get("annotations"), dict) and t["annotations"].get("readOnlyHint") is True)]
    if not allowed:
        reason = ("no tool is annotated readOnlyHint (--call-all-tools calls the others too)" if tools
                  else "the server lists no tools")
        ctx.not_applicable("tools-callable", reason)
        ctx.not_applicable("tool-output-conforms", reason)
        return
    problems: list[str] = []
    schema_problems: list[str] = []
    seqs: list[int] = []
    schema_seqs: list[int] = []
    checked_output = 0
    chosen = allowed[:MAX_ITEMS]
    for tool in chosen:
        name = tool.get("name")
        try:
            # with a progressToken: a slow tool that reports progress is waited for (each report restarts the clock)
            arguments = sample_arguments(tool.get("inputSchema"))
            response = await ctx.ask("tools/call", {"name": name, "arguments": arguments,
                                                    "_meta": {"progressToken": f"check-{name}"}})
        except RequestTimeout:
            problems.append(f"{shown_name(name)}: no answer within {ctx.timeout:g} s")
            continue
        result, _ = result_of(response)
        error = error_of(response)
        if error is not None:
            problems.append(f"{shown_name(name)}: {code_text(error)}")
            seqs += exchange_seqs(response)
            continue
        if not isinstance(result, dict) or not isinstance(result.get("content"), list):
            problems.append(f"{shown_name(name)}: the result has no content list")
            seqs += exchange_seqs(response)
            continue
        output = tool.get("outputSchema")
        if isinstance(output, dict) and not result.get("isError") and \
                _schema_object_problem(output, need_object=not ctx.modern) is None:
            checked_output += 1
            if "structuredContent" not in result:
                schema_problems.append(f"{shown_name(name)} declares an outputSchema but its result has no "
                                       "structuredContent")
                schema_seqs += exchange_seqs(response)
                continue
            violation = first_violation(output, result["structuredContent"], root="structuredContent")
            if violation is not None:
                schema_problems.append(f"{shown_name(name)}: {violation.sentence}")
                schema_seqs += exchange_seqs(response)
    if problems:
        ctx.failed("tools-callable", f"{len(problems)} of {len(chosen)} tools failed: " + "; ".join(problems[:3]), seqs)
    else:
        ctx.passed("tools-callable", f"{len(chosen)} tools answered with a result")
    if schema_problems:
        ctx.failed("tool-output-conforms", "; ".join(schema_problems[:3]), schema_seqs)
    elif checked_output:
        ctx.passed("tool-output-conforms", f"{checked_output} results conform to their tool's outputSchema")
    else:
        ctx.not_applicable("tool-output-conforms", "no tool called declares an outputSchema")
