"""``mcp-inspector install-desktop [--remove]``: put the app in the desktop's menus, for this user.

Copies the desktop entry, the icon (PNG sizes and the SVG), the capture file type and the AppStream metainfo
from :mod:`inspector.resources` into ``$XDG_DATA_HOME`` (``~/.local/share``):

    applications/mcp-inspector.desktop          Exec= this very mcp-inspector (an absolute path)
    icons/hicolor/SIZExSIZE/apps/mcp-inspector.png, icons/hicolor/scalable/apps/mcp-inspector.svg
    mime/packages/mcp-inspector.xml             application/x-mcp-inspector-capture
    metainfo/io.github.mcp_inspector.metainfo.xml

then runs ``update-desktop-database``, ``update-mime-database`` and ``gtk-update-icon-cache`` where they exist
(their absence only means the desktop notices the files later). ``--remove`` deletes exactly those files.
Linux and other freedesktop.org desktops only; no Qt is imported.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from inspector import resources

HELPERS_TIMEOUT = 60


def add_parser(sub: argparse._SubParsersAction) -> None:
    cmd = sub.add_parser(
        "install-desktop", help="add mcp-inspector to this user's desktop menus (Linux)",
        description="Install the desktop entry, icon, capture file type and AppStream metainfo into "
                    "$XDG_DATA_HOME (~/.local/share), so MCP Inspector is in the applications menu and opens "
                    "capture files. The entry starts this mcp-inspector by its absolute path.")
    cmd.add_argument("--remove", action="store_true", help="delete the files install-desktop installed")
    cmd.add_argument("--exec", dest="exec_command", metavar="COMMAND",
                     help="the command the menu entry runs (default: this mcp-inspector, by absolute path)")
    cmd.add_argument("--dry-run", action="store_true", help="say what would be written, write nothing")


@dataclass
class Plan:
    data_home: Path
    files: list[tuple[Path, bytes]] = field(default_factory=list)


def data_home() -> Path:
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")


def launcher() -> list[str]:
    """How to start this very mcp-inspector from a desktop menu, where PATH and any venv are unknown."""
    if getattr(sys, "frozen", False):  # the PyInstaller app: the binary itself
        return [os.path.abspath(sys.executable)]
    script = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if script is not None and script.name in ("mcp-inspector", "mcp-inspector.exe") and script.is_file():
        return [os.path.abspath(script)]
    # `python -m inspector`: this python, if it imports this package from any folder (an install, not a checkout)
    from inspector.core.tap.wrap import tap_runs_anywhere

    python = [os.path.abspath(sys.executable), "-m", "inspector"]
    if tap_runs_anywhere():
        return python
    found = shutil.which("mcp-inspector")
    return [os.path.abspath(found)] if found else python


def _imports_anywhere(python: str) -> bool:
    from inspector.core.tap.wrap import tap_runs_anywhere

    return tap_runs_anywhere(python)


def exec_quote(arg: str) -> str:
    """One argument of a desktop entry's Exec key (Desktop Entry Specification, "The Exec key")."""
    if arg and not any(c in arg for c in ' \t\n"\'\\><~|&;$*?#()`%'):
        return arg
    quoted = "".join("\\" + c if c in '"`$\\' else c for c in arg).replace("%", "%%")
    return f'"{quoted}"'


def desktop_value(text: str) -> str:
    """A desktop entry string value: the spec's escapes for backslash and control characters."""
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")


def desktop_entry(command: list[str]) -> str:
    exec_line = " ".join(exec_quote(arg) for arg in command) + " %f"
    lines = []
    for line in resources.path(resources.DESKTOP_FILE).read_text(encoding="utf-8").splitlines():
        if line.startswith("Exec="):
            line = "Exec=" + desktop_value(exec_line)
        elif line.startswith("TryExec="):
            line = "TryExec=" + desktop_value(command[0])
        lines.append(line)
    return "\n".join(lines) + "\n"


def plan(command: list[str]) -> Plan:
    home = data_home()
    result = Plan(home)
    result.files.append((home / "applications" / resources.DESKTOP_FILE, desktop_entry(command).encode()))
    for size in resources.ICON_SIZES:
        result.files.append((home / "icons" / "hicolor" / f"{size}x{size}" / "apps" / f"{resources.ICON_NAME}.png",
                             resources.icon_png(size).read_bytes()))
    result.files.append((home / "icons" / "hicolor" / "scalable" / "apps" / f"{resources.ICON_NAME}.svg",
                         resources.icon_svg().read_bytes()))
    result.files.append((home / "mime" / "packages" / resources.MIME_FILE,
                         resources.path(resources.MIME_FILE).read_bytes()))
    result.files.append((home / "metainfo" / resources.METAINFO_FILE,
                         resources.path(resources.METAINFO_FILE).read_bytes()))
    return result


def refresh(home: Path) -> list[str]:
    """Run the desktop's cache updaters that exist; return what each did, in one line each."""
    done = []
    for argv in (["update-desktop-database", str(home / "applications")],
                 ["update-mime-database", str(home / "mime")],
                 ["gtk-update-icon-cache", "--force", "--ignore-theme-index", "--quiet",
                  str(home / "icons" / "hicolor")]):
        if not (home / argv[-1]).exists() or shutil.which(argv[0]) is None:
            continue
        try:
            result = subprocess.run(argv, capture_output=True, text=True, timeout=HELPERS_TIMEOUT)
        except (OSError, subprocess.TimeoutExpired) as exc:
            done.append(f"{argv[0]} failed: {exc}")
            continue
        if result.returncode == 0:
            done.append(f"ran {argv[0]}")
        else:
            reason = (result.stderr.strip().splitlines() or [f"exit code {result.returncode}"])[-1]
            done.append(f"{argv[0]} failed: {reason}")
    return done


def run_install_desktop(args: argparse.Namespace) -> int:
    import shlex

    if sys.platform in ("darwin", "win32"):
        print("mcp-inspector install-desktop: this is for Linux desktops (freedesktop.org); on macOS and Windows "
              "use the app built by installers/build.sh (installers/README.md)", file=sys.stderr)
        return 2
    try:
        command = shlex.split(args.exec_command) if args.exec_command is not None else launcher()
    except ValueError as exc:  # an unclosed quote
        print(f"mcp-inspector install-desktop: --exec {args.exec_command!r}: {exc}", file=sys.stderr)
        return 2
    if not command:
        print("mcp-inspector install-desktop: --exec is empty", file=sys.stderr)
        return 2
    todo = plan(command)
    if args.remove:
        removed = [path for path, _ in todo.files if path.is_file()]
        if not args.dry_run:
            for path in removed:
                path.unlink()
        verb = "would remove" if args.dry_run else "removed"
        for path in removed:
            print(f"{verb} {path}")
        if not removed:
            print(f"nothing to remove in {todo.data_home}")
    else:
        verb = "would write" if args.dry_run else "wrote"
        for path, content in todo.files:
            if not args.dry_run:
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_name(path.name + ".tmp")
                tmp.write_bytes(content)
                os.replace(tmp, path)
            print(f"{verb} {path}")
        print(f"the menu entry runs: {' '.join(shlex.quote(arg) for arg in command)} FILE")
        if command[1:] == ["-m", "inspector"] and not _imports_anywhere(command[0]):
            print("Note: that python imports mcp-inspector only from this folder; install it (pip install .) or "
                  "pass --exec COMMAND, or the menu entry cannot start it.", file=sys.stderr)
    if not args.dry_run:
        for line in refresh(todo.data_home):
            print(line)
    return 0
