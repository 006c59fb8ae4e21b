"""The seat's MCP server on stdio, answering both eras: the ``initialize`` handshake (2025-06-18 to
2025-11-25) and 2026-07-28's ``server/discover`` with the revision in each request's ``_meta``. One message a
line on stdin, one a line on stdout. Tool calls run each in a thread of its own, so one that takes long (a
check) does not hold up the others; ``notifications/cancelled`` stops one, and a request with a
``progressToken`` gets ``notifications/progress`` while it runs.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

import jsonschema

from inspector import __version__
from inspector.core.seat.docs_resources import doc_resources, read_doc
from inspector.core.seat.secrets import scrub, target_secrets
from inspector.core.seat.skill import SKILL_URI, skill_bytes, skill_entry
from inspector.core.seat.targets import TargetError, resolve
from inspector.core.seat.tools import CONTROL, TOOLS, TOOLS_BY_NAME, CallControl, SeatTool, text_result

MODERN_VERSION = "2026-07-28"
LEGACY_VERSIONS = ("2025-11-25", "2025-06-18")
SUPPORTED_VERSIONS = (MODERN_VERSION, *LEGACY_VERSIONS)
META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"

INVALID_PARAMS = -32602
METHOD_NOT_FOUND = -32601
INVALID_REQUEST = -32600
PARSE_ERROR = -32700
RESOURCE_NOT_FOUND = -32002
UNSUPPORTED_PROTOCOL_VERSION = -32022

SERVER_INFO = {"name": "mcp-inspector-seat", "version": __version__}
SKILLS = "io.modelcontextprotocol/skills"
CAPABILITIES: dict[str, Any] = {"tools": {}, "resources": {}, "extensions": {SKILLS: {}}}
INSTRUCTIONS = ("The MCP inspector: debug an MCP server from the wire. Start with doctor on the target, then "
                "record_session and show_capture to read the timeline, then check_server.")
CAPTURE_SCHEME = "capture://"
#: 2026-07-28's caching hints: the listings are this user's (private) and the captures change at any time (0 ms)
CACHE_FIELDS: dict[str, Any] = {"cacheScope": "private", "ttlMs": 0}
CACHEABLE_METHODS = frozenset({"server/discover", "tools/list", "resources/list", "resources/templates/list",
                               "resources/read", "skills/list", "skills/get"})


class RpcError(Exception):
    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


class SeatServer:
    """Answers the MCP requests read from ``stdin`` on ``stdout``; captures are kept in ``captures``."""

    def __init__(self, captures: Path, stdout: BinaryIO) -> None:
        self.captures = captures
        self.stdout = stdout
        self._write = threading.Lock()
        #: the tool calls running, each in a thread of its own, by request id
        self._running: dict[Any, tuple[CallControl, threading.Thread]] = {}
        #: the request being dispatched (id, era, progress token): read by a handler that answers later
        self._current: tuple[Any, bool, Any] = (None, False, None)

    def serve(self, stdin: BinaryIO) -> int:
        """Serve until stdin closes, then cancel the tool calls still running and wait for them to stop their
        commands; the exit status is 0."""
        for raw in stdin:
            if raw.strip():
                self.handle_line(raw)
        self.finish()
        return 0

    def finish(self) -> None:
        """Cancel every running tool call and wait until each has stopped."""
        for control, _thread in list(self._running.values()):
            control.cancelled.set()
        self.join()

    def join(self) -> None:
        """Wait until every running tool call has answered (or stopped, cancelled)."""
        for _control, thread in list(self._running.values()):
            thread.join()

    def _send(self, message: dict[str, Any]) -> None:
        with self._write:  # tool calls answer from their own threads
            self.stdout.write(json.dumps(message, separators=(",", ":")).encode("utf-8") + b"\n")
            self.stdout.flush()

    def handle_line(self, raw: bytes) -> None:
        try:
            message = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            self._send({"jsonrpc": "2.0", "id": None, "error": {"code": PARSE_ERROR, "message": "Parse error"}})
            return
        if not isinstance(message, dict) or "method" not in message:
            if isinstance(message, dict) and ("result" in message or "error" in message):
                return  # a response: the seat sends no requests, so nothing awaits it
            self._send({"jsonrpc": "2.0", "id": None,
                        "error": {"code": INVALID_REQUEST, "message": "Invalid request"}})
            return
        if "id" not in message:
            if message["method"] == "notifications/cancelled" and isinstance(message.get("params"), dict):
                running = self._running.get(message["params"].get("requestId"))
                if running is not None:
                    running[0].cancelled.set()
            return  # other notifications (initialized) need no answer
        request_id = message["id"]
        params = message.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        token = meta.get("progressToken") if isinstance(meta, dict) else None
        try:
            self._current = (request_id, False, token)
            result, modern = self._dispatch(str(message["method"]), params)
        except RpcError as exc:
            error: dict[str, Any] = {"code": exc.code, "message": exc.message}
            if exc.data is not None:
                error["data"] = exc.data
            self._send({"jsonrpc": "2.0", "id": request_id, "error": error})
            return
        if result is not None:  # None: a tool call, answered by its thread
            self._reply(str(message["method"]), request_id, result, modern)

    def _reply(self, method: str, request_id: Any, result: dict[str, Any], modern: bool) -> None:
        if modern:
            if method in CACHEABLE_METHODS:
                result = {**CACHE_FIELDS, **result}
            result.setdefault("resultType", "complete")
            result["_meta"] = {**(result.get("_meta") or {}), META_SERVER_INFO: SERVER_INFO}
        self._send({"jsonrpc": "2.0", "id": request_id, "result": result})

    def _dispatch(self, method: str, params: Any) -> tuple[dict[str, Any] | None, bool]:
        if params is None:
            params = {}
        if not isinstance(params, dict):
            raise RpcError(INVALID_PARAMS, '"params" must be an object')
        meta: dict[str, Any] = params["_meta"] if isinstance(params.get("_meta"), dict) else {}
        modern = method != "initialize" and META_PROTOCOL_VERSION in meta
        if modern:
            if meta[META_PROTOCOL_VERSION] != MODERN_VERSION:
                raise RpcError(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version",
                               {"supported": list(SUPPORTED_VERSIONS), "requested": meta[META_PROTOCOL_VERSION]})
            if not isinstance(meta.get(META_CLIENT_CAPABILITIES), dict):
                raise RpcError(INVALID_PARAMS, f"_meta must carry {META_CLIENT_CAPABILITIES} (an object) on "
                               "every 2026-07-28 request")
        elif method == "server/discover":
            raise RpcError(INVALID_PARAMS, f"server/discover is a 2026-07-28 request: _meta must carry "
                           f"{META_PROTOCOL_VERSION} and {META_CLIENT_CAPABILITIES}")
        self._current = (self._current[0], modern, self._current[2])
        handlers: dict[str, Callable[[dict[str, Any]], dict[str, Any] | None]] = {
            "tools/list": self._tools_list, "tools/call": self._tools_call,
            "resources/list": self._resources_list, "resources/read": self._resources_read,
            "resources/templates/list": lambda params: {"resourceTemplates": []},
            "skills/list": lambda params: {"skills": [skill_entry()]},
            "skills/get": self._skills_get,
        }
        if modern:
            handlers["server/discover"] = self._discover
        else:
            handlers["initialize"] = self._initialize
            handlers["ping"] = lambda params: {}
        handler = handlers.get(method)
        if handler is None:
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method}")
        return handler(params), modern

    @staticmethod
    def _initialize(params: dict[str, Any]) -> dict[str, Any]:
        requested = params.get("protocolVersion")
        negotiated = requested if requested in LEGACY_VERSIONS else LEGACY_VERSIONS[0]
        return {"protocolVersion": negotiated, "capabilities": CAPABILITIES, "serverInfo": SERVER_INFO,
                "instructions": INSTRUCTIONS}

    @staticmethod
    def _discover(params: dict[str, Any]) -> dict[str, Any]:
        return {"supportedVersions": list(SUPPORTED_VERSIONS), "capabilities": CAPABILITIES,
                "serverInfo": SERVER_INFO, "instructions": INSTRUCTIONS}

    @staticmethod
    def _tools_list(params: dict[str, Any]) -> dict[str, Any]:
        return {"tools": [tool.listing() for tool in TOOLS]}

    def _tools_call(self, params: dict[str, Any]) -> None:
        """Check the arguments against the tool's schema (-32602 now if they do not fit), then run the tool in
        a thread of its own, which answers when it is done (nothing, if the agent cancelled it)."""
        name = params.get("name")
        tool = TOOLS_BY_NAME.get(name) if isinstance(name, str) else None
        if tool is None:
            raise RpcError(INVALID_PARAMS, f"Unknown tool: {name!r}; tools/list names the ten tools.")
        arguments = params.get("arguments") or {}
        error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(tool.input_schema)
                                                 .iter_errors(arguments))
        if error is not None:
            where = "/".join(str(part) for part in error.absolute_path)
            raise RpcError(INVALID_PARAMS, f"Invalid arguments for {tool.name}"
                           f"{' at ' + where if where else ''}: {error.message}.")
        request_id, modern, token = self._current
        control = CallControl()
        if token is not None:
            control.progress = lambda progress, message: self._send({
                "jsonrpc": "2.0", "method": "notifications/progress",
                "params": {"progressToken": token, "progress": progress, "message": message}})
        thread = threading.Thread(target=self._run_call, args=(tool, arguments, request_id, modern, control),
                                  name=f"seat-{tool.name}", daemon=True)
        self._running[request_id] = (control, thread)
        thread.start()
        return None

    def _run_call(self, tool: SeatTool, arguments: dict[str, Any], request_id: Any, modern: bool,
                  control: CallControl) -> None:
        CONTROL.set(control)
        try:
            # the target's secrets as the tool finds its target, at its start: a config edited while a long call
            # runs cannot change what is hidden from its result
            secrets = _secrets_of(arguments)
            try:
                result = tool.run(arguments, self.captures)
            except OSError as exc:  # a captures folder that cannot be written, a send file that cannot be made
                result = text_result(f"The seat could not run {tool.name}: {exc.strerror or exc}.", error=True)
            if not control.cancelled.is_set():  # a cancelled request is not answered
                self._reply("tools/call", request_id, scrub(result, secrets), modern)
        finally:  # only now, so join() waits for the answer too
            self._running.pop(request_id, None)

    @staticmethod
    def _skills_get(params: dict[str, Any]) -> dict[str, Any]:
        if params.get("uri") != SKILL_URI:
            raise RpcError(INVALID_PARAMS, f"No skill {params.get('uri')!r}: skills/list names the seat's one.",
                           {"uri": params.get("uri")})
        return {"skill": skill_entry()}

    def _capture_paths(self) -> list[Path]:
        paths = [path for path in self.captures.glob("*.jsonl") if path.is_file()]
        return sorted(paths, key=lambda path: path.stat().st_mtime, reverse=True)

    def _resources_list(self, params: dict[str, Any]) -> dict[str, Any]:
        captures = [{"uri": CAPTURE_SCHEME + path.name, "name": path.name, "mimeType": "application/jsonl",
                     "description": str(path)} for path in self._capture_paths()]
        return {"resources": [*captures, *doc_resources()]}  # the captures newest first, then the inspector's docs

    def _resources_read(self, params: dict[str, Any]) -> dict[str, Any]:
        uri = params.get("uri")
        if uri == SKILL_URI:
            return {"contents": [{"uri": uri, "mimeType": "text/markdown",
                                  "text": skill_bytes().decode("utf-8")}]}
        page = read_doc(uri) if isinstance(uri, str) else None
        if page is not None:
            return {"contents": [page]}
        if not isinstance(uri, str) or not uri.startswith(CAPTURE_SCHEME):
            raise RpcError(INVALID_PARAMS, f"Unknown resource {uri!r}: resources/list names the captures and "
                                           "the docs.", {"uri": uri})
        name = uri.removeprefix(CAPTURE_SCHEME)
        path = self.captures / name
        if "/" in name or "\\" in name or name.startswith(".") or not path.is_file():
            raise RpcError(INVALID_PARAMS, f"No capture {name!r} in {self.captures}.", {"uri": uri})
        return {"contents": [{"uri": uri, "mimeType": "application/jsonl",
                              "text": path.read_text(encoding="utf-8", errors="replace")}]}


def _secrets_of(arguments: dict[str, Any]) -> set[str]:
    """The secrets of the call's target, hidden in what the call returns (none without a target, nor for a saved
    server whose profile lets the agent see them)."""
    target = arguments.get("target")
    if not isinstance(target, dict):
        return set()
    try:
        resolved = resolve(target)
    except TargetError:
        return set()
    return set() if resolved.get("agent_sees_secrets") else target_secrets(resolved)


def serve_stdio(captures: Path) -> int:
    """Serve the seat on this process's stdin and stdout."""
    return SeatServer(captures, sys.stdout.buffer).serve(sys.stdin.buffer)
