"""Makes the integration tests' stdlib-only ``_wire`` helpers importable by the fault servers here.

Each fault server imports this first (its own folder is first on ``sys.path``), then ``_wire``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "integration" / "servers"))
