#!/usr/bin/env bash
# The issue's "Done when": in a script with `set -e`, replaying a capture against a changed server fails the
# script. Usage: done_when.sh CAPTURE COMMAND ARGS...   (MCP_INSPECTOR_PYTHON: run this checkout's inspector)
set -e
if [ -n "$MCP_INSPECTOR_PYTHON" ]; then
    mcp-inspector() { "$MCP_INSPECTOR_PYTHON" -m inspector "$@"; }
fi
capture="$1"
shift
mcp-inspector replay "$capture" --out "$capture.replay.jsonl" -- "$@"
echo "the replay matched"
