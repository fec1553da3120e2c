"""``python -m gui``: start the desktop app."""

import sys

from gui.app import run

sys.exit(run())
