"""JSON-RPC 2.0 classification of one decoded message, and the structural findings it carries on its own.

Pairing with other messages (unknown ids, duplicates, latency) is :mod:`inspector.core.wire.correlation`'s job;
this module looks at one message only. Spec: https://www.jsonrpc.org/specification and
https://modelcontextprotocol.io/specification/2025-11-25/basic#messages
"""

from __future__ import annotations

from typing import Any

from inspector.core.wire.events import Finding, RpcInfo
from inspector.core.wire.json_types import json_type

REQUEST = "request"
NOTIFICATION = "notification"
RESPONSE = "response"
ERROR = "error"
BATCH = "batch"
INVALID = "invalid"
#: The codes of :func:`classify`'s findings that make a message invalid JSON-RPC. ``id-null`` is left out:
#: JSON-RPC itself answers with a null id when it could not read the request's, and servers do so.
INVALID_CODES = frozenset({
    "jsonrpc-missing", "jsonrpc-wrong", "id-type", "method-and-result", "method-and-error", "method-type",
    "result-and-error", "response-without-id", "error-shape", "error-code", "error-message", "not-jsonrpc",
    "empty-batch", "batch-item",
})


#: Well-formed notifications share one immutable RpcInfo per method: floods of them cost no summary objects.
_NOTIFICATION_INFO: dict[str, RpcInfo] = {}
_NOTIFICATION_CACHE_SIZE = 1024


def classify(obj: Any) -> tuple[RpcInfo, list[Finding]]:
    """Classify a parsed JSON value as a JSON-RPC message and list what is wrong with it.

    The caller has already made sure ``obj`` is a dict or a list (anything else is a framing error).
    The returned RpcInfo may be shared between events: treat it as immutable.
    """
    if type(obj) is dict and obj.get("jsonrpc") == "2.0":
        # the fast paths: a well-formed notification, request or response, which have nothing to find (what the
        # general path below would conclude of them, in a few lookups: a load run's every message is one)
        if "result" not in obj and "error" not in obj:
            method = obj.get("method")
            if type(method) is str:
                if "id" not in obj:
                    info = _NOTIFICATION_INFO.get(method)
                    if info is None:
                        info = RpcInfo(NOTIFICATION, method)
                        if len(_NOTIFICATION_INFO) < _NOTIFICATION_CACHE_SIZE:
                            _NOTIFICATION_INFO[method] = info
                    return info, []
                msg_id = obj["id"]
                if (type(msg_id) is int or type(msg_id) is str) and not method.startswith("notifications/"):
                    return RpcInfo(REQUEST, method, msg_id, True), []
        elif "error" not in obj and "method" not in obj:
            msg_id = obj.get("id")
            if type(msg_id) is int or type(msg_id) is str:
                return RpcInfo(RESPONSE, None, msg_id, True), []
    if isinstance(obj, list):
        return _classify_batch(obj)
    findings: list[Finding] = []
    has_id = "id" in obj
    msg_id = obj.get("id")
    method = obj.get("method")
    _check_version(obj, findings)
    if has_id and msg_id is None:
        findings.append(Finding("id-null", '"id" is null; MCP requests and responses need a string or number id'))
    elif has_id and not _valid_id_type(msg_id):
        findings.append(
            Finding("id-type", f'"id" is a {json_type(msg_id)}; JSON-RPC ids must be a string or a number')
        )
    elif has_id and isinstance(msg_id, float):
        findings.append(Finding("id-type", f'"id" is {msg_id!r}, a number with a fraction; MCP ids are '
                                               "strings or integers"))
    if isinstance(method, str):
        for key in ("result", "error"):
            if key in obj:
                findings.append(Finding("method-and-" + key, f'a message with "method" must not carry "{key}"'))
        if has_id:
            if method.startswith("notifications/"):
                findings.append(
                    Finding(
                        "notification-with-id",
                        f"{method} is a notification method but the message carries an id, so it is a request "
                        "that nobody will answer",
                    )
                )
            return RpcInfo(REQUEST, method, msg_id, True), findings
        return RpcInfo(NOTIFICATION, method, None, False), findings
    if "method" in obj:
        findings.append(Finding("method-type", f'"method" is a {json_type(method)}, not a string'))
        return RpcInfo(INVALID, None, msg_id, has_id), findings
    if "result" in obj or "error" in obj:
        if "result" in obj and "error" in obj:
            findings.append(Finding("result-and-error", 'a response carries both "result" and "error"'))
        if not has_id:
            findings.append(Finding("response-without-id", 'a response without "id" cannot be paired'))
        if "error" in obj:
            _check_error_object(obj["error"], findings)
            return RpcInfo(ERROR, None, msg_id, has_id), findings
        return RpcInfo(RESPONSE, None, msg_id, has_id), findings
    findings.append(
        Finding("not-jsonrpc", 'neither a request (no "method") nor a response (no "result" or "error")')
    )
    return RpcInfo(INVALID, None, msg_id, has_id), findings


def _classify_batch(items: list[Any]) -> tuple[RpcInfo, list[Finding]]:
    findings: list[Finding] = []
    if not items:
        findings.append(Finding("empty-batch", "an empty batch is invalid JSON-RPC"))
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            findings.append(Finding("batch-item", f"batch element {index} is a {json_type(item)}, not an object"))
            continue
        _, item_findings = classify(item)
        for finding in item_findings:
            findings.append(Finding(finding.code, f"batch element {index}: {finding.text}", finding.severity))
    return RpcInfo(BATCH, None, None, False, size=len(items)), findings


def _check_version(obj: dict[str, Any], findings: list[Finding]) -> None:
    if "jsonrpc" not in obj:
        findings.append(Finding("jsonrpc-missing", 'no "jsonrpc": "2.0" member'))
    elif obj["jsonrpc"] != "2.0":
        findings.append(Finding("jsonrpc-wrong", f'"jsonrpc" is {obj["jsonrpc"]!r}, it must be the string "2.0"'))


def _check_error_object(error: Any, findings: list[Finding]) -> None:
    if not isinstance(error, dict):
        findings.append(Finding("error-shape", f'"error" is a {json_type(error)}, not an object'))
        return
    if not isinstance(error.get("code"), int) or isinstance(error.get("code"), bool):
        findings.append(Finding("error-code", '"error.code" must be an integer'))
    if not isinstance(error.get("message"), str):
        findings.append(Finding("error-message", '"error.message" must be a string'))


def _valid_id_type(value: Any) -> bool:
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)
