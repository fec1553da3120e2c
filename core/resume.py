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

Before anything starts, both programs are looked for (:func:`find_program`); the terminal itself is
started by another tiny script (:func:`watched`) that writes its exit status and keeps its error output,
so a terminal that ends at once (no display, a wrong option) can be reported with what it said.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections.abc import Callable

from core.errors import InvalidRequestError

__all__ = [
    "DEFAULT_AGENT_COMMAND",
    "agent_command",
    "default_terminal",
    "find_program",
    "in_project_folder",
    "terminal_command",
    "watched",
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


def find_program(word: str, which: Callable[[str], str | None] = shutil.which) -> str | None:
    """Where the program a command starts with is: on ``PATH``, or the file a path names; None when absent.

    A word with a slash is a path (``~`` expanded): it must be an executable file.
    """
    if not word:
        return None
    if os.sep in word or (os.altsep is not None and os.altsep in word):
        path = os.path.expanduser(word)
        return path if os.path.isfile(path) and os.access(path, os.X_OK) else None
    return which(word)


def watched(command: list[str], status: str) -> list[str]:
    """``command`` run by ``sh``, which writes its exit status to ``status`` and its stderr to ``status.err``.

    How a terminal's start is checked: a terminal still running a second later has started; one that has
    written its status ended at once, and its error output says why.
    """
    # The status is written quietly: once the check is over its folder is gone, and a terminal closed
    # hours later must not leave a line on the app's stderr.
    script = 'status=$1; shift; "$@" 2>"$status.err"; { echo "$?" >"$status"; } 2>/dev/null'
    return ["sh", "-c", script, "sh", status, *command]
