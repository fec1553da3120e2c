"""CLI sub-commands for diff (two branches or two sessions); registered by :func:`core.cli.build_parser`."""

from __future__ import annotations

import argparse

__all__ = ["add_commands"]


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Add this module's sub-commands to the ``prime-sessions`` parser."""
