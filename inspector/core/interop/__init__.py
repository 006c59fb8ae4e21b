"""Captures to and from other tools' formats: HAR 1.2 both ways (``har``), a readable report (``report``:
Markdown or one self-contained HTML file), the exact JSON-RPC lines (``jsonrpc_lines``) and OpenTelemetry
traces in OTLP/JSON (``otlp``). Each works on a capture's events and needs no window."""

#: ``export --to`` choices and the file suffix each gets (here, light, for the argument parser)
FORMATS = {"har": ".har", "markdown": ".md", "html": ".html", "jsonrpc": ".jsonl", "otlp": ".otlp.jsonl"}
