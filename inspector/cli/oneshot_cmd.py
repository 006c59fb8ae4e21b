"""The one-shot commands: ``tools``, ``resources``, ``templates``, ``prompts``, ``call``, ``read``, ``prompt``,
``complete``, ``request``, ``skills`` and ``skill``. Each connects as ``record`` does (``-- CMD`` or ``--url URL``),
does one thing, prints the result object as JSON on stdout (indented on a terminal, one line when piped or with
``--json``; ``--text`` prints only the text) and exits as soon as it has it, with the statuses of
:data:`inspector.core.exits.ONESHOT_EXITS` (``skills`` and ``skill``: ``SKILL_EXITS``). Errors are sentences on
stderr.

The parsers are built with what parsing needs only; the run (asyncio, the session, jsonschema) is imported
when a command runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from inspector.core.exits import EXIT_BAD_INPUT, EXIT_INTERRUPTED, LISTEN_EXITS, ONESHOT_EXITS, SKILL_EXITS, exits_help
from inspector.core.text import safe, safe_json

LISTS = {
    "tools": "list the server's tools (every page)",
    "resources": "list the server's resources (every page)",
    "templates": "list the server's resource templates (every page)",
    "prompts": "list the server's prompts (every page)",
}


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the one-shot commands to ``mcp-inspector``'s subcommands."""
    from inspector.cli.argtypes import positive

    for kind, what in LISTS.items():
        _command(sub, kind, what, f"mcp-inspector {kind} -- npx -y @modelcontextprotocol/server-everything\n"
                                  f"  mcp-inspector {kind} --text --url http://127.0.0.1:3001/mcp",
                 action="list", kind=kind)

    call = _command(sub, "call", "call a tool and print its result",
                    "mcp-inspector call get-sum a=2 b=3 -- npx -y @modelcontextprotocol/server-everything\n"
                    "  mcp-inspector call echo message='hello world' --text --url http://127.0.0.1:3001/mcp\n"
                    "  mcp-inspector call create_entities --args '{\"entities\": []}' -- npx -y "
                    "@modelcontextprotocol/server-memory",
                    action="call",
                    description="Call a tool. Each KEY=VALUE is typed by the tool's inputSchema: a=2 is the "
                                "number 2 where the schema says number or integer, flag=true a boolean, text a "
                                "string; otherwise a JSON literal when it parses, else a string. a.b=1 sets a "
                                "nested field. The arguments are checked against the schema before anything is "
                                "sent. A tool whose execution.taskSupport is required runs as a task by itself "
                                "(2025-11-25 tasks: tasks/get polled at the server's interval, tasks/result; or "
                                "the io.modelcontextprotocol/tasks extension of a 2026-07-28 server); the task's "
                                "result is printed when it ends, its input asked for as --answer says.")
    call.add_argument("name", metavar="TOOL")
    call.add_argument("words", nargs="*", metavar="KEY=VALUE", help="an argument (repeatable)")
    call.add_argument("--args", metavar="JSON", help="arguments as a JSON object; KEY=VALUE words go over it")
    call.add_argument("--task", action="store_true",
                      help="run the tool as a task when its execution.taskSupport is optional (required: always; "
                           "forbidden: refused with status 2)")

    read = _command(sub, "read", "read a resource and print its contents",
                    "mcp-inspector read demo://resource/static/document/architecture.md --text -- "
                    "npx -y @modelcontextprotocol/server-everything", action="read")
    read.add_argument("name", metavar="URI")

    prompt = _command(sub, "prompt", "get a prompt and print its messages",
                      "mcp-inspector prompt args-prompt city=Paris -- npx -y @modelcontextprotocol/server-everything",
                      action="prompt")
    prompt.add_argument("name", metavar="NAME")
    prompt.add_argument("words", nargs="*", metavar="KEY=VALUE", help="an argument, a string (repeatable)")

    complete = _command(sub, "complete", "ask for completions of a prompt's or a resource template's argument",
                        "mcp-inspector complete --prompt completable-prompt department E -- "
                        "npx -y @modelcontextprotocol/server-everything", action="complete")
    ref = complete.add_mutually_exclusive_group(required=True)
    ref.add_argument("--prompt", dest="ref_prompt", metavar="NAME", help="complete an argument of this prompt")
    ref.add_argument("--template", dest="ref_template", metavar="URI",
                     help="complete a variable of this resource template (its uriTemplate)")
    complete.add_argument("argument", metavar="ARG")
    complete.add_argument("value", metavar="VALUE", nargs="?", default="", help="what has been typed so far")

    _command(sub, "skills", "list the skills the server serves (io.modelcontextprotocol/skills); reads no skill file",
             "mcp-inspector skills -- python -m my_server\n  mcp-inspector skills --text --url http://127.0.0.1:3001/mcp",
             action="skills", exits=SKILL_EXITS,
             description="List the skills a server serves (the io.modelcontextprotocol/skills extension, SEP-2640): "
                         "skills/list, every page, printed as the server gives each entry (its uri, frontmatter and "
                         "files with their sha256 digests and sizes). No skill file is read. An entry that must not "
                         "be loaded (no resources, a bad digest, over the limits) is named on stderr.")
    skill = _command(sub, "skill", "load one skill and print its files, each verified against the listing",
                     "mcp-inspector skill pdf-processing -- python -m my_server\n"
                     "  mcp-inspector skill skill://acme/billing/refunds/SKILL.md --text --url "
                     "http://127.0.0.1:3001/mcp", action="skill", exits=SKILL_EXITS,
                     description="Load one skill (SEP-2640): its entry from skills/list (or skills/get for a URI the "
                                 "listing leaves out), then its SKILL.md with resources/read, verified (its size, its "
                                 "sha256 digest, and its YAML frontmatter field by field against the entry's); only "
                                 "then each supporting file the entry lists, each verified the same way. On the first "
                                 "mismatch it stops, reads nothing more, says so in one sentence and exits 8. "
                                 "Prints the skill's files as JSON (--text: their text).")
    skill.add_argument("name", metavar="NAME", help="the skill's name (its frontmatter name), or its SKILL.md URI")

    listen = _command(sub, "listen", "print each notification the server sends, as a line of JSON",
                      "mcp-inspector listen --for 30 -- python -m my_server\n"
                      "  mcp-inspector listen --resource file:///project/config.json --url http://127.0.0.1:3001/mcp",
                      action="listen", exits=LISTEN_EXITS,
                      description="Listen for what changes on the server: on a 2026-07-28 server a "
                                  "subscriptions/listen stream asking for every list it declares (tools, prompts, "
                                  "resources list_changed) and for updates of each --resource; before 2026-07-28 "
                                  "list changes come unasked and each --resource is subscribed with "
                                  "resources/subscribe. Each notification from the server (the acknowledgement "
                                  "included) is printed as one line of JSON, as it arrives, until --for elapses, the "
                                  "server ends the subscription, or Ctrl-C.")
    listen.add_argument("--for", dest="listen_for", type=positive, metavar="S",
                        help="stop after S seconds (default: until Ctrl-C)")
    listen.add_argument("--resource", action="append", default=[], metavar="URI",
                        help="also ask for notifications/resources/updated of this resource (repeatable)")

    request = _command(sub, "request", "send any request and print its result",
                       "mcp-inspector request ping -- python -m my_server\n"
                       "  mcp-inspector request logging/setLevel '{\"level\": \"debug\"}' --url "
                       "http://127.0.0.1:3001/mcp", action="request")
    request.add_argument("name", metavar="METHOD")
    request.add_argument("params", metavar="PARAMS_JSON", nargs="?", help="the request's params, a JSON object")


def _command(sub: argparse._SubParsersAction[argparse.ArgumentParser], name: str, what: str, examples: str, *,
             action: str, kind: str = "", description: str | None = None,
             exits: tuple[tuple[int, str], ...] = ONESHOT_EXITS) -> argparse.ArgumentParser:
    from inspector.cli.main import EpilogFormatter

    epilog = f"examples:\n  {examples}\n\n" + exits_help(exits)
    parser = sub.add_parser(name, help=what, description=description or (
        f"{what[0].upper()}{what[1:]}: connect to the server (the command after --, or --url), do the "
        "handshake, print the result as JSON and exit as soon as it arrives."),
        epilog=epilog, formatter_class=EpilogFormatter)
    parser.set_defaults(oneshot=action, kind=kind)
    add_connection_options(parser)
    return parser


def add_connection_options(parser: argparse.ArgumentParser) -> None:
    """``record``'s ways to reach a server, plus ``--root``, ``--out`` and the output options."""
    from inspector.cli.server_options import EACH_RESPONSE_TIMEOUT_HELP, add_server_options

    output = parser.add_argument_group("output")
    shape = output.add_mutually_exclusive_group()
    shape.add_argument("--json", action="store_true", help="the result as one line of JSON, even on a terminal")
    shape.add_argument("--text", action="store_true",
                       help="only the text: text content items, text resource contents, completion values, or "
                            "the names of a list, one per line")
    output.add_argument("--out", type=Path, metavar="FILE", help="also save the session as a capture")
    add_server_options(parser, roots=True, timeout_help=EACH_RESPONSE_TIMEOUT_HELP)


def roots_of(folders: list[str]) -> list[dict[str, str]]:
    """``--root`` values as roots: a folder (which must exist) as its ``file://`` URI, a URI as it is."""
    roots = []
    for text in folders:
        if "://" in text:
            roots.append({"uri": text, "name": text.rstrip("/").rsplit("/", 1)[-1] or text})
            continue
        path = Path(text).expanduser()
        if not path.is_dir():
            raise ValueError(f"--root {text}: no such folder")
        path = path.resolve()
        roots.append({"uri": path.as_uri(), "name": path.name or str(path)})
    return roots


def run_oneshot_command(args: argparse.Namespace, command: list[str], *, exit_now: bool = False) -> int:
    """Run the one-shot command ``args`` describes against ``command`` (after --) or ``--url``.

    ``exit_now``: the process is the ``mcp-inspector`` program itself (not a test calling ``main`` with its own
    arguments): once the output is flushed and the server shut down, it ends at once (``os._exit``) instead of
    tearing the interpreter down, which takes a one-shot run's last 15-20 ms (benchmarks/oneshot_call.py)."""
    code = _run(args, command)
    if exit_now:
        import os

        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)
    return code


def _run(args: argparse.Namespace, command: list[str]) -> int:
    from inspector.cli.main import run_async
    from inspector.cli.record_cmd import parse_answers
    from inspector.core.connect.target import InputError, Target
    from inspector.core.explore.arguments import ArgumentError, parse_json_object, split_pair
    from inspector.core.explore.oneshot import OneShot, run_oneshot

    name = args.command
    if args.url and command:
        return _fail(f"{name} takes either --url or a command after --, not both")
    if not args.url and not command and args.config is None and args.server is None:
        return _fail(f"{name} needs the server: a command after -- (for example: mcp-inspector {name} ... -- "
                     "npx -y @modelcontextprotocol/server-everything) or --url URL")
    try:
        job = OneShot(action=args.oneshot, target=Target.from_args(args, command), kind=args.kind,
                      name=getattr(args, "name", ""), words=list(getattr(args, "words", [])),
                      roots=roots_of(args.root), answers=parse_answers(args.answer), out=args.out)
        for word in job.words:  # said before the server is started
            split_pair(word)
        if args.oneshot == "call" and args.args is not None:
            job.base = parse_json_object(args.args, "--args")
        if args.oneshot == "listen":
            job.listen_for, job.resources = args.listen_for, list(args.resource)
            job.on_notification = _print_notification
        if args.oneshot == "call":
            job.as_task = args.task
            if sys.stderr.isatty():  # a person watching: the task's status as it changes
                job.on_task = lambda line: print(f"mcp-inspector: {safe(line)}", file=sys.stderr, flush=True)
        if args.oneshot == "request" and args.params is not None:
            job.params = parse_json_object(args.params, "PARAMS_JSON")
        if args.oneshot == "complete":
            job.ref = {"type": "ref/prompt", "name": args.ref_prompt} if args.ref_prompt is not None else \
                {"type": "ref/resource", "uri": args.ref_template}
            job.argument, job.value = args.argument, args.value
    except (InputError, ArgumentError, ValueError) as exc:
        return _fail(str(exc))
    try:
        outcome = run_async(run_oneshot(job))
    except KeyboardInterrupt:
        print("mcp-inspector: interrupted; the server was shut down", file=sys.stderr)
        return EXIT_INTERRUPTED
    for note in outcome.notes:  # before the result: the user reads why it was sent unchecked first
        print(f"mcp-inspector: note: {note}", file=sys.stderr)
    if outcome.result is not None:
        try:
            _print_result(outcome.result, as_json=args.json, text=args.text)
            sys.stdout.flush()
        except BrokenPipeError:  # the reader went away (| head): the rest goes nowhere, quietly
            _stdout_to_devnull()
    for warning in outcome.warnings:
        print(f"mcp-inspector: warning: {warning}", file=sys.stderr)
    if outcome.error:
        print(f"mcp-inspector: {safe(outcome.error)}", file=sys.stderr)
    for problem in outcome.problems:
        print(f"  {safe(problem)}", file=sys.stderr)
    if outcome.rpc_error is not None:
        print(safe_json(json.dumps(outcome.rpc_error, ensure_ascii=False)), file=sys.stderr)
    return outcome.exit_code


def _print_notification(message: Any) -> None:
    """``listen``: one notification, one line of JSON, flushed at once (a reader follows it live)."""
    try:
        print(safe_json(json.dumps(message, ensure_ascii=False)), flush=True)
    except BrokenPipeError:  # the reader went away (| head): the rest goes nowhere
        _stdout_to_devnull()


def _stdout_to_devnull() -> None:
    import contextlib
    import os

    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _print_result(result: Any, *, as_json: bool, text: bool) -> None:
    """The result on stdout: JSON (the control characters JSON leaves raw written as its own escapes, so the
    value is the same), or with ``--text`` the texts with every control character but tab and line feed shown
    escaped. Server text never reaches the terminal as control codes."""
    if text:
        from inspector.core.explore.oneshot import text_of

        texts = text_of(result)
        if texts is not None:
            for item in texts:  # one item a line: its own final line break is kept, not doubled
                shown = safe(item)
                sys.stdout.write(shown if shown.endswith("\n") else shown + "\n")
            return
    indent = None if as_json or not sys.stdout.isatty() else 2
    print(safe_json(json.dumps(result, ensure_ascii=False, indent=indent)))


def _fail(sentence: str) -> int:
    print(f"mcp-inspector: {safe(sentence)}", file=sys.stderr)
    return EXIT_BAD_INPUT
