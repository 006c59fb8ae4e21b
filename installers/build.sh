#!/usr/bin/env bash
# Build the one-folder app: dist/mcp-inspector/mcp-inspector (run it from anywhere; the folder is the app).
#
#   installers/build.sh
#
# Makes a virtual environment (build/venv, or $VENV), installs this project (with the WebSocket transport)
# and PyInstaller into it, and runs installers/mcp-inspector.spec. Nothing is installed outside the venv.
# Environment: PYTHON (default python3) makes the venv; DIST (default dist) and WORK (default
# build/pyinstaller) are PyInstaller's output and scratch folders.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
VENV="${VENV:-build/venv}"
DIST="${DIST:-dist}"
WORK="${WORK:-build/pyinstaller}"

if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --upgrade pip
"$VENV/bin/python" -m pip install --quiet '.[websocket]' 'pyinstaller>=6.10'
"$VENV/bin/python" -m PyInstaller installers/mcp-inspector.spec --noconfirm --log-level WARN \
    --distpath "$DIST" --workpath "$WORK"
echo "built $DIST/mcp-inspector/mcp-inspector ($(du -sh "$DIST/mcp-inspector" | cut -f1))"
"$DIST/mcp-inspector/mcp-inspector" --version
