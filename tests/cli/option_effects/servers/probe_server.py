"""A stdio MCP server (standard library only) that reports what reached it, for the option-to-effect tests.

    python probe_server.py LOG_FILE [ARGS...]

At start it appends ``{"start": {"cwd", "env", "argv"}}`` to LOG_FILE (``env``: the variables named
``PROBE_*``) and says the same on stderr; then every message it reads is appended as
``{"got": MESSAGE}``. It speaks the legacy handshake (``initialize``, echoing the revision asked for when it speaks it;
``server/discover`` is an unknown method) and needs none: a request before ``initialize`` is answered too.
It ends at the end of its stdin, once it has answered what it read (but the tools that wait: see WAITING_TOOLS).

Tools (each answers with one text item):
  ``where``      the ``start`` record as JSON (read-only)
  ``echo``       its arguments as JSON (read-only)
  ``slow``       answers after ``seconds``
  ``big``        a text of ``size`` bytes
  ``ask``        sends the server requests ``methods`` (default: roots/list, elicitation/create and
                 sampling/createMessage) to the client, one after the other, and answers with the client's
                 answers as a JSON object by method
  ``late``       answers at once, then sends a ``notifications/message`` (data "late notification") after
                 ``delay`` seconds, then exits when ``exit`` is true
  ``progress``   with a progressToken, a progress notification every ``every`` seconds for ``seconds``;
                 answers after ``seconds`` (``progress_seen``: whether a token came)
  ``mutate``     not read-only: appends ``{"mutated": true}`` to LOG_FILE
One prompt ``greet``, one resource ``probe://static``, one template ``probe://item/{id}``; completion/complete
answers with one value naming the reference, argument and value it was asked about. ``PROBE_SLOW_FIRST_PING=S`` makes
the first ``ping`` answer after S seconds; ``PROBE_LATE_DELAY=S`` overrides the delay of ``late``;
``PROBE_PAD=N`` makes the answer to tools/list N bytes longer; ``PROBE_TOOLS=a,b`` lists only those tools.
"""

import json
import os
import sys
import threading
import time

LOG = sys.argv[1]
WRITE = threading.Lock()
PENDING = {}  # id of a request we sent -> [threading.Event, answer]
SCHEMA = {"type": "object"}
TOOLS = [
    {"name": "where", "inputSchema": SCHEMA, "annotations": {"readOnlyHint": True}},
    {"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
     "annotations": {"readOnlyHint": True}},
    {"name": "slow", "inputSchema": {"type": "object", "properties": {"seconds": {"type": "number"}}}},
    {"name": "big", "inputSchema": {"type": "object", "properties": {"size": {"type": "integer"}}}},
    {"name": "ask", "inputSchema": {"type": "object", "properties": {
        "methods": {"type": "array", "items": {"type": "string"}}}}},
    {"name": "late", "inputSchema": {"type": "object", "properties": {
        "delay": {"type": "number"}, "exit": {"type": "boolean"}}}},
    {"name": "progress", "inputSchema": {"type": "object", "properties": {
        "seconds": {"type": "number"}, "every": {"type": "number"}}}},
    {"name": "mutate", "inputSchema": SCHEMA, "annotations": {"readOnlyHint": False, "destructiveHint": True}},
]
ASKS = {
    "roots/list": {},
    "elicitation/create": {"message": "Your name?", "requestedSchema": {
        "type": "object", "properties": {"name": {"type": "string", "default": "Ada"}}}},
    "sampling/createMessage": {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
                               "maxTokens": 10},
}
SUPPORTED = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
SLOW_PING = float(os.environ.get("PROBE_SLOW_FIRST_PING", "0"))  # the first ping's answer waits this long
LATE_DELAY = os.environ.get("PROBE_LATE_DELAY")  # overrides the delay of ``late``
ONLY = os.environ.get("PROBE_TOOLS")  # tools/list lists only these tools (names, comma-separated)
PAD = int(os.environ.get("PROBE_PAD", "0"))  # tools/list's answer is this much longer (a tool's description)
START = {"cwd": os.getcwd(), "argv": sys.argv[2:],
         "env": {k: v for k, v in os.environ.items() if k.startswith("PROBE_")}}


def log(entry):
    with WRITE, open(LOG, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(entry) + "\n")


def send(message):
    with WRITE:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def answer(msg_id, result=None, error=None):
    send({"jsonrpc": "2.0", "id": msg_id, **({"error": error} if error is not None else {"result": result})})


def text(value):
    return {"content": [{"type": "text", "text": value}]}


#: The tools that wait (for time to pass, or for the client's answers, read by the main loop): each runs in a
#: thread of its own, and the server ends at the end of its stdin without waiting for them. Every other tool,
#: like every other request, is answered before the next line is read, so a request followed at once by the
#: end of stdin still gets its answer (in a thread, it was lost when the interpreter exited first).
WAITING_TOOLS = ("slow", "ask", "late", "progress")


def ask(method):
    ask_id = f"probe-{len(PENDING) + 1}"
    waiter = [threading.Event(), None]
    PENDING[ask_id] = waiter
    send({"jsonrpc": "2.0", "id": ask_id, "method": method, "params": ASKS[method]})
    waiter[0].wait(30)  # the client answers at once or not at all
    return waiter[1]


def call(msg_id, name, arguments, meta):
    if name == "where":
        answer(msg_id, text(json.dumps(START)))
    elif name == "echo":
        answer(msg_id, text(json.dumps(arguments, sort_keys=True)))
    elif name == "slow":
        time.sleep(float(arguments.get("seconds", 1)))
        answer(msg_id, text("slept"))
    elif name == "big":
        answer(msg_id, text("x" * int(arguments.get("size", 1000))))
    elif name == "ask":
        answers = {method: ask(method) for method in arguments.get("methods") or list(ASKS)}
        answer(msg_id, text(json.dumps(answers, sort_keys=True)))
    elif name == "late":
        answer(msg_id, text("answered; a notification follows"))
        time.sleep(float(LATE_DELAY or arguments.get("delay", 1)))
        send({"jsonrpc": "2.0", "method": "notifications/message",
              "params": {"level": "info", "data": "late notification"}})
        if arguments.get("exit"):
            os._exit(0)
    elif name == "progress":
        token, seconds, every = meta.get("progressToken"), float(arguments.get("seconds", 1)), \
            float(arguments.get("every", 0.2))
        end, done = time.monotonic() + seconds, 0
        while time.monotonic() < end:
            time.sleep(min(every, max(0.0, end - time.monotonic())))
            done += 1
            if token is not None:
                send({"jsonrpc": "2.0", "method": "notifications/progress",
                      "params": {"progressToken": token, "progress": done}})
        answer(msg_id, text(json.dumps({"progress_seen": token is not None})))
    elif name == "mutate":
        log({"mutated": True})
        answer(msg_id, text("changed something"))
    else:
        answer(msg_id, error={"code": -32602, "message": f"no tool {name}"})


def ping(msg_id):
    global SLOW_PING
    delay, SLOW_PING = SLOW_PING, 0.0
    time.sleep(delay)
    answer(msg_id, {})


def handle(message):
    method, msg_id, params = message.get("method"), message.get("id"), message.get("params")
    params = params if isinstance(params, dict) else {}
    if method is None:  # an answer to one of our requests
        waiter = PENDING.get(msg_id)
        if waiter is not None:
            waiter[1] = message.get("result", message.get("error"))
            waiter[0].set()
        return
    if msg_id is None:
        return
    if method == "initialize":
        asked = params.get("protocolVersion")
        answer(msg_id, {"protocolVersion": asked if asked in SUPPORTED else SUPPORTED[0],
                        "capabilities": {"tools": {}, "prompts": {}, "resources": {}, "completions": {},
                                         "logging": {}},
                        "serverInfo": {"name": "probe", "version": "1"}})
    elif method == "ping":
        if SLOW_PING:
            threading.Thread(target=ping, args=(msg_id,), daemon=True).start()
        else:
            ping(msg_id)
    elif method == "tools/list":
        tools = [tool for tool in TOOLS if ONLY is None or tool["name"] in ONLY.split(",")]
        answer(msg_id, {"tools": [{**tools[0], "description": "x" * PAD}, *tools[1:]] if PAD else tools})
    elif method == "tools/call":
        arguments = params.get("arguments") if isinstance(params.get("arguments"), dict) else {}
        meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
        if params.get("name") in WAITING_TOOLS:
            threading.Thread(target=call, args=(msg_id, params.get("name"), arguments, meta), daemon=True).start()
        else:
            call(msg_id, params.get("name"), arguments, meta)
    elif method == "prompts/list":
        answer(msg_id, {"prompts": [{"name": "greet", "arguments": [{"name": "name"}]}]})
    elif method == "prompts/get":
        answer(msg_id, {"messages": [{"role": "user", "content": {"type": "text", "text": "hello"}}]})
    elif method == "resources/list":
        answer(msg_id, {"resources": [{"uri": "probe://static", "name": "static"}]})
    elif method == "resources/templates/list":
        answer(msg_id, {"resourceTemplates": [{"uriTemplate": "probe://item/{id}", "name": "item"}]})
    elif method == "resources/read":
        answer(msg_id, {"contents": [{"uri": params.get("uri"), "text": "static text"}]})
    elif method == "completion/complete":
        ref, argument = params.get("ref") or {}, params.get("argument") or {}
        value = f"{ref.get('type')}:{ref.get('name', ref.get('uri'))}:{argument.get('name')}:{argument.get('value')}"
        answer(msg_id, {"completion": {"values": [value], "hasMore": False}})
    elif method == "logging/setLevel":
        answer(msg_id, {})
    else:
        answer(msg_id, error={"code": -32601, "message": f"Method not found: {method}"})


def main():
    log({"start": START})
    sys.stderr.write(f"probe: started in {START['cwd']}\n")
    sys.stderr.flush()
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            answer(None, error={"code": -32700, "message": "Parse error"})
            continue
        if not isinstance(message, dict):
            answer(None, error={"code": -32600, "message": "Invalid Request"})
            continue
        log({"got": message})
        handle(message)


if __name__ == "__main__":
    main()
