"""CLI sub-commands for editing that the core CLI lacks (trash, ...); registered by core.cli."""

from __future__ import annotations

import argparse

__all__ = ["add_commands"]


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Add this module's sub-commands to the ``prime-sessions`` parser."""
