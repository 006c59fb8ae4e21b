"""A stdio "server" that writes RATE notifications a second for SECONDS seconds, in 10 ms slices, then waits
for stdin to close. Usage: paced_server.py RATE SECONDS"""

import sys
import time


def main() -> None:
    rate, seconds = int(sys.argv[1]), float(sys.argv[2])
    per_slice = max(1, rate // 100)
    out = sys.stdout.buffer
    start = time.monotonic()
    sent = 0
    total = int(rate * seconds)
    while sent < total:
        batch = min(per_slice, total - sent)
        out.write(b"".join(
            b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":{"i":%d}}}\n'
            % (sent + i) for i in range(batch)))
        out.flush()
        sent += batch
        due = start + sent / rate
        pause = due - time.monotonic()
        if pause > 0:
            time.sleep(pause)
    sys.stderr.write(f"sent {sent} in {time.monotonic() - start:.2f} s\n")
    sys.stdin.read()


if __name__ == "__main__":
    main()
