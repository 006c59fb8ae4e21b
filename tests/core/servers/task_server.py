"""A stdio server that runs tools as tasks, in both forms: with ``--legacy`` the 2025-11-25 ``tasks`` capability
(``params.task``, ``tasks/get``, ``tasks/result``, ``tasks/list``, ``tasks/cancel``, ``notifications/tasks/status``),
without it a 2026-07-28 server declaring the ``io.modelcontextprotocol/tasks`` extension (SEP-2663: ``resultType:
"task"``, ``tasks/get`` with the result inline, ``tasks/update`` with ``inputResponses``, ``tasks/cancel`` acked).

No SDK implements the extension, hence this script (the 2025-11-25 form is also tested against npm
server-everything). Tools:

* ``slow-sum`` (taskSupport ``optional``): a + b, after 0.6 s, with a progress notification per poll;
* ``ask-name`` (``required``): asks for a name (an elicitation: on ``tasks/result``'s stream in the legacy form,
  in ``inputRequests`` with the extension, where the answer shows only two polls after ``tasks/update``, the
  question still asked meanwhile), then says hello;
* ``quick`` (no taskSupport: forbidden): answers at once;
* ``forever`` (``required``): never ends unless cancelled.

``--poll-ms N`` sets the pollInterval it suggests (default 200).
"""

import json
import os
import select
import sys
import time
import uuid

LEGACY = "--legacy" in sys.argv
POLL_MS = int(sys.argv[sys.argv.index("--poll-ms") + 1]) if "--poll-ms" in sys.argv else 200
EXT = "io.modelcontextprotocol/tasks"
TOOLS = [
    {"name": "slow-sum", "inputSchema": {"type": "object", "properties": {"a": {"type": "number"},
                                                                         "b": {"type": "number"}}},
     "execution": {"taskSupport": "optional"}},
    {"name": "ask-name", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}},
    {"name": "quick", "inputSchema": {"type": "object"}},
    {"name": "forever", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}},
]
tasks = {}  # id -> state
waiting_results = []  # (request id, task id): tasks/result calls blocked until their task ends
asked = {}  # our elicitation request id -> task id


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def now_iso():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def task_view(task, detailed=True):
    view = {"taskId": task["id"], "status": task["status"], "createdAt": task["created"],
            "lastUpdatedAt": now_iso()}
    if task.get("message"):
        view["statusMessage"] = task["message"]
    if LEGACY:
        view.update(ttl=60000, pollInterval=POLL_MS)
    else:
        view.update(ttlMs=60000, pollIntervalMs=POLL_MS)
        if detailed and task["status"] == "input_required":
            view["inputRequests"] = {"name": elicitation()}
        if detailed and task["status"] == "completed":
            view["result"] = task["result"]
    return view


def elicitation():
    return {"method": "elicitation/create", "params": {
        "mode": "form", "message": "Please enter your name.",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string", "default": "Ada"}},
                            "required": ["name"]}}}


def advance(task):
    """Move a task on by the clock (slow-sum ends 0.6 s in; ask-name asks 0.2 s in)."""
    if task["status"] in ("completed", "failed", "cancelled"):
        return
    age = time.monotonic() - task["t0"]
    if task["tool"] == "slow-sum" and age >= 0.6:
        args = task["arguments"]
        finish(task, {"content": [{"type": "text", "text": str(args.get("a", 0) + args.get("b", 0))}]})
    elif task["tool"] == "ask-name" and task["status"] == "working" and "name" not in task and age >= 0.2:
        set_status(task, "input_required", "waiting for a name")


def set_status(task, status, message=""):
    task["status"], task["message"] = status, message
    if LEGACY:
        send({"jsonrpc": "2.0", "method": "notifications/tasks/status", "params": task_view(task)})


def finish(task, result):
    task["result"] = result
    set_status(task, "completed", "done")


def create(msg, tool, arguments):
    task = {"id": uuid.uuid4().hex, "tool": tool, "arguments": arguments, "status": "working", "message": "started",
            "created": now_iso(), "t0": time.monotonic(),
            "token": (msg["params"].get("_meta") or {}).get("progressToken"), "polls": 0}
    tasks[task["id"]] = task
    view = task_view(task, detailed=False)
    send({"jsonrpc": "2.0", "id": msg["id"], "result": {"task": view} if LEGACY else {"resultType": "task", **view}})


def declares_extension(msg):
    caps = ((msg.get("params") or {}).get("_meta") or {}).get("io.modelcontextprotocol/clientCapabilities") or {}
    return EXT in (caps.get("extensions") or {})


def missing_extension(msg):
    send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32021, "message": "Missing required client capability",
                                                        "data": {"requiredCapabilities": {"extensions": {EXT: {}}}}}})


def error(msg, code, text):
    send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": code, "message": text}})


def call(msg):
    params = msg["params"]
    tool, arguments = params.get("name"), params.get("arguments") or {}
    support = next((t.get("execution", {}).get("taskSupport", "forbidden") for t in TOOLS if t["name"] == tool), None)
    as_task = ("task" in params) if LEGACY else declares_extension(msg) and support != "forbidden"
    if support is None:
        return error(msg, -32602, f"unknown tool {tool}")
    if as_task and support == "forbidden":
        return error(msg, -32601, f"{tool} does not run as a task")
    if not as_task and support == "required":
        return missing_extension(msg) if not LEGACY else error(msg, -32601, f"{tool} requires task augmentation")
    if as_task:
        return create(msg, tool, arguments)
    text = str(arguments.get("a", 0) + arguments.get("b", 0)) if tool == "slow-sum" else "quick"
    send({"jsonrpc": "2.0", "id": msg["id"], "result": {"content": [{"type": "text", "text": text}]}})


def task_request(msg):
    method, params = msg["method"], msg.get("params") or {}
    if not LEGACY and not declares_extension(msg):
        return missing_extension(msg)
    if method == "tasks/list" and LEGACY:
        views = [task_view(t) for t in tasks.values()]
        return send({"jsonrpc": "2.0", "id": msg["id"], "result": {"tasks": views}})
    task = tasks.get(params.get("taskId"))
    if task is None:
        return error(msg, -32602, "Failed to retrieve task: Task not found")
    advance(task)
    if method == "tasks/get":
        task["polls"] += 1
        if "polls_since_update" in task and task["status"] == "input_required":
            task["polls_since_update"] += 1
            if task["polls_since_update"] > 2:
                finish(task, {"content": [{"type": "text", "text": f"Hello, {task['name']}!"}]})
        if task["token"] is not None and task["status"] == "working":
            send({"jsonrpc": "2.0", "method": "notifications/progress",
                  "params": {"progressToken": task["token"], "progress": task["polls"], "message": "summing"}})
        view = task_view(task)
        send({"jsonrpc": "2.0", "id": msg["id"], "result": view if LEGACY else {"resultType": "complete", **view}})
    elif method == "tasks/cancel":
        if task["status"] in ("completed", "failed", "cancelled"):
            return error(msg, -32602, f"Cannot cancel task: already in terminal status '{task['status']}'")
        set_status(task, "cancelled", "cancelled by request")
        send({"jsonrpc": "2.0", "id": msg["id"], "result": task_view(task) if LEGACY else {"resultType": "complete"}})
    elif method == "tasks/update" and not LEGACY:
        answer = (params.get("inputResponses") or {}).get("name") or {}
        if answer.get("action") == "accept":  # taken in, but shown only two polls later (eventually consistent)
            task["name"] = (answer.get("content") or {}).get("name", "?")
            task["polls_since_update"] = 0
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {"resultType": "complete"}})
    elif method == "tasks/result" and LEGACY:
        waiting_results.append((msg["id"], task["id"]))
        if task["status"] == "input_required":
            request_id = f"ask-{task['id'][:6]}"
            asked[request_id] = task["id"]
            ask = elicitation()
            ask["params"]["_meta"] = {"io.modelcontextprotocol/related-task": {"taskId": task["id"]}}
            send({"jsonrpc": "2.0", "id": request_id, **ask})
    else:
        error(msg, -32601, f"Method not found: {method}")


def answered(msg):
    task = tasks.get(asked.pop(msg["id"], None))
    if task is None:
        return
    content = (msg.get("result") or {}).get("content") or {}
    task["name"] = content.get("name", "?")
    set_status(task, "working", "got a name")
    finish(task, {"content": [{"type": "text", "text": f"Hello, {task['name']}!"}]})


def release_results():
    for entry in list(waiting_results):
        request_id, task_id = entry
        task = tasks[task_id]
        advance(task)
        if task["status"] in ("completed", "failed", "cancelled"):
            waiting_results.remove(entry)
            result = dict(task.get("result") or {"content": [], "isError": True})
            result["_meta"] = {"io.modelcontextprotocol/related-task": {"taskId": task_id}}
            send({"jsonrpc": "2.0", "id": request_id, "result": result})


def handle(msg):
    method = msg.get("method")
    if method == "server/discover":
        if LEGACY:
            return error(msg, -32601, "Method not found")
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {
            "resultType": "complete", "supportedVersions": ["2026-07-28"], "ttlMs": 0, "cacheScope": "private",
            "capabilities": {"tools": {}, "extensions": {EXT: {}}},
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "task-server", "version": "1"}}}})
    elif method == "initialize":
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {
            "protocolVersion": msg["params"]["protocolVersion"], "serverInfo": {"name": "task-server", "version": "1"},
            "capabilities": {"tools": {}, "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}}}})
    elif method == "tools/list":
        result = {"tools": TOOLS} if LEGACY else {"resultType": "complete", "tools": TOOLS, "ttlMs": 0,
                                                  "cacheScope": "private"}
        send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
    elif method == "tools/call":
        call(msg)
    elif isinstance(method, str) and method.startswith("tasks/"):
        task_request(msg)
    elif method is None and "id" in msg:
        answered(msg)
    elif "id" in msg and method is not None:
        error(msg, -32601, f"Method not found: {method}")


pending = b""
while True:
    ready, _, _ = select.select([0], [], [], 0.05)
    if ready:
        chunk = os.read(0, 65536)
        if not chunk:
            break
        pending += chunk
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            if line.strip():
                handle(json.loads(line))
    release_results()
