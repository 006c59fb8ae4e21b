"""The exit statuses of the headless commands, defined once: ``record`` returns them, ``replay`` the ones that
apply to it, and both list them in ``--help`` (so docs/cli-reference.md has them too).

A light module (no asyncio, no network stack): the parsers import it to print the help.
"""

from __future__ import annotations

EXIT_OK = 0
#: the session failed otherwise: the server exited or closed the connection, or refused the handshake
EXIT_SERVER_FAILED = 1
#: usage: an option or an input file is unusable (argparse's own status for a bad option)
EXIT_BAD_INPUT = 2
#: the server's command cannot be started, or no connection to its URL can be made
EXIT_CANNOT_CONNECT = 3
#: the server did not answer within ``--timeout`` (or ``--max-time`` for a request that reports progress)
EXIT_TIMEOUT = 4
#: the server answered a request with a JSON-RPC error
EXIT_RPC_ERROR = 5
#: the server broke the protocol: lines that are no JSON-RPC message (framing errors) or invalid JSON-RPC
EXIT_PROTOCOL = 6
#: one-shot ``call``: the tool answered with a result that says ``isError: true``
EXIT_TOOL_ERROR = 7
#: ``check``: no MUST check failed, but some checks could not be made (their outcome is "incomplete")
EXIT_INCOMPLETE = 8
#: ``skill``: the skill failed verification (a file's size, digest or frontmatter does not match its entry, a file
#: the entry does not list, or an entry that must not be loaded); nothing more was read from it
EXIT_SKILL_UNVERIFIED = 9
EXIT_INTERRUPTED = 130  #: the shell convention for Ctrl-C

#: ``record``'s statuses and what each means, in the order they are decided: a run that stopped early gets
#: the status of what stopped it (3, 4 or 1); a run that got to the end gets 6 if the server broke the
#: protocol on the way, else 5 if it answered a request with an error, else 0.
RECORD_EXITS: tuple[tuple[int, str], ...] = (
    (EXIT_OK, "success: every request got a result"),
    (EXIT_SERVER_FAILED, "the session failed otherwise: the server exited or closed the connection, or the "
                         "handshake failed"),
    (EXIT_BAD_INPUT, "usage: an option, the --send file or the --rules file is unusable (a pause rule included); "
                     "nothing was started"),
    (EXIT_CANNOT_CONNECT, "cannot start the server's command, or cannot connect to its URL"),
    (EXIT_TIMEOUT, "no response within --timeout (or --max-time)"),
    (EXIT_RPC_ERROR, "the server answered the handshake or a request of --send with a JSON-RPC error (or an error "
                     "rule of --rules answered it in the server's place)"),
    (EXIT_PROTOCOL, "protocol violation: the server wrote lines that are not JSON-RPC messages (framing "
                    "errors) or invalid JSON-RPC"),
    (EXIT_INTERRUPTED, "interrupted (Ctrl-C); the capture holds everything until then"),
)
RECORD_EXITS_ORDER = "when several apply: 3, 4 or 1 for what stopped the run; else 6 before 5"

#: ``replay``: 1 and 2 have meanings of their own there
EXIT_DIFFERENT = 1
EXIT_CANNOT_REPLAY = 2
REPLAY_EXITS: tuple[tuple[int, str], ...] = (
    (EXIT_OK, "every answer matches the recording"),
    (EXIT_DIFFERENT, "something differs (a changed, missing or extra answer)"),
    (EXIT_CANNOT_REPLAY, "the replay could not be done: an unusable option or capture, or a failed handshake"),
    (EXIT_CANNOT_CONNECT, "cannot start the server's command, or cannot connect to its URL"),
    (EXIT_INTERRUPTED, "interrupted (Ctrl-C)"),
)

#: the one-shot commands (``call``, ``tools``, ``read``, ``prompt``, ``complete``, ``request``, ...)
ONESHOT_EXITS: tuple[tuple[int, str], ...] = (
    (EXIT_OK, "success: the result is on stdout"),
    (EXIT_SERVER_FAILED, "the session failed otherwise: the server exited or closed the connection, the "
                         "handshake failed, or the answer still asks for input (no --answer, or asked again after "
                         "5 rounds), which is no result"),
    (EXIT_BAD_INPUT, "usage: an option or argument is unusable (KEY without =, bad JSON, arguments that do not "
                     "fit the tool's inputSchema, an unknown tool or prompt)"),
    (EXIT_CANNOT_CONNECT, "cannot start the server's command, or cannot connect to its URL"),
    (EXIT_TIMEOUT, "no response within --timeout"),
    (EXIT_RPC_ERROR, "the server answered with a JSON-RPC error (a sentence and the error object on stderr)"),
    (EXIT_PROTOCOL, "call: the result's structuredContent breaks the tool's outputSchema, or is missing (the "
                    "result is still on stdout)"),
    (EXIT_TOOL_ERROR, "call: the tool's result says isError: true (the result is still on stdout)"),
    (EXIT_INTERRUPTED, "interrupted (Ctrl-C)"),
)


#: ``doctor``: whether any step failed (warnings do not count)
EXIT_STEP_FAILED = 1
DOCTOR_EXITS: tuple[tuple[int, str], ...] = (
    (EXIT_OK, "no step failed: the connection works (warnings may remain)"),
    (EXIT_STEP_FAILED, "a step failed: the first failed step is the cause, with its fix"),
    (EXIT_BAD_INPUT, "usage: an option is unusable"),
    (EXIT_INTERRUPTED, "interrupted (Ctrl-C)"),
)


#: ``diff``: like ``git diff``, differences are status 1 only with ``--exit-code``
EXIT_CANNOT_COMPARE = 2
DIFF_EXITS: tuple[tuple[int, str], ...] = (
    (EXIT_OK, "no differences (or differences without --exit-code)"),
    (EXIT_DIFFERENT, "with --exit-code: the interfaces or the answers differ"),
    (EXIT_CANNOT_COMPARE, "the comparison could not be done: an unusable option or capture, or the live server "
                          "failed its handshake"),
    (EXIT_CANNOT_CONNECT, "--against: cannot start the server's command, or cannot connect to its URL"),
    (EXIT_TIMEOUT, "--against: no answer to the handshake within --timeout"),
    (EXIT_INTERRUPTED, "interrupted (Ctrl-C)"),
)

#: ``baseline save`` and ``baseline check``
BASELINE_EXITS: tuple[tuple[int, str], ...] = (
    (EXIT_OK, "save: the baseline was written; check: every tool is as approved"),
    (EXIT_DIFFERENT, "check: a tool was added, removed or changed since the baseline (drift)"),
    (EXIT_CANNOT_COMPARE, "unusable input (an option, the baseline file, a capture without tools/list), or the "
                          "server failed its handshake or gave no tools/list (an error, no answer in time)"),
    (EXIT_CANNOT_CONNECT, "cannot start the server's command, or cannot connect to its URL"),
    (EXIT_TIMEOUT, "no answer to the handshake within --timeout"),
    (EXIT_INTERRUPTED, "interrupted (Ctrl-C)"),
)


#: ``context``: the listing costs more tokens than ``--budget``
EXIT_OVER_BUDGET = 10
#: ``context``: what the model sees, costed and linted
CONTEXT_EXITS: tuple[tuple[int, str], ...] = (
    (EXIT_OK, "no finding at warning or above, and the listing is within --budget (notes may remain)"),
    (EXIT_DIFFERENT, "a lint finding at warning or above (tool poisoning: docs/context-rules.md)"),
    (EXIT_BAD_INPUT, "unusable input (an option, a capture without a complete tools/list), or the server failed "
                     "its handshake or gave no tools/list"),
    (EXIT_CANNOT_CONNECT, "cannot start the server's command, or cannot connect to its URL"),
    (EXIT_TIMEOUT, "no answer to the handshake within --timeout"),
    (EXIT_OVER_BUDGET, "--budget: the listing costs more tokens than the budget (one sentence on stderr)"),
    (EXIT_INTERRUPTED, "interrupted (Ctrl-C)"),
)
CONTEXT_EXITS_ORDER = "when both apply: 1 (a finding) before 10 (over budget)"


#: ``skills`` and ``skill NAME``
SKILL_EXITS: tuple[tuple[int, str], ...] = (
    (EXIT_OK, "success: the list, or the skill's files, on stdout (each file verified against the listing)"),
    (EXIT_SERVER_FAILED, "the session failed otherwise, or the server does not declare the "
                         "io.modelcontextprotocol/skills extension"),
    (EXIT_BAD_INPUT, "usage: an unusable option, or a NAME the server lists no skill for (or that several skills "
                     "share: give the URI of its SKILL.md)"),
    (EXIT_CANNOT_CONNECT, "cannot start the server's command, or cannot connect to its URL"),
    (EXIT_TIMEOUT, "no response within --timeout"),
    (EXIT_RPC_ERROR, "the server answered skills/list, skills/get or resources/read with a JSON-RPC error"),
    (EXIT_SKILL_UNVERIFIED, "skill: the skill failed verification (a file's size, sha256 digest or YAML frontmatter "
                            "differs from its entry, a file the entry does not list, or an entry that must not be "
                            "loaded); one sentence on stderr, and nothing more was read from the skill"),
    (EXIT_INTERRUPTED, "interrupted (Ctrl-C)"),
)


#: ``run`` (a collection of saved calls with expectations)
RUN_EXITS: tuple[tuple[int, str], ...] = (
    (EXIT_OK, "every request met its expectations"),
    (EXIT_DIFFERENT, "an expectation failed (a request got no answer, or not the answer expected)"),
    (EXIT_CANNOT_COMPARE, "unusable input (an option, the collection file), or the server failed its handshake"),
    (EXIT_CANNOT_CONNECT, "cannot start the server's command, or cannot connect to its URL"),
    (EXIT_TIMEOUT, "no answer to the handshake within --timeout"),
    (EXIT_INTERRUPTED, "interrupted (Ctrl-C)"),
)


#: ``load``
LOAD_EXITS: tuple[tuple[int, str], ...] = (
    (EXIT_OK, "the run completed and every request was answered without an error"),
    (EXIT_DIFFERENT, "some requests failed (a JSON-RPC error, isError: true, no answer in time), or the server went "
                     "away or stopped reading during the run; the figures so far are printed all the same"),
    (EXIT_CANNOT_COMPARE, "unusable input (an option, an unknown tool, arguments that do not fit its inputSchema), "
                          "or the server failed its handshake"),
    (EXIT_CANNOT_CONNECT, "cannot start the server's command, or cannot connect to its URL"),
    (EXIT_TIMEOUT, "no answer to the handshake within --timeout"),
    (EXIT_INTERRUPTED, "interrupted (Ctrl-C); the figures so far are printed"),
)


#: ``app`` (MCP Apps): statuses of its own, from 20 on
EXIT_NO_APP = 20  #: the tool has no app: its _meta names no ui:// resource
#: the app could not be read or rendered, never finished ui/initialize, or its renderer ended or stopped responding
EXIT_APP_FAILED = 21
#: the app ran, but its policy blocked requests (navigations, WebRTC, preconnects too), messages of it were over
#: --max-message, or its resource's metadata has errors
EXIT_APP_POLICY = 22
#: apps cannot be rendered here: Chromium's sandbox cannot run (as root) and QTWEBENGINE_DISABLE_SANDBOX is not
#: set, or this build of mcp-inspector has no Qt WebEngine
EXIT_CANNOT_RENDER = 23
APP_EXITS: tuple[tuple[int, str], ...] = (
    (EXIT_OK, "the app rendered, completed its handshake, got its tool result and broke no rule"),
    (EXIT_SERVER_FAILED, "the session failed otherwise: the server exited or closed the connection, or the "
                         "handshake failed"),
    (EXIT_BAD_INPUT, "usage: an option or argument is unusable (KEY without =, arguments that do not fit the "
                     "tool's inputSchema, an unknown tool)"),
    (EXIT_CANNOT_CONNECT, "cannot start the server's command, or cannot connect to its URL"),
    (EXIT_TIMEOUT, "the server did not answer within --timeout"),
    (EXIT_RPC_ERROR, "the server answered resources/read or the tools/call with a JSON-RPC error"),
    (EXIT_TOOL_ERROR, "the tool's result says isError: true (the app was shown it)"),
    (EXIT_NO_APP, "the tool has no app (its _meta names no ui:// resource)"),
    (EXIT_APP_FAILED, "the app could not be rendered: no HTML, no ui/initialize within --timeout, or its "
                      "renderer ended or stopped responding"),
    (EXIT_APP_POLICY, "the app ran but its policy blocked requests (a navigation, WebRTC and preconnects too), "
                      "messages of it were over --max-message, or its resource's metadata has errors (the report "
                      "lists them)"),
    (EXIT_CANNOT_RENDER, "apps cannot be rendered here: Chromium's sandbox cannot run (as root) and "
                         "QTWEBENGINE_DISABLE_SANDBOX is not set, or this build has no Qt WebEngine; nothing was "
                         "started"),
    (EXIT_INTERRUPTED, "interrupted (Ctrl-C)"),
)
APP_EXITS_ORDER = "when several apply: 23, 2, 3, 4 or 1 for what stopped the run; then 20, 21, 22, 5, 7"
#: ``listen``
LISTEN_EXITS: tuple[tuple[int, str], ...] = (
    (EXIT_OK, "--for elapsed, or the server ended the subscription (its answer to subscriptions/listen)"),
    (EXIT_SERVER_FAILED, "the session failed otherwise: the server exited or closed the connection, or the "
                         "handshake failed"),
    (EXIT_BAD_INPUT, "usage: an option or argument is unusable"),
    (EXIT_CANNOT_CONNECT, "cannot start the server's command, or cannot connect to its URL"),
    (EXIT_TIMEOUT, "no response within --timeout (the handshake, resources/subscribe)"),
    (EXIT_RPC_ERROR, "the server refused subscriptions/listen or resources/subscribe with a JSON-RPC error"),
    (EXIT_INTERRUPTED, "interrupted (Ctrl-C): the usual way to stop listening without --for"),
)


def exits_help(exits: tuple[tuple[int, str], ...], after: str = "") -> str:
    """The ``exit status:`` block of a command's ``--help`` epilog."""
    import textwrap  # only for the help

    lines = ["exit status:"]
    for code, meaning in exits:
        lines += textwrap.wrap(meaning, 78, initial_indent=f"  {code:<4} ", subsequent_indent=" " * 7)
    if after:
        lines += textwrap.wrap(f"({after})", 78, initial_indent="  ", subsequent_indent="   ")
    return "\n".join(lines) + "\n"


#: ``serve``
SERVE_EXITS: tuple[tuple[int, str], ...] = (
    (EXIT_OK, "the client ended the session (stdin at its end, or stdout closed), or, with --listen, Ctrl-C or "
              "SIGTERM stopped it; requests without a recorded answer, if any, are listed on stderr"),
    (EXIT_BAD_INPUT, "usage: an unusable option (--listen on an address that is not loopback, or a port that "
                     "cannot be bound), or a file that is no readable capture (missing, unreadable, foreign, of a "
                     "newer format, cut inside its header)"),
    (EXIT_CANNOT_CONNECT, "nothing to serve: the capture holds no request with an answer (empty, or cut short "
                          "before the first answer)"),
    (EXIT_INTERRUPTED, "interrupted (Ctrl-C)"),
)


#: ``test-client``
TEST_CLIENT_EXITS: tuple[tuple[int, str], ...] = (
    (EXIT_OK, "every scenario run passed"),
    (EXIT_SERVER_FAILED, "a scenario failed: the client broke a check (the report names each)"),
    (EXIT_BAD_INPUT, "usage: an unusable option, an unknown --scenario, or no client command after --"),
    (EXIT_CANNOT_CONNECT, "the client's command cannot be started"),
    (EXIT_INCOMPLETE, "no scenario failed, but some were incomplete: the client never got far enough (each says "
                      "why)"),
    (EXIT_INTERRUPTED, "interrupted (Ctrl-C); the client and everything it started were ended"),
)
