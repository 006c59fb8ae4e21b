"""A small stdio "server" that breaks the framing on purpose, to check that tap relays every byte unchanged.

On start it prints a banner that is not JSON, then answers each request line. ``{"method": "junk"}`` makes it
write a line of Latin-1 (not UTF-8) and a CRLF-terminated message. Lines that are not JSON are reported on
stderr. At stdin EOF it writes a last line without newline (stdout and stderr) and exits.

Options: ``--exit N`` exit status at EOF; ``--die-after-first N`` exit with N after answering the first request
(while the client may still be writing); ``--kill-self`` die by SIGTERM after the first request;
``--ignore-eof`` keep running after stdin EOF (until a signal); ``--linger S`` after stdin EOF, keep writing a
notification every 0.1 s for S seconds, then exit; ``--grandchild`` leave a child process running in the
group that outlives this one.
"""

import json
import os
import signal
import subprocess
import sys
import threading
import time

out = sys.stdout.buffer
err = sys.stderr.buffer
args = sys.argv[1:]


def option(name, default=None):
    return args[args.index(name) + 1] if name in args else default


def write(data, stream=out):
    stream.write(data)
    stream.flush()


def reply(request, result):
    write(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}, separators=(",", ":")).encode() + b"\n")


def main():
    if "--grandchild" in args:
        # inherits nothing of our pipes, but stays in our process group after we exit
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    write(b"script server 1.0 starting (this banner is not JSON)\n")
    write(b"script server: ready\n", err)
    answered = 0
    for line in sys.stdin.buffer:
        try:
            message = json.loads(line)
        except ValueError:
            write(b"not json: " + line.rstrip(b"\r\n") + b"\n", err)
            continue
        if not isinstance(message, dict) or "id" not in message or "method" not in message:
            continue
        method = message["method"]
        if method == "initialize":
            reply(message, {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                            "serverInfo": {"name": "script", "version": "1.0"}})
        elif method == "junk":
            write(b"caf\xe9 \xff not utf-8\n")
            write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": {}}).encode() + b"\r\n")
        else:
            reply(message, {"echo": method})
        answered += 1
        if answered == 1 and "--die-after-first" in args:
            raise SystemExit(int(option("--die-after-first")))
        if answered == 1 and "--kill-self" in args:
            os.kill(os.getpid(), signal.SIGTERM)
    if "--ignore-eof" in args:
        threading.Event().wait()  # silent until a signal: a write could meet a closed stdout first
    write(b'{"jsonrpc":"2.0","method":"notifications/bye"}')  # no newline: cut short on purpose
    write(b"bye without newline", err)
    if "--linger" in args:
        for n in range(int(float(option("--linger")) * 10)):
            time.sleep(0.1)
            write(b'\n{"jsonrpc":"2.0","method":"notifications/still-here","params":{"n":%d}}' % n)
        write(b"\n")
    raise SystemExit(int(option("--exit", "0")))


if __name__ == "__main__":
    main()
