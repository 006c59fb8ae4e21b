"""What the HTTP tap (``mcp-inspector tap --url``) costs a client: added latency per request, and the throughput
of an event stream, against talking to the server directly.

The server (in a process of its own, standard library only, 127.0.0.1): POST answers a JSON-RPC ping with
JSON over a kept-alive connection; GET /stream sends COUNT SSE ``message`` events of about 250 bytes, then ends.
The client (httpx, one kept-alive connection) times N pings, then reads the stream to its end: once directly,
once through a tap recording to a temporary capture (no window). Runs alternate direct / tap.

Printed: median and p99 ping round trip and the added median; stream MB/s of both and tap/direct.

Run: python benchmarks/http_tap_latency.py [--pings 1000] [--events 100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent

SERVER = r'''
import json, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
COUNT = int(sys.argv[1])
EVENT = b"event: message\ndata: " + json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
        "params": {"level": "info", "data": "x" * 180}}).encode() + b"\n\n"
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # else each answer waits for the client's delayed ACK (40 ms)
    def log_message(self, *a): pass
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        out = json.dumps({"jsonrpc": "2.0", "id": body["id"], "result": {}}).encode()
        self.send_response(200); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out))); self.end_headers(); self.wfile.write(out)
    def do_GET(self):
        self.send_response(200); self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked"); self.end_headers()
        batch = EVENT * 64
        for _ in range(COUNT // 64):
            self.wfile.write(b"%x\r\n%s\r\n" % (len(batch), batch))
        self.wfile.write(b"0\r\n\r\n"); self.wfile.flush()
httpd = ThreadingHTTPServer(("127.0.0.1", 0), H)
print(httpd.server_address[1], flush=True)
httpd.serve_forever()
'''


def first_line(process: subprocess.Popen[bytes], timeout: float = 30.0) -> str:
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], timeout)
    if not ready:
        raise SystemExit("no line within 30 s")
    return process.stdout.readline().decode().strip()


def measure(url: str, pings: int) -> tuple[list[float], float, int]:
    times = []
    with httpx.Client(trust_env=False, timeout=60) as client:
        for n in range(pings):
            started = time.perf_counter()
            answer = client.post(url + "/mcp", json={"jsonrpc": "2.0", "id": n, "method": "ping"})
            times.append(time.perf_counter() - started)
            assert answer.json()["id"] == n
        started = time.perf_counter()
        size = 0
        with client.stream("GET", url + "/stream", headers={"Accept": "text/event-stream"}) as stream:
            for chunk in stream.iter_raw():
                size += len(chunk)
        return times, time.perf_counter() - started, size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pings", type=int, default=1000)
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(args.events)], stdout=subprocess.PIPE)
    direct = f"http://127.0.0.1:{first_line(server)}"
    results: dict[str, list[tuple[list[float], float, int]]] = {"direct": [], "tap": []}
    try:
        with tempfile.TemporaryDirectory() as folder:
            for run in range(args.repeat):
                results["direct"].append(measure(direct, args.pings))
                capture = Path(folder) / f"tap-{run}.jsonl"
                tap = subprocess.Popen([sys.executable, "-m", "inspector", "tap", "--url", direct + "/mcp", "--no-live",
                                        "--capture", str(capture)], cwd=ROOT, stdout=subprocess.PIPE,
                                       stderr=subprocess.DEVNULL)
                local = first_line(tap).removesuffix("/mcp")
                results["tap"].append(measure(local, args.pings))
                started = time.perf_counter()
                tap.send_signal(signal.SIGINT)
                tap.wait(timeout=120)
                print(f"run {run + 1}: the tap ended {time.perf_counter() - started:.2f} s after SIGINT with "
                      f"{os.path.getsize(capture) / 1e6:.1f} MB of capture")
    finally:
        server.kill()
        server.wait()
    print(f"\n{args.pings} pings, then a stream of {args.events} events; {args.repeat} runs each, interleaved\n")
    print("| path | ping median ms | ping p99 ms | stream MB/s |")
    print("|---|---|---|---|")
    summary = {}
    for name, runs in results.items():
        times = sorted(t for run in runs for t in run[0])
        rate = statistics.median(size / seconds / 1e6 for _, seconds, size in runs)
        median, p99 = statistics.median(times) * 1e3, times[int(len(times) * 0.99)] * 1e3
        summary[name] = (median, rate)
        print(f"| {name} | {median:.3f} | {p99:.3f} | {rate:.1f} |")
    print(f"\nadded median latency: {summary['tap'][0] - summary['direct'][0]:.3f} ms; "
          f"stream throughput tap/direct: {summary['tap'][1] / summary['direct'][1]:.0%}")
    print(json.dumps({"added_ms": summary["tap"][0] - summary["direct"][0],
                      "throughput_ratio": summary["tap"][1] / summary["direct"][1]}))


if __name__ == "__main__":
    main()
