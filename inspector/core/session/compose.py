"""Message templates and checks for the composer, and prefilled answers to server requests.

What a client may send differs per protocol revision; the lists below are the ``ClientRequest`` and
``ClientNotification`` unions of each revision's ``schema.json``
(https://github.com/modelcontextprotocol/modelcontextprotocol/tree/main/schema), copied here because the
product must not need the spec files at run time (a test compares them with the schemas when they are there).

Request templates carry no ``id``: the session assigns one at send time (:meth:`Session.prepare_request`),
and in the 2026-07-28 era it also adds ``_meta`` with the protocol version, client capabilities and client
info, so templates leave ``_meta`` out too (except ``server/discover``, whose ``_meta`` is its whole point).
"""

from __future__ import annotations

import datetime
import json
import re
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from inspector.core.protocol.revisions import LATEST, REVISIONS
from inspector.core.session.handshake import MODERN_REVISION
from inspector.core.session.outcomes import client_info
from inspector.core.wire import jsonrpc
from inspector.core.wire.json_types import json_type

LATEST_REVISION = LATEST

_BASE_REQUESTS = (
    "initialize", "ping", "resources/list", "resources/templates/list", "resources/read", "resources/subscribe",
    "resources/unsubscribe", "prompts/list", "prompts/get", "tools/list", "tools/call",
)
_BASE_NOTIFICATIONS = (
    "notifications/cancelled", "notifications/initialized", "notifications/progress",
    "notifications/roots/list_changed",
)
_TASK_REQUESTS = ("tasks/get", "tasks/result", "tasks/cancel", "tasks/list")

#: Requests the client may send, per revision, in the schema's order (``ClientRequest``).
CLIENT_REQUESTS: dict[str, tuple[str, ...]] = {
    "2024-11-05": (*_BASE_REQUESTS, "logging/setLevel", "completion/complete"),
    "2025-03-26": (*_BASE_REQUESTS, "logging/setLevel", "completion/complete"),
    "2025-06-18": (*_BASE_REQUESTS, "logging/setLevel", "completion/complete"),
    "2025-11-25": (*_BASE_REQUESTS, *_TASK_REQUESTS, "logging/setLevel", "completion/complete"),
    "2026-07-28": (
        "server/discover", "resources/list", "resources/templates/list", "resources/read", "subscriptions/listen",
        "prompts/list", "prompts/get", "tools/list", "tools/call", "completion/complete",
    ),
}
#: Notifications the client may send, per revision, in the schema's order (``ClientNotification``).
CLIENT_NOTIFICATIONS: dict[str, tuple[str, ...]] = {
    "2024-11-05": _BASE_NOTIFICATIONS,
    "2025-03-26": _BASE_NOTIFICATIONS,
    "2025-06-18": _BASE_NOTIFICATIONS,
    "2025-11-25": (
        "notifications/cancelled", "notifications/initialized", "notifications/progress",
        "notifications/tasks/status", "notifications/roots/list_changed",
    ),
    "2026-07-28": ("notifications/cancelled",),
}

#: How deep a tool's inputSchema is followed when building placeholder arguments (schemas can be recursive).
MAX_SCHEMA_DEPTH = 8
#: Status text never grows past this many characters of server-provided text (a tool name can be huge).
MAX_NAME_IN_MESSAGE = 80

REQUEST_ID_PLACEHOLDER = "<id of the request to cancel>"
PROGRESS_TOKEN_PLACEHOLDER = "<progress token from the server's request>"
TASK_ID_PLACEHOLDER = "<task id>"


def _known(revision: str | None) -> TypeGuard[str]:
    return revision in CLIENT_REQUESTS


def client_requests(revision: str | None) -> list[str]:
    """Request methods a client may send in ``revision``; for an unknown revision, every revision's."""
    if _known(revision):
        return list(CLIENT_REQUESTS[revision])
    return _union(CLIENT_REQUESTS)


def client_notifications(revision: str | None) -> list[str]:
    """Notification methods a client may send in ``revision``; for an unknown revision, every revision's."""
    if _known(revision):
        return list(CLIENT_NOTIFICATIONS[revision])
    return _union(CLIENT_NOTIFICATIONS)


def client_methods(revision: str | None) -> list[str]:
    """Requests, then notifications, that a client may send in ``revision``.

    An unknown revision (a server newer than this inspector, or no handshake) offers every method any known
    revision has: the inspector is a debugger, and sending an off-revision message is sometimes the test.
    """
    return client_requests(revision) + client_notifications(revision)


def _union(table: dict[str, tuple[str, ...]]) -> list[str]:
    seen: dict[str, None] = {}
    for revision in reversed(REVISIONS):
        for method in table[revision]:
            seen.setdefault(method, None)
    return list(seen)


def is_notification(method: str) -> bool:
    """Every MCP notification method, in every revision, starts with ``notifications/``."""
    return method.startswith("notifications/")


def is_request(obj: Any) -> bool:
    """A single message that asks for an answer: a string method that is not a notification method, and no
    result or error. Requests like this get an id (and ``_meta``) from :meth:`Session.prepare_request`."""
    return (isinstance(obj, dict) and isinstance(obj.get("method"), str) and not is_notification(obj["method"])
            and "result" not in obj and "error" not in obj)


# -- templates -----------------------------------------------------------------------------------------


def template(method: str, revision: str | None, *, tools: list[dict[str, Any]] | None = None,
             resources: list[dict[str, Any]] | None = None,
             prompts: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A complete JSON-RPC message for ``method`` in ``revision``, ready to edit and send.

    ``tools``, ``resources`` and ``prompts`` are what the server listed (the ``tools``, ``resources`` /
    ``resourceTemplates`` and ``prompts`` arrays of its list results); the first usable entry prefills the
    name, uri or arguments. Requests have no ``id`` (assigned at send time). Any method gets a template, even
    one that ``revision`` does not have; unknown methods get empty params.
    """
    revision = revision if _known(revision) else LATEST_REVISION
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    params = _params(method, revision, tools or [], resources or [], prompts or [])
    if params is not None:
        message["params"] = params
    return message


def _params(method: str, revision: str, tools: list[Any], resources: list[Any], prompts: list[Any]) -> Any:
    if method in ("ping", "notifications/initialized", "notifications/roots/list_changed", "resources/list",
                  "resources/templates/list", "prompts/list", "tools/list", "tasks/list"):
        return None
    if method == "initialize":
        return {"protocolVersion": revision, "capabilities": _client_capabilities(revision),
                "clientInfo": client_info()}
    if method == "server/discover":
        version = MODERN_REVISION if "initialize" in CLIENT_REQUESTS[revision] else revision
        return {"_meta": {
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": _client_capabilities(version),
            "io.modelcontextprotocol/clientInfo": client_info(),
        }}
    if method in ("resources/read", "resources/subscribe", "resources/unsubscribe"):
        return {"uri": _first_resource_uri(resources) or "file:///path/to/resource"}
    if method == "prompts/get":
        prompt = _first_named(prompts)
        if prompt is None:
            return {"name": "prompt-name", "arguments": {}}
        return {"name": prompt["name"], "arguments": _prompt_arguments(prompt)}
    if method == "tools/call":
        tool = _first_named(tools)
        if tool is None:
            return {"name": "tool-name", "arguments": {}}
        schema = tool.get("inputSchema")
        arguments = placeholder(schema) if isinstance(schema, dict) else {}
        return {"name": tool["name"], "arguments": arguments if isinstance(arguments, dict) else {}}
    if method == "logging/setLevel":
        return {"level": "info"}
    if method == "completion/complete":
        return _completion(prompts, resources)
    if method == "subscriptions/listen":
        notifications: dict[str, Any] = {"toolsListChanged": True, "promptsListChanged": True,
                                         "resourcesListChanged": True}
        uri = _first_resource_uri(resources)
        if uri is not None:
            notifications["resourceSubscriptions"] = [uri]
        return {"notifications": notifications}
    if method in ("tasks/get", "tasks/result", "tasks/cancel"):
        return {"taskId": TASK_ID_PLACEHOLDER}
    if method == "notifications/cancelled":
        return {"requestId": REQUEST_ID_PLACEHOLDER, "reason": "cancelled from the mcp-inspector composer"}
    if method == "notifications/progress":
        return {"progressToken": PROGRESS_TOKEN_PLACEHOLDER, "progress": 50, "total": 100}
    if method == "notifications/tasks/status":
        now = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
        return {"taskId": TASK_ID_PLACEHOLDER, "status": "working", "createdAt": now, "lastUpdatedAt": now,
                "ttl": None}
    return {}


def _client_capabilities(revision: str) -> dict[str, Any]:
    """What the inspector can do as a client: answer roots/list, sampling and (from 2025-06-18) elicitation."""
    caps: dict[str, Any] = {"roots": {}, "sampling": {}}
    if revision in ("2025-06-18",):
        caps["elicitation"] = {}
    elif revision in ("2025-11-25", "2026-07-28"):
        caps["elicitation"] = {"form": {}, "url": {}}
    return caps


def _first_named(items: list[Any]) -> dict[str, Any] | None:
    return next((i for i in items if isinstance(i, dict) and isinstance(i.get("name"), str)), None)


def _first_resource_uri(resources: list[Any]) -> str | None:
    return next((r["uri"] for r in resources if isinstance(r, dict) and isinstance(r.get("uri"), str)), None)


def _prompt_arguments(prompt: dict[str, Any]) -> dict[str, str]:
    """Required prompt arguments get an empty string (prompt arguments are strings); optional ones are left out."""
    args = prompt.get("arguments")
    if not isinstance(args, list):
        return {}
    return {a["name"]: "" for a in args if isinstance(a, dict) and isinstance(a.get("name"), str) and a.get("required")}


def _completion(prompts: list[Any], resources: list[Any]) -> dict[str, Any]:
    """A ref to the first prompt that has arguments, else the first resource template, else a placeholder prompt."""
    for prompt in prompts:
        if isinstance(prompt, dict) and isinstance(prompt.get("name"), str):
            names = [a["name"] for a in prompt.get("arguments") or []
                     if isinstance(a, dict) and isinstance(a.get("name"), str)]
            if names:
                return {"ref": {"type": "ref/prompt", "name": prompt["name"]},
                        "argument": {"name": names[0], "value": ""}}
    for resource in resources:
        if isinstance(resource, dict) and isinstance(resource.get("uriTemplate"), str):
            variables = re.findall(r"\{[+#./;?&]?([A-Za-z0-9_]+)", resource["uriTemplate"])
            return {"ref": {"type": "ref/resource", "uri": resource["uriTemplate"]},
                    "argument": {"name": variables[0] if variables else "argument", "value": ""}}
    return {"ref": {"type": "ref/prompt", "name": "prompt-name"}, "argument": {"name": "argument", "value": ""}}


def placeholder(schema: Any, *, all_properties: bool = False, _root: Any = None, _depth: int = 0) -> Any:
    """A value that fits a JSON Schema: its ``default`` (or ``const``, first ``enum`` / ``examples`` value) if
    it has one, else a type-appropriate empty value (``""``, ``0``, ``false``, ``[]``, an object).

    Objects get their properties that have a default, and their required ones; with ``all_properties`` every
    property (used for elicitation forms, where the user should see every field).
    """
    root = schema if _root is None else _root
    if not isinstance(schema, dict) or _depth > MAX_SCHEMA_DEPTH:
        return ""
    if isinstance(schema.get("$ref"), str):
        target = _resolve_ref(root, schema["$ref"])
        if target is not None:
            return placeholder(target, all_properties=all_properties, _root=root, _depth=_depth + 1)
    for key in ("default", "const"):
        if key in schema:
            return schema[key]
    for key in ("enum", "examples"):
        if isinstance(schema.get(key), list) and schema[key]:
            return schema[key][0]
    for key in ("oneOf", "anyOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and branches:
            if key == "oneOf" and all(isinstance(b, dict) and "const" in b for b in branches):
                return branches[0]["const"]  # a titled enum
            usable = [b for b in branches if not (isinstance(b, dict) and b.get("type") == "null")]
            return placeholder((usable or branches)[0], all_properties=all_properties, _root=root, _depth=_depth + 1)
    if isinstance(schema.get("allOf"), list) and schema["allOf"]:
        return placeholder(schema["allOf"][0], all_properties=all_properties, _root=root, _depth=_depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), kind[0] if kind else None)
    if kind is None and isinstance(schema.get("properties"), dict):
        kind = "object"
    if kind == "object":
        return _object_placeholder(schema, all_properties, root, _depth)
    if kind == "array":
        count = n if isinstance(n := schema.get("minItems"), int) else 0
        item = placeholder(schema.get("items"), _root=root, _depth=_depth + 1) if count else None
        return [item for _ in range(min(count, 10))]
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum"))
        if isinstance(low, (int, float)) and not isinstance(low, bool) and low > 0:
            return low if "minimum" in schema else (low + 1 if kind == "integer" else low)
        return 0
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    return ""


def _object_placeholder(schema: dict[str, Any], all_properties: bool, root: Any, depth: int) -> dict[str, Any]:
    properties = p if isinstance(p := schema.get("properties"), dict) else {}
    required = set(r for r in schema.get("required") or [] if isinstance(r, str))
    out: dict[str, Any] = {}
    for name, sub in properties.items():
        has_default = isinstance(sub, dict) and "default" in sub
        if all_properties or has_default or name in required:
            out[name] = placeholder(sub, all_properties=all_properties, _root=root, _depth=depth + 1)
    for name in sorted(required - set(properties)):
        out[name] = ""
    return out


def _resolve_ref(root: Any, ref: str) -> Any:
    if not ref.startswith("#"):
        return None
    node = root
    for part in ref.lstrip("#").split("/"):
        if not part:
            continue
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


# -- validation ----------------------------------------------------------------------------------------


@dataclass
class Validation:
    """What the composer's status line says about the editor's text.

    ``ok`` means it can be sent as a parsed message (``obj``); ``severity`` is ``ok``, ``warning`` (sendable,
    but something is off) or ``error`` (only raw mode can send it). ``message`` is one sentence.
    """

    ok: bool
    message: str
    obj: Any = None
    severity: str = "ok"
    kind: str | None = None  #: request, notification, response, batch, or None when not sendable
    warnings: list[str] = field(default_factory=list)
    line: int | None = None  #: where the JSON breaks (1-based), for a syntax error
    column: int | None = None  #: 1-based, in characters

    @property
    def warning(self) -> bool:
        return self.severity == "warning"


def _parse(text: str) -> tuple[Any, Validation | None]:
    """The JSON of the user's text, or the error that blocks it: the line and column (1-based), and the name
    of a constant JSON does not have (NaN, Infinity)."""
    try:
        return json.loads(text, parse_constant=_reject_constant), None
    except json.JSONDecodeError as exc:
        return None, Validation(False, f"line {exc.lineno}, column {exc.colno}: {exc.msg}", severity="error",
                                line=exc.lineno, column=exc.colno)
    except _NotJson as exc:
        line, column = _position(text, exc.token)
        return None, Validation(False, f"line {line}, column {column}: {exc.token} is not JSON (write null or a "
                                "number)", severity="error", line=line, column=column)


def validate(text: str) -> Validation:
    """Parse the composer's text and say whether and how it would be sent.

    JSON errors name the line and column (1-based). JSON-RPC problems (no ``"jsonrpc"``, no ``"method"``, a
    notification method carrying an id, ...) are warnings: the message can still be sent, since sending odd
    messages on purpose is part of debugging a server.
    """
    if not text.strip():
        return Validation(False, "nothing to send: write a JSON-RPC message or pick a method", severity="error")
    obj, problem = _parse(text)
    if problem is not None:
        return problem
    if not isinstance(obj, (dict, list)):
        return Validation(False, f"a JSON-RPC message is an object (or a batch array), not a {json_type(obj)}; "
                                 "tick Raw to send it anyway", obj=obj, severity="error")
    info, findings = jsonrpc.classify(obj)
    warnings = [f.text for f in findings]
    if isinstance(obj, list):
        kind = "batch"
        summary = f"batch of {len(obj)} message{'s' if len(obj) != 1 else ''} (sent as typed, no ids added)"
    elif is_request(obj):
        kind = "request"
        summary = f"request {_describe(obj)}" + ("" if "id" in obj else " (id added at send)")
    elif isinstance(obj.get("method"), str):
        kind = "notification"
        summary = f"notification {_describe(obj)}"
    elif info.kind in (jsonrpc.RESPONSE, jsonrpc.ERROR):
        kind = "response"
        what = "error response" if info.kind == jsonrpc.ERROR else "response"
        summary = f"{what} to id {_short(json.dumps(obj.get('id'), ensure_ascii=False))}"
    else:
        kind = "message"
        summary = "message"
    if warnings:
        more = f" (and {len(warnings) - 1} more)" if len(warnings) > 1 else ""
        return Validation(True, f"{summary}, but {warnings[0]}{more}", obj, "warning", kind, warnings)
    return Validation(True, f"valid {summary}", obj, "ok", kind)


def _describe(obj: dict[str, Any]) -> str:
    method = obj["method"]
    params = obj.get("params")
    if isinstance(params, dict):
        for key in ("name", "uri"):
            if isinstance(params.get(key), str):
                return f"{_short(method)} {_short(params[key])}"
    return _short(method)


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_NAME_IN_MESSAGE else text[:MAX_NAME_IN_MESSAGE - 1] + "…"


class _NotJson(ValueError):
    def __init__(self, token: str) -> None:
        super().__init__(token)
        self.token = token


def _reject_constant(token: str) -> Any:
    raise _NotJson(token)  # Python's json accepts NaN and Infinity; JSON does not


def _position(text: str, token: str) -> tuple[int, int]:
    match = re.search(r'(?<![\w"])-?' + re.escape(token.lstrip("-")), text)
    offset = match.start() if match else 0
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


# -- answers to server requests ------------------------------------------------------------------------


def server_request_reply(method: str, params: Any) -> Any:
    """A prefilled result for a request the server sent, for the user to edit and send.

    sampling/createMessage gets an empty assistant text message; elicitation/create accepts, with every field
    of the requested form filled with its default or a type-appropriate placeholder (URL-mode elicitation
    accepts with no content); roots/list gets no roots; anything else an empty object.
    """
    params = params if isinstance(params, dict) else {}
    if method == "sampling/createMessage":
        return {"role": "assistant", "content": {"type": "text", "text": ""}, "model": "mcp-inspector",
                "stopReason": "endTurn"}
    if method == "elicitation/create":
        if params.get("mode") == "url":
            return {"action": "accept"}
        schema = params.get("requestedSchema")
        content = placeholder(schema, all_properties=True) if isinstance(schema, dict) else {}
        return {"action": "accept", "content": content if isinstance(content, dict) else {}}
    if method == "roots/list":
        return {"roots": []}
    return {}


def check_reply(method: str, text: str, *, revision: str | None = None, params: Any = None) -> Validation:
    """Check the user's answer to the server's ``method`` request (sent with ``params``): JSON errors with line
    and column block it; what the judge would flag once it is sent (the revision's schema, an elicitation's
    ``requestedSchema``: :func:`inspector.core.protocol.replies.reply_problems`, the one check both share) is a
    warning, listed in ``warnings``: it can still be sent, on purpose. ``revision`` None: the latest's schema."""
    from inspector.core.protocol.replies import reply_problems

    if not text.strip():
        return Validation(False, "nothing to answer with: write a JSON result", severity="error")
    obj, problem = _parse(text)
    if problem is not None:
        return problem
    if not isinstance(obj, dict):
        problems = [f"a result is a JSON object, not a {json_type(obj)}"]
    else:
        problems = [v.sentence for v in reply_problems(method, obj, revision=revision or LATEST, params=params)]
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        return Validation(True, f"sendable, but {problems[0]}{more}", obj, "warning", "result", problems)
    return Validation(True, f"valid {method} result" if method else "valid result", obj, "ok", "result")


#: A history label never shows more than this many characters of the message's name or URI.
LABEL_CHARS = 60


def history_label(validation: Validation) -> str:
    """How the composer's history names a message: its method and tool or resource (``tools/call echo``), a
    response by its id, a batch by its size; cut to :data:`LABEL_CHARS`."""
    obj = validation.obj
    if validation.kind == "batch" and isinstance(obj, list):
        return f"batch of {len(obj)}"
    if isinstance(obj, dict):
        method = obj.get("method")
        params = obj.get("params")
        name = ""
        if isinstance(params, dict):
            name = next((params[k] for k in ("name", "uri") if isinstance(params.get(k), str)), "")
        if isinstance(method, str):
            text = f"{method} {name}".strip()
        elif "id" in obj:
            text = f"response to {json.dumps(obj['id'], ensure_ascii=False)}"
        else:
            text = "message"
    else:
        text = "not JSON"
    text = " ".join(text.split())
    return text if len(text) <= LABEL_CHARS else text[:LABEL_CHARS - 1] + "…"
