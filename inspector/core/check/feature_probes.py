"""The probes of ``mcp-inspector check`` for optional server features the official conformance suite checks
without fixtures of its own: logging/setLevel and resource subscriptions (up to 2025-11-25, when the server
declares them), and in 2026-07-28 a resource that does not exist (SEP-2164), the caching hints of list
results (SEP-2549) and input_required where it may not come (SEP-2322).

Each applies only where the server declares the capability; a capability declared whose requests cannot be
made is "incomplete", with why.
"""

from __future__ import annotations

import json
from typing import Any

from inspector.core.check.context import Context, message_seqs, seqs_of
from inspector.core.check.modern_probes import ask
from inspector.core.explore.listing import ListingError, list_all
from inspector.core.session.outcomes import RequestTimeout
from inspector.core.wire.events import Direction, Kind

#: A uri no server has (the scheme is the suite's own, so a server that only knows its own scheme still
#: judges it as a uri it does not have rather than one it cannot parse).
MISSING_URI = "test://mcp-inspector/no-such-resource"
#: The code 2025-11-25 used for a resource not found, which 2026-07-28 retired.
RETIRED_NOT_FOUND = -32002
INVALID_PARAMS = -32602
#: The results that carry caching hints in 2026-07-28, by the capability that offers them.
CACHEABLE: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("tools", "tools/list", {}), ("prompts", "prompts/list", {}), ("resources", "resources/list", {}),
    ("resources", "resources/templates/list", {}))
CACHE_SCOPES = ("public", "private")


def _empty(result: Any) -> bool:
    return isinstance(result, dict) and not {k: v for k, v in result.items() if k not in ("_meta", "resultType")}


async def probe_lists(ctx: Context) -> None:
    """Each list the server declares (tools, prompts, resources), every page of it."""
    answered: list[str] = []
    wrong: list[str] = []
    seqs: list[int] = []
    for kind in ("tools", "prompts", "resources"):
        if kind not in ctx.info.capabilities:
            continue
        items, sentence, list_seqs = await ctx.listing(kind)
        seqs += list_seqs
        if items is None:
            wrong.append(f"the server declares {kind}, yet {sentence}")
        else:
            answered.append(sentence)
    if wrong:
        ctx.failed("lists-answered", "; ".join(wrong), seqs)
    elif answered:
        ctx.passed("lists-answered", "; ".join(answered), seqs)
    else:
        ctx.not_applicable("lists-answered", "the server declares neither tools, prompts nor resources")


async def probe_tools_order(ctx: Context) -> None:
    """tools/list twice (every page), the names compared in order."""
    first, sentence, seqs = await ctx.listing("tools")
    if first is None:
        ctx.unlisted("tools-order-stable", "tools", sentence, seqs)
        return
    if len(first) < 2:
        ctx.not_applicable("tools-order-stable", f"the server lists {len(first)} tool(s): no order to compare")
        return
    mark = ctx.mark()
    try:
        again = await list_all(ctx.session, "tools", timeout=ctx.timeout)
    except (ListingError, RequestTimeout) as exc:
        ctx.incomplete("tools-order-stable", f"tools/list asked again got no list: {exc}", seqs_of(ctx.since(mark)))
        return
    seqs = seqs + message_seqs(ctx.since(mark))
    names = [str(t.get("name")) for t in first]
    names_again = [str(t.get("name")) for t in again.items]
    if sorted(names) != sorted(names_again):
        ctx.incomplete("tools-order-stable", "the set of tools changed between the two lists, so their order "
                                             "could not be compared", seqs)
    elif names != names_again:
        at = next(i for i, (a, b) in enumerate(zip(names, names_again, strict=True)) if a != b)
        ctx.failed("tools-order-stable", f"the same {len(names)} tools came in another order: at {at} "
                                         f"{names[at][:60]!r}, then {names_again[at][:60]!r}", seqs)
    else:
        ctx.passed("tools-order-stable", f"the same {len(names)} tools in the same order twice", seqs)


async def probe_logging(ctx: Context) -> None:
    if "logging" not in ctx.info.capabilities:
        ctx.not_applicable("logging-set-level", "the server does not declare the logging capability")
        return
    answer = await ask(ctx, "logging/setLevel", {"level": "info"}, meta=True)
    if answer.result is not None and _empty(answer.result):
        ctx.passed("logging-set-level", "logging/setLevel info was answered with {}", answer.seqs)
    elif answer.result is not None:
        ctx.failed("logging-set-level", f"logging/setLevel was answered with {json.dumps(answer.result)[:200]}, "
                                        "not an empty result", answer.seqs)
    elif answer.error is not None:
        ctx.failed("logging-set-level", f"the server declares logging, yet logging/setLevel got {answer.what()}",
                   answer.seqs)
    else:
        ctx.incomplete("logging-set-level", f"logging/setLevel got {answer.what()}", answer.seqs)


async def probe_subscribe(ctx: Context) -> None:
    ids = ("resources-subscribe", "resources-unsubscribe")
    resources_cap = ctx.info.capabilities.get("resources")
    if not (isinstance(resources_cap, dict) and resources_cap.get("subscribe") is True):
        for check_id in ids:
            ctx.not_applicable(check_id, "the server does not declare resources.subscribe")
        return
    items, sentence, seqs = await ctx.listing("resources")
    if items is None:
        for check_id in ids:
            ctx.incomplete(check_id, f"{sentence}, so there was nothing to subscribe to", seqs)
        return
    uri = next((r["uri"] for r in items if isinstance(r.get("uri"), str)), None)
    if uri is None:
        for check_id in ids:
            ctx.not_applicable(check_id, "the server lists no resource to subscribe to")
        return
    for check_id, method in zip(ids, ("resources/subscribe", "resources/unsubscribe"), strict=True):
        answer = await ask(ctx, method, {"uri": uri}, meta=True)
        if answer.result is not None and _empty(answer.result):
            ctx.passed(check_id, f"{method} {uri[:200]} was answered with {{}}", answer.seqs)
        elif answer.result is not None or answer.error is not None:
            got = (f"{json.dumps(answer.result)[:200]}, not an empty result" if answer.result is not None
                   else answer.what())
            ctx.failed(check_id, f"the server declares resources.subscribe, yet {method} {uri[:200]} got {got}",
                       answer.seqs)
        else:
            ctx.incomplete(check_id, f"{method} got {answer.what()}", answer.seqs)


async def probe_resource_not_found(ctx: Context) -> None:
    ids = ("resource-not-found", "resource-not-found-code")
    if "resources" not in ctx.info.capabilities:
        for check_id in ids:
            ctx.not_applicable(check_id, "the server does not declare the resources capability")
        return
    answer = await ask(ctx, "resources/read", {"uri": MISSING_URI}, meta=True)
    if answer.result is not None:
        contents = answer.result.get("contents") if isinstance(answer.result, dict) else None
        if isinstance(contents, list) and not contents:
            ctx.failed("resource-not-found", f"resources/read {MISSING_URI} got a result with empty contents",
                       answer.seqs)
        else:
            ctx.passed("resource-not-found", f"resources/read {MISSING_URI} got a result with contents (the server "
                                             "makes up what it is asked for)", answer.seqs)
        ctx.failed("resource-not-found-code", f"resources/read {MISSING_URI} got a result, not error -32602",
                   answer.seqs)
        return
    if answer.error is None:
        for check_id in ids:
            ctx.incomplete(check_id, f"resources/read {MISSING_URI} got {answer.what()}", answer.seqs)
        return
    if answer.code == RETIRED_NOT_FOUND:
        ctx.failed("resource-not-found", f"{answer.what()}: 2026-07-28 retired -32002 (it is -32602 now)",
                   answer.seqs)
    else:
        ctx.passed("resource-not-found", f"resources/read {MISSING_URI} got {answer.what()}", answer.seqs)
    data = answer.error.get("data") if answer.error is not None else None
    data_uri = data.get("uri") if isinstance(data, dict) else None
    wrong = []
    if answer.code != INVALID_PARAMS:
        wrong.append(f"the code is {answer.code}, not -32602")
    if data_uri != MISSING_URI:
        wrong.append(f"data.uri is {json.dumps(data_uri)[:200]}, not the uri asked for")
    if wrong:
        ctx.failed("resource-not-found-code", "; ".join(wrong), answer.seqs)
    else:
        ctx.passed("resource-not-found-code", "-32602 with data.uri", answer.seqs)


def _hint_problems(result: Any) -> list[str]:
    if not isinstance(result, dict):
        return ["no result"]
    out = []
    ttl = result.get("ttlMs")
    if "ttlMs" not in result:
        out.append("no ttlMs")
    elif not (isinstance(ttl, int) and not isinstance(ttl, bool) and ttl >= 0):
        out.append(f"ttlMs {json.dumps(ttl)[:40]} (not an integer of 0 or more)")
    if "cacheScope" not in result:
        out.append("no cacheScope")
    elif result["cacheScope"] not in CACHE_SCOPES:
        out.append(f"cacheScope {json.dumps(result['cacheScope'])[:40]} (neither public nor private)")
    return out


async def probe_caching(ctx: Context) -> None:
    asked: list[str] = []
    wrong: list[str] = []
    seqs: list[int] = []
    requests: list[tuple[str, dict[str, Any]]] = [(m, p) for cap, m, p in CACHEABLE if cap in ctx.info.capabilities]
    if "resources" in ctx.info.capabilities:
        items, _, _ = await ctx.listing("resources")
        uri = next((r["uri"] for r in items or [] if isinstance(r.get("uri"), str)), None)
        if uri is not None:
            requests.append(("resources/read", {"uri": uri}))
    if not requests:
        ctx.not_applicable("caching-hints", "the server declares no tools, prompts or resources")
        return
    for method, params in requests:
        answer = await ask(ctx, method, params, meta=True)
        seqs += answer.seqs
        if answer.result is None:
            ctx.incomplete("caching-hints", f"{method} got {answer.what()}, so its hints could not be seen", seqs)
            return
        asked.append(method)
        problems = _hint_problems(answer.result)
        if problems:
            wrong.append(f"{method}: {', '.join(problems)}")
    if wrong:
        ctx.failed("caching-hints", "; ".join(wrong), seqs)
    else:
        ctx.passed("caching-hints", f"{', '.join(asked)}: each with ttlMs and cacheScope", seqs)


async def probe_input_required(ctx: Context) -> None:
    """tools/list and prompts/list are asked (declared or not, as the suite does: an undeclared one answers
    -32601), and the server's answers read as they came: the session fulfils an input_required by itself, so
    the first answer is looked for on the wire."""
    seqs: list[int] = []
    offenders: list[str] = []
    answered: list[str] = []
    for method in ("tools/list", "prompts/list"):
        mark = ctx.mark()
        answer = await ask(ctx, method, {}, meta=True)
        seqs += answer.seqs
        if answer.result is not None or answer.error is not None:
            answered.append(method)
        for event in ctx.since(mark):
            if event.kind != Kind.MESSAGE or event.dir != Direction.S2C:
                continue
            try:
                obj = event.json()
            except (ValueError, RecursionError):
                continue
            result = obj.get("result") if isinstance(obj, dict) else None
            if isinstance(result, dict) and result.get("resultType") == "input_required":
                offenders.append(method)
                break
    if offenders:
        ctx.failed("input-required-not-on-lists", f"{', '.join(offenders)} answered resultType input_required",
                   seqs)
    elif not answered:
        ctx.incomplete("input-required-not-on-lists", "neither tools/list nor prompts/list was answered", seqs)
    else:
        ctx.passed("input-required-not-on-lists", f"{', '.join(answered)} answered without input_required", seqs)
