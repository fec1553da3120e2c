"""``python -m core.cli``: the command line without the GUI launcher (PDF export needs the launcher)."""

import sys

from core.cli import main

sys.exit(main())
