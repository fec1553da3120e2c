"""Resuming a session in the agent: the command to run, and the terminal to run it in.

The agent command and the terminal command are templates the user can change (the window's
Preferences). Templates are split into arguments first and the placeholders filled in afterwards, so a
path with spaces or quotes stays one argument and nothing in it is ever interpreted by a shell.

* agent template: ``{path}`` (the session file), ``{cwd}`` (its project folder), ``{id}`` (its session
  id); default ``pi --session {path}``.
* terminal template: ``{command}`` stands for the whole command to run (several arguments); default
  the first terminal found on this machine.

What runs in the terminal is a tiny ``sh`` script that changes to the project folder, runs the agent,
and then leaves a shell open, so the terminal does not vanish when the agent exits.
"""

from __future__ import annotations

import shlex
import shutil
import sys
from collections.abc import Callable

from core.errors import InvalidRequestError

__all__ = [
    "DEFAULT_AGENT_COMMAND",
    "agent_command",
    "default_terminal",
    "in_project_folder",
    "terminal_command",
]

DEFAULT_AGENT_COMMAND = "pi --session {path}"
_PLACEHOLDERS = ("path", "cwd", "id")
# (program, how it takes a command to run): the Debian alternative first, then common terminals.
_TERMINALS = (
    ("x-terminal-emulator", "-e {command}"),
    ("gnome-terminal", "-- {command}"),
    ("konsole", "-e {command}"),
    ("xfce4-terminal", "-x {command}"),
    ("kitty", "{command}"),
    ("alacritty", "-e {command}"),
    ("foot", "{command}"),
    ("wezterm", "start -- {command}"),
    ("xterm", "-e {command}"),
)


def _split(template: str, what: str) -> list[str]:
    try:
        words = shlex.split(template)
    except ValueError as err:
        raise InvalidRequestError(f"The {what} cannot be read ({err}).") from err
    if not words:
        raise InvalidRequestError(f"The {what} is empty.")
    return words


def agent_command(template: str, *, path: str, cwd: str, session_id: str) -> list[str]:
    """The agent's argument list for one session (see the module docstring for the placeholders).

    Raises:
        InvalidRequestError: the template is empty, unbalanced, or names an unknown placeholder.
    """
    values = {"path": path, "cwd": cwd, "id": session_id}
    command = []
    for word in _split(template, "agent command"):
        try:
            command.append(word.format(**values))
        except (KeyError, IndexError, ValueError) as err:
            known = ", ".join("{" + p + "}" for p in _PLACEHOLDERS)
            raise InvalidRequestError(
                f"The agent command has a placeholder it cannot fill ({err}); use {known}."
            ) from err
    return command


def in_project_folder(cwd: str, command: list[str]) -> list[str]:
    """``command`` run from ``cwd`` by ``sh``, which then stays open as an interactive shell."""
    script = 'cd "$1" || exit 1; shift; "$@"; exec "${SHELL:-sh}"'
    return ["sh", "-c", script, "sh", cwd, *command]


def terminal_command(template: str, command: list[str]) -> list[str]:
    """The terminal's argument list running ``command``: ``{command}`` is replaced by its arguments.

    A template without ``{command}`` gets them at its end.

    Raises:
        InvalidRequestError: the template is empty or unbalanced.
    """
    words = _split(template, "terminal command")
    if "{command}" not in words:
        return [*words, *command]
    out: list[str] = []
    for word in words:
        out.extend(command if word == "{command}" else [word])
    return out


def default_terminal(
    which: Callable[[str], str | None] = shutil.which, platform: str = sys.platform
) -> str | None:
    """A terminal template for this machine: the first known terminal on ``PATH``; None when there is none.

    macOS gets none: its Terminal takes no command line, so the user sets one in Preferences (iTerm's, a
    script...).
    """
    if platform == "darwin":
        return None
    for program, arguments in _TERMINALS:
        if which(program):
            return f"{program} {arguments}"
    return None
