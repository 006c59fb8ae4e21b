"""One-shot commands: connect, do one thing (list, call, read, get a prompt, complete, any request), shut down.

Used by ``mcp-inspector tools|resources|templates|prompts|call|read|prompt|complete|request`` (issue 14). The
run is :func:`run_oneshot`: it starts the target's transport, does the handshake (both eras, as ``record``
does), does the :class:`OneShot`'s action through the session (so ``--out`` captures every byte), and returns
a :class:`OneShotResult` as soon as the answer is in: no idle wait; the server is shut down cleanly (stdin
closed, then the process group ended; an HTTP session deleted). Nothing is printed here.

Exit statuses (:data:`inspector.core.exits.ONESHOT_EXITS`): 0 a result; 7 a tool result with
``isError: true``; 5 a JSON-RPC error answer (``rpc_error`` holds it); 2 unusable input (a ``KEY=VALUE`` that is
not one, arguments that break the tool's ``inputSchema``, an unknown tool or prompt); 3 cannot start or
connect, 4 no answer in time, 1 any other failure, as :func:`inspector.core.session.outcomes.failure_exit` says.

With ``roots``, the client declares the ``roots`` capability and the session answers ``roots/list`` with them
(https://modelcontextprotocol.io/specification/2025-11-25/client/roots). Many servers ask for the roots as
soon as the handshake is done and take the answer in asynchronously; the action waits for that question (at
most :data:`ROOTS_WAIT`) and then :data:`ROOTS_SETTLE`, so that what the server does next sees the roots.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspector.core.connect.opened import CannotOpen, new_session
from inspector.core.connect.target import Target
from inspector.core.exits import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    EXIT_PROTOCOL,
    EXIT_RPC_ERROR,
    EXIT_SERVER_FAILED,
    EXIT_SKILL_UNVERIFIED,
    EXIT_TOOL_ERROR,
)
from inspector.core.explore.arguments import (
    ArgumentError,
    check_arguments,
    did_you_mean,
    prompt_arguments,
    tool_arguments,
)
from inspector.core.explore.listing import LISTS, ListingError, list_all
from inspector.core.explore.tasks import TaskBook, TaskError, outcome_of, plan
from inspector.core.protocol.names import name_problems
from inspector.core.record.run import suggested_limit
from inspector.core.schemas.output import output_problem
from inspector.core.session.outcomes import HandshakeError, UnreadableResponse, failure_exit, result_of
from inspector.core.session.session import Session
from inspector.core.transports.base import TransportError
from inspector.core.waiting import wait_for
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Kind
from inspector.core.wire.framing import server_broke_framing

#: The actions: a list (``kind`` says which), a tool call, a resource read, a prompt, a completion, any request.
ACTIONS = ("list", "call", "read", "prompt", "complete", "request", "skills", "skill", "listen")
#: With roots given: how long to wait after the handshake for the server's roots/list (servers such as
#: server-filesystem ask right after notifications/initialized and act on the answer); a server that does
#: not ask costs this much, and only when --root is given.
ROOTS_WAIT = 1.0
#: ... and once it asked, how long it gets to act on our answer before the action's request goes out: servers
#: take the roots in asynchronously (server-filesystem checks each folder on disk first), and nothing on the
#: wire says when they are done
ROOTS_SETTLE = 0.1


@dataclass
class OneShot:
    """What one run does, and against which server."""

    action: str  #: one of :data:`ACTIONS`
    target: Target
    kind: str = ""  #: ``list``: tools, resources, templates or prompts
    name: str = ""  #: the tool, the prompt, the resource URI or the request's method
    words: list[str] = field(default_factory=list)  #: ``KEY=VALUE`` arguments (call, prompt)
    base: dict[str, Any] | None = None  #: ``call --args``: arguments the words go over
    params: dict[str, Any] | None = None  #: ``request``: its params
    ref: dict[str, Any] | None = None  #: ``complete``: ``ref/prompt`` or ``ref/resource``
    argument: str = ""  #: ``complete``: the argument's name
    value: str = ""  #: ``complete``: what has been typed of it
    roots: list[dict[str, str]] = field(default_factory=list)  #: answered to roots/list
    answers: dict[str, str] = field(default_factory=dict)  #: headless answers: elicitation=..., sampling=...
    as_task: bool = False  #: ``call --task``: run a tool whose taskSupport is optional as a task
    on_task: Callable[[str], None] | None = None  #: told a line each time a task of the call changes
    listen_for: float | None = None  #: ``listen --for``: seconds to listen (None: until interrupted)
    resources: list[str] = field(default_factory=list)  #: ``listen --resource``: URIs whose updates are asked for
    on_notification: Callable[[Any], None] | None = None  #: ``listen``: told each server notification (its JSON)
    out: Path | None = None  #: also save the capture here


@dataclass
class OneShotResult:
    """How the run went: the exit status, the result object to print (None when there is none), a sentence
    for what went wrong, and the JSON-RPC error object the server answered with, if it did."""

    exit_code: int
    result: Any = None
    error: str | None = None
    rpc_error: Any = None
    problems: list[str] = field(default_factory=list)  #: each way the arguments break the tool's schema
    warnings: list[str] = field(default_factory=list)  #: what is wrong with a good answer (tool names)
    notes: list[str] = field(default_factory=list)  #: what could not be checked before sending (said, not fatal)


class _BadInput(Exception):
    """What the user asked for cannot be sent (an unknown tool, arguments that break its schema)."""

    def __init__(self, sentence: str, problems: list[str] | None = None) -> None:
        super().__init__(sentence)
        self.problems = problems or []


class _Watch:
    """What the run needs to know of the wire: whether the last answer was an error (a handshake refused with
    one is status 5) and whether the server asked for the roots."""

    def __init__(self) -> None:
        self.last_answer_was_error = False
        self.roots_asked: asyncio.Event = asyncio.Event()
        self.framing_errors = 0  #: lines from the server that were no JSON-RPC message
        self.largest_unread = 0  #: the size of the longest message over --max-message
        self.first_framing_error = ""

    def saw(self, events: list[Event]) -> None:
        for event in events:
            if event.kind == Kind.FRAMING_ERROR and event.dir == Direction.S2C:
                oversize = event.data.get("oversize")
                if isinstance(oversize, dict):  # over --max-message: our limit, said once by its own sentence
                    self.largest_unread = max(self.largest_unread, int(oversize.get("total_bytes") or 0))
                    continue
                if not server_broke_framing(event):  # a line our own stop cut short: not the server's fault
                    continue
                self.framing_errors += 1
                self.first_framing_error = self.first_framing_error or event.reason or \
                    "a line that is not a JSON-RPC message"
                continue
            rpc = event.rpc
            if event.kind != Kind.MESSAGE or rpc is None:
                continue
            if event.dir == Direction.S2C and rpc.kind in (jsonrpc.RESPONSE, jsonrpc.ERROR):
                self.last_answer_was_error = rpc.kind == jsonrpc.ERROR
            elif event.dir == Direction.S2C and rpc.method == "roots/list":
                self.roots_asked.set()


async def run_oneshot(job: OneShot) -> OneShotResult:
    """Do ``job`` and say how it went (never raises for what the server or the user did). A failure's sentence
    also counts the framing errors that came from the server meanwhile (as ``record``'s do): "no tool named
    echo; there are none" is true, but the junk lines that came instead are what the user needs to see."""
    watch = _Watch()
    outcome = await _run_oneshot(job, watch)
    if outcome.error and watch.framing_errors and "framing error" not in outcome.error:
        if watch.framing_errors == 1 and watch.first_framing_error in outcome.error:
            pass  # the one framing error was the answer: its sentence is said already
        elif watch.framing_errors == 1:
            outcome.error += f"; meanwhile 1 framing error came from the server: {watch.first_framing_error}"
        else:
            outcome.error += (f"; meanwhile {watch.framing_errors:,} framing errors came from the server, the "
                              f"first: {watch.first_framing_error}")
    return outcome


async def _run_oneshot(job: OneShot, watch: _Watch) -> OneShotResult:
    if job.action not in ACTIONS:
        raise ValueError(f"unknown one-shot action {job.action!r}")
    try:
        session, writer = new_session(job.target, job.out, answers=job.answers, roots=job.roots)
    except CannotOpen as exc:
        return OneShotResult(exc.exit_code, error=str(exc))
    session.listeners.append(watch.saw)
    started = connected = False
    try:
        try:
            await session.start()
        except TransportError as exc:
            session.note(str(exc), failure=True)
            return OneShotResult(failure_exit(exc, started=False, connected=False), error=str(exc))
        started = True
        if job.action == "call":  # once the server is on its way: the import competes for the GIL
            _warm_up_validator()
        target = job.target
        await session.handshake(target.handshake, target.protocol_version, target.timeout)
        connected = True
        if job.roots:
            try:
                await wait_for(watch.roots_asked.wait(), ROOTS_WAIT)
                await asyncio.sleep(ROOTS_SETTLE)
            except TimeoutError:
                pass
        return await _act(session, job)
    except _BadInput as exc:
        return OneShotResult(EXIT_BAD_INPUT, error=str(exc), problems=exc.problems)
    except ArgumentError as exc:
        return OneShotResult(EXIT_BAD_INPUT, error=str(exc))
    except ListingError as exc:
        return OneShotResult(EXIT_RPC_ERROR if exc.error is not None else EXIT_SERVER_FAILED, error=str(exc),
                             rpc_error=exc.error)
    except UnreadableResponse as exc:
        if not exc.too_large:
            return OneShotResult(EXIT_SERVER_FAILED, error=str(exc))
        limit = suggested_limit(max(watch.largest_unread, job.target.max_message + 1))
        return OneShotResult(EXIT_SERVER_FAILED, error=f"{exc}; to read it whole, raise the limit with "
                                                       f"--max-message (for example --max-message {limit})")
    except TransportError as exc:
        if isinstance(exc, HandshakeError):  # the capture says why the session ended
            session.note(str(exc), failure=True)
        refused = isinstance(exc, HandshakeError) and watch.last_answer_was_error
        return OneShotResult(failure_exit(exc, started=started, connected=connected, refused=refused),
                             error=str(exc))
    finally:
        await session.close()
        if writer is not None:
            writer.close()


def _warm_up_validator() -> None:
    """Import the schema validator (jsonschema: tens of milliseconds) in a background thread while the server
    starts: a call needs it only once the tool's schema is in, and the import lock makes the call wait for
    this import if it is not done by then."""
    import importlib
    import threading

    threading.Thread(target=importlib.import_module, args=("inspector.core.schemas.validate",),
                     name="import-validator", daemon=True).start()


async def _act(session: Session, job: OneShot) -> OneShotResult:
    timeout = job.target.timeout
    if job.action == "list":
        listing = await list_all(session, job.kind, timeout=timeout)
        what = {"tools": "tool", "prompts": "prompt"}.get(job.kind)  # called by name: a name must say which
        warnings = name_problems((item.get("name") for item in listing.items), what, guidance=what == "tool") \
            if what else []
        return OneShotResult(EXIT_OK, {LISTS[job.kind][1]: listing.items}, warnings=warnings)
    if job.action == "call":
        tool = await _find(session, "tools", job.name, timeout)
        schema = tool.get("inputSchema") if tool is not None else None
        arguments = tool_arguments(schema, job.words, job.base)
        problems, notes = check_arguments(schema, arguments)
        if problems:
            count = "1 way" if len(problems) == 1 else f"{len(problems)} ways"
            raise _BadInput(f"the arguments do not fit the inputSchema of {job.name} ({count}); nothing was sent",
                            problems)
        for note in notes:  # in the capture too: why the server got arguments the inspector did not vouch for
            session.note(f"the arguments of {job.name} were sent unchecked in part: {note}")
        try:
            form = plan(session.server, tool, job.as_task)
        except TaskError as exc:
            raise _BadInput(str(exc)) from None
        book = TaskBook(session, timeout=timeout)
        tell = job.on_task
        if tell is not None:
            book.listeners.append(lambda run: tell(run.line()))
        response = await book.call_tool({"name": job.name, "arguments": arguments}, form)
        outcome = _unanswered(session, "tools/call", response) or \
            _outcome("tools/call", *outcome_of(response), tool=job.name)
        outcome.notes = notes
        problem = output_problem(job.name, tool.get("outputSchema"), outcome.result) if tool is not None \
            and outcome.exit_code == EXIT_OK else None
        if problem is not None:  # the result is still printed: the user sees what broke the promise
            return OneShotResult(EXIT_PROTOCOL, outcome.result, f"{problem} (a client that validates it rejects "
                                                                "the result)", notes=notes)
        return outcome
    if job.action == "prompt":
        prompt = await _find(session, "prompts", job.name, timeout)
        arguments = prompt_arguments(prompt or {}, job.words)
        params: dict[str, Any] = {"name": job.name}
        if arguments:
            params["arguments"] = arguments
        return await _ask(session, "prompts/get", params, timeout)
    if job.action == "read":
        return await _ask(session, "resources/read", {"uri": job.name}, timeout)
    if job.action in ("skills", "skill"):
        return await _skills(session, job, timeout)
    if job.action == "listen":
        from inspector.core.explore.listen import listen

        return await listen(session, job, timeout)
    if job.action == "complete":
        return await _ask(session, "completion/complete",
                          {"ref": job.ref, "argument": {"name": job.argument, "value": job.value}}, timeout)
    return await _ask(session, job.name, job.params, timeout)


async def _skills(session: Session, job: OneShot, timeout: float) -> OneShotResult:
    """``skills``: the listing (no skill file is read); ``skill NAME``: the skill loaded and every file of it read
    and verified against its entry (:class:`~inspector.core.skills.loader.SkillLoad`)."""
    from inspector.core.skills.loader import (
        SkillError,
        SkillLoad,
        SkillVerificationError,
        find_entry,
        get_skill,
        list_skills,
    )

    try:
        listing = await list_skills(session, timeout=timeout)
        if job.action == "skills":
            problems = [f"{e.uri or '(no uri)'} cannot be loaded: {e.problem}" for e in listing.entries if e.problem]
            return OneShotResult(EXIT_OK, {"skills": [e.raw for e in listing.entries]}, problems=problems)
        found = find_entry(listing.entries, job.name)
        if isinstance(found, list):
            raise _BadInput(f"{len(found)} skills are named {job.name} (a name is a label, not an identifier); give "
                            f"the URI of one: {', '.join(e.uri for e in found)}")
        if found is None and "://" in job.name:
            found = await get_skill(session, job.name, timeout=timeout)  # a skill the listing left out
        if found is None:
            names = [e.name for e in listing.entries if e.name]
            raise _BadInput(f"the server lists no skill named {job.name}; {did_you_mean(job.name, names)}")
        load = SkillLoad(session, found, timeout)
        if found.problem is not None:
            raise SkillVerificationError(f"{found.uri} must not be loaded: {found.problem}", found.uri, "entry")
        await load.open()
        for uri in load.supporting_files():
            await load.read(uri)
    except SkillVerificationError as exc:
        return OneShotResult(EXIT_SKILL_UNVERIFIED, error=str(exc))
    except SkillError as exc:
        return OneShotResult(EXIT_RPC_ERROR if exc.error is not None else EXIT_SERVER_FAILED, error=str(exc),
                             rpc_error=exc.error)
    contents = []
    for read in load.files.values():
        item: dict[str, Any] = {"uri": read.uri, "size": len(read.data), "digest": read.digest,
                                "verified": read.verified}
        if read.mime_type:
            item["mimeType"] = read.mime_type
        text = read.text
        item.update({"text": text} if text is not None else {"blob": base64.b64encode(read.data).decode("ascii")})
        contents.append(item)
    return OneShotResult(EXIT_OK, {"uri": found.uri, "name": found.name, "frontmatter": found.frontmatter,
                                   "contents": contents})


async def _find(session: Session, kind: str, name: str, timeout: float) -> dict[str, Any] | None:
    """The tool or prompt called ``name`` from the server's list (all pages); None when the server cannot list
    them (the request is sent untyped and the server judges it). An unknown name is bad input, with the
    closest names."""
    try:
        items = (await list_all(session, kind, timeout=timeout)).items
    except ListingError as exc:
        session.note(f"cannot check {name} against the server's {kind} ({exc}): sending it unchecked")
        return None
    for item in items:
        if item.get("name") == name:
            return item
    names = [str(item.get("name")) for item in items if isinstance(item.get("name"), str)]
    what = kind[:-1]
    raise _BadInput(f"the server has no {what} named {name}; {did_you_mean(name, names)}")


async def _ask(session: Session, method: str, params: Any, timeout: float) -> OneShotResult:
    response = await session.request(method, params, timeout=timeout)
    return _unanswered(session, method, response) or _outcome(method, *result_of(response))


def _unanswered(session: Session, method: str, response: Event) -> OneShotResult | None:
    """The failure of a request whose last answer still asks for input (2026-07-28 multi round-trip requests):
    nothing here could answer it, or the server asked again in every round up to the limit. Such an answer is
    no result (it is not printed as one); None for any other answer."""
    from inspector.core.session.rounds import MAX_INPUT_ROUNDS, can_answer, input_required

    result = input_required(response)
    if result is None:
        return None
    asked = a if isinstance(a := result.get("inputRequests"), dict) else {}
    names = ", ".join(f"{v.get('method')} ({k})" for k, v in asked.items() if isinstance(v, dict)) or "nothing named"
    if not can_answer(session, asked):
        return OneShotResult(EXIT_SERVER_FAILED, error=f"{method} needs input ({names}) and nothing here can answer "
                                                       "it (give --answer, for example --answer "
                                                       "elicitation=accept-defaults), so it has no result")
    return OneShotResult(EXIT_SERVER_FAILED, error=f"the server still asked for input after {MAX_INPUT_ROUNDS} "
                                                   f"rounds of answers ({names}), so {method} has no result; "
                                                   "mcp-inspector stopped answering there")


def _outcome(method: str, result: Any, error: Any, *, tool: str = "") -> OneShotResult:
    """The run's outcome from the last answer's result or error."""
    if error is not None:
        message = error.get("message") if isinstance(error, dict) else None
        code = error.get("code") if isinstance(error, dict) else None
        return OneShotResult(EXIT_RPC_ERROR, error=f"the server answered {method} with a JSON-RPC error: "
                                                   f"{message or '(no message)'} (code {code})", rpc_error=error)
    if tool and isinstance(result, dict) and result.get("isError") is True:
        return OneShotResult(EXIT_TOOL_ERROR, result, f"the tool {tool} reported an error (isError: true)")
    return OneShotResult(EXIT_OK, result)


def text_of(result: Any) -> list[str] | None:
    """The text a person wants from a result, one string per item: the ``text`` of text content (a tool's
    result, a prompt's messages), of text resource contents (a read), the completion's values, or the names
    (URIs) of a list; None when the result has no text of these kinds."""
    if not isinstance(result, dict):
        return None
    texts: list[str] = []
    found = False
    if isinstance(result.get("content"), list):
        found = True
        texts += _texts(result["content"])
    if isinstance(result.get("contents"), list):
        found = True
        texts += [c["text"] for c in result["contents"] if isinstance(c, dict) and isinstance(c.get("text"), str)]
    if isinstance(result.get("messages"), list):
        found = True
        for message in result["messages"]:
            content = message.get("content") if isinstance(message, dict) else None
            texts += _texts(content if isinstance(content, list) else [content])
    completion = result.get("completion")
    if isinstance(completion, dict) and isinstance(completion.get("values"), list):
        found = True
        texts += [v for v in completion["values"] if isinstance(v, str)]
    for field_name, key in (("tools", "name"), ("prompts", "name"), ("resources", "uri"),
                            ("resourceTemplates", "uriTemplate"), ("skills", "uri")):
        if isinstance(result.get(field_name), list):
            found = True
            texts += [i[key] for i in result[field_name] if isinstance(i, dict) and isinstance(i.get(key), str)]
    return texts if found else None


def _texts(items: list[Any]) -> list[str]:
    out = []
    for item in items:
        if isinstance(item, dict) and item.get("type") == "text" and isinstance(item.get("text"), str):
            out.append(item["text"])
        elif isinstance(item, dict) and item.get("type") == "resource":
            resource = item.get("resource")
            if isinstance(resource, dict) and isinstance(resource.get("text"), str):
                out.append(resource["text"])
    return out
