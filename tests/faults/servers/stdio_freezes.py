"""Answers initialize, then stops itself with SIGSTOP when tools/list arrives (as Ctrl-Z or a debugger
would): alive, holding its pipes, answering nothing until someone sends SIGCONT."""

import os
import signal

import stdio_wire  # noqa: F401 - makes _wire importable
from _wire import default_reply, messages, send

if __name__ == "__main__":
    for message in messages():
        if "id" not in message or "method" not in message:
            continue
        if message["method"] == "tools/list":
            os.kill(os.getpid(), signal.SIGSTOP)
        send(default_reply(message, "freezing-server"))
