"""The crdstore fixtures of tests/crdstore_server.py."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))

from crdstore_server import server, short_history_server  # noqa: E402,F401
