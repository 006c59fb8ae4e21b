"""The core is UI-free: importing it, and a whole `record` run, never load Qt."""

from __future__ import annotations

import json
import subprocess
import sys

from helpers import ROOT

QT_PREFIXES = ("PySide6", "shiboken6", "qasync")

PROBE = """
import json, pkgutil, sys, importlib
import inspector.core
for module in pkgutil.walk_packages(inspector.core.__path__, "inspector.core."):
    importlib.import_module(module.name)
from inspector.cli.main import main
code = main(["record", "--out", sys.argv[1], "--handshake", "legacy", "--", sys.executable, "-m", "inspector.demo"])
print(json.dumps({"code": code, "qt": sorted(m for m in sys.modules if m.startswith(%r))}))
""" % (QT_PREFIXES,)  # noqa: UP031 - the probe is Python source full of braces


def test_importing_every_core_module_and_recording_a_session_loads_no_qt(tmp_path):
    out = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path / "c.jsonl")], capture_output=True,
                         text=True, timeout=60, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report == {"code": 0, "qt": []}


def test_the_core_package_source_has_no_qt_import():
    offenders = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "inspector" / "core").rglob("*.py")
        if any(f"import {p}" in path.read_text() or f"from {p}" in path.read_text() for p in QT_PREFIXES)
    ]
    assert offenders == []
