"""The ``prime-sessions`` command line: its parser and ``main``. No Qt is imported on this path.

Every user error (bad arguments, unreadable files, unknown entries) ends as one line on stderr and
a non-zero exit status, never a traceback. The commands live in modules named after what they do:
:mod:`~core.cli.reading` (list, index, search, show, context, tree, check), :mod:`~core.cli.edit`
(label, rename, fork, clone, trash), :mod:`~core.cli.notes` (archive, pin, tag, notes export and
import), :mod:`~core.cli.export`, :mod:`~core.cli.diff` and
:mod:`~core.cli.usage` (usage reports); each keeps its heavy imports inside its handlers, since
start-up time counts (``check`` is measured whole process against a bare parse).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from typing import NoReturn

from core.cli.output import PROG, UsageError, out
from core.errors import PrimeSessionsError

__all__ = ["COMMANDS", "PROG", "build_parser", "main", "parse_arguments"]


class _Parser(argparse.ArgumentParser):
    commands: Mapping[str, argparse.ArgumentParser] | None = None  # the sub-parsers, on the top parser

    def error(self, message: str) -> NoReturn:  # one clear line instead of usage + error
        raise UsageError(f"{message} (see '{self.prog} --help')")


# Each sub-command -> the module of core.cli that adds it. main() imports only the module of the command
# asked for: argparse needs no other sub-parser to parse its arguments (tests check this table).
COMMANDS = {
    **dict.fromkeys(("list", "index", "search", "show", "context", "tree", "check"), "reading"),
    **dict.fromkeys(("label", "rename", "fork", "clone", "trash"), "edit"),
    "export": "export",
    "diff": "diff",
    "usage": "usage",
    "files": "files",
    **dict.fromkeys(("archive", "unarchive", "pin", "unpin", "tag", "notes"), "notes"),
}
# the order of the commands in --help
_MODULES = ("reading", "files", "edit", "notes", "export", "diff", "usage")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser (exposed for tests and for the app's own entry point).

    Args:
        command: build only the sub-parsers of this command's module (see :data:`COMMANDS`), sparing the
            imports of the others; None, or a name that is not a command, builds them all.
    """
    from importlib import import_module

    parser = _Parser(prog=PROG, description="Find, read, check and safely edit Prime Agent sessions.")
    parser.add_argument("--version", action=_VersionAction, nargs=0, help="show the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    names = (COMMANDS[command],) if command in COMMANDS else _MODULES
    for name in names:
        import_module(f"core.cli.{name}").add_commands(sub)
    parser.commands = sub.choices
    return parser


def parse_arguments(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace:
    """``argv`` parsed by ``parser`` (from :func:`build_parser`), options anywhere after the command.

    argparse stops taking positionals at the first option, so ``search QUERY --json ROOT`` would leave
    ``ROOT`` unrecognised; each command's own parser reads its arguments intermixed instead, as git and
    most CLIs do. A ``--`` still ends the options (``show --width 50 -- -odd-name.jsonl``); the options
    then come before it.
    """
    commands = getattr(parser, "commands", None) or {}
    # With a "--", the classic parse: Python 3.11's intermixed parse loses what follows it.
    if argv and argv[0] in commands and "--" not in argv:
        args: argparse.Namespace = commands[argv[0]].parse_intermixed_args(argv[1:])
        args.command = argv[0]
        return args
    return parser.parse_args(argv)  # no command, --help, --version or an unknown command


class _VersionAction(argparse.Action):
    # argparse's own "version" action needs the string when the parser is built; looking it up in the
    # package metadata costs ~30 ms, so do it only when --version is given.
    def __call__(self, parser: argparse.ArgumentParser, *_args: object) -> None:
        out(f"{PROG} {version()}")
        parser.exit()


def version() -> str:
    """The installed version of prime-sessions ("0+unknown" when it is not installed)."""
    try:
        from importlib.metadata import version

        return version("prime-sessions")
    except Exception:
        return "0+unknown"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 ok, 1 problems found or failed, 2 bad usage, 70 a bug)."""
    args_given = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(args_given[0] if args_given else None)
    for stream in (sys.stdout, sys.stderr):
        # Text from damaged files may hold lone surrogates; print them as escapes, never crash on them.
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):
                pass
    try:
        args = parse_arguments(parser, args_given)
        if not getattr(args, "run", None):
            parser.print_help()
            return 0
        status: int = args.run(args)
        sys.stdout.flush()  # inside the try: a reader that went away is not an error
        return status
    except UsageError as err:
        print(f"{PROG}: {err}", file=sys.stderr)
        return 2
    except PrimeSessionsError as err:
        print(f"{PROG}: {err}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # `prime-sessions tree big.jsonl | head` closed the pipe; that is not an error.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        return 130
    except OSError as err:  # e.g. the disk filled up while writing the output
        where = f" ({err.filename})" if err.filename else ""
        print(f"{PROG}: {err.strerror or err}{where}.", file=sys.stderr)
        return 1
    except Exception as err:
        # A bug, not a user error: still one line, and the traceback only when asked for.
        if os.environ.get("PRIME_SESSIONS_DEBUG"):
            raise
        print(
            f"{PROG}: internal error: {type(err).__name__}: {err} (set PRIME_SESSIONS_DEBUG=1 for details)",
            file=sys.stderr,
        )
        return 70


if __name__ == "__main__":
    sys.exit(main())
