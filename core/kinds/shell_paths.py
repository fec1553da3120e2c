"""The files a shell command names as plain arguments, and what it does to them.

A bash tool call (pi's and Prime Agent's ``bash``, the user's ``!cmd``, a ``%%bash`` cell of Prime Agent's
``ipython`` tool) names files in its command: ``pytest tests/test_auth.py``, ``cat src/app.ts``,
``sed -i 's/a/b/' setup.cfg``, ``echo x > notes.md``. :func:`command_touches` finds them with the
standard library's ``shlex`` (a POSIX shell's quoting, word by word; commands split at ``;``, ``&&``,
``|`` and new lines) and keeps only plain, path-like arguments: a word with a ``/`` or a file extension,
or a dot file, never an option, a glob, a variable, a substitution, a URL or a word with spaces. What a
program does to its arguments comes from a small table (viewers read, ``rm``/``mv``/``touch`` write,
``sed -i`` edits, ``find``/``ls``/``grep`` search, everything else runs on them); ``> file`` writes and
``< file`` reads. ``cd DIR`` moves the base of the relative paths that follow it.

Hostile commands cost nothing but their paths: unbalanced quotes read line by line, a here-document's
body is skipped, at most :data:`MAX_COMMAND` characters are read, and nothing here raises.
"""

from __future__ import annotations

import posixpath
import re
import shlex

__all__ = ["EDIT", "MAX_COMMAND", "READ", "RUN", "SEARCH", "WRITE", "command_touches", "path_like"]

# How a tool touched a file: the kinds of touch, strongest first (a file's kinds are listed in this order).
EDIT, WRITE, READ, SEARCH, RUN = "edit", "write", "read", "search", "run"

MAX_COMMAND = 65_536  # characters of a command read (after here-documents): shlex reads ~10 MB/s

# The punctuation shlex splits off: command separators and redirections.
_PUNCTUATION = "();<>|&"
_PUNCTUATION_SET = frozenset(_PUNCTUATION)
_OPERATORS = frozenset(
    {"&&", "||", ";;", "|&", ">>", "<<", "<<<", "<<-", ">&", "<&", "&>", "&>>", ">|", "<>"}
)
_SEPARATORS = frozenset({";", "&&", "||", "|", "&", "|&", ";;", "(", ")"})
# Words that start a simple command without being its program.
_KEYWORDS = frozenset({"if", "then", "else", "elif", "do", "while", "until", "!", "{", "}", "time"})
# Programs that run the rest of the line as another command (their own options are skipped).
_WRAPPERS = frozenset({"sudo", "env", "nohup", "nice", "command", "exec", "xargs", "timeout", "stdbuf"})
_WRAPPER_VALUES = frozenset({"-u", "-g", "-n", "-C", "-s", "-k", "-o", "-e", "-i"})  # sudo -u USER...
# Programs whose arguments are never files (text, hosts, packages, loop lists).
_NO_PATHS = frozenset(
    {"echo", "printf", "curl", "wget", "ssh", "ping", "kill", "pkill", "sleep", "export", "set", "unset"}
    | {"for", "case", "function", "return", "exit", "alias", "which", "type", "man", "brew", "apt", "apt-get"}
)
# Programs whose arguments are files only when they say so (a "/" with an extension, or ./ ../ / ~/).
# Programs that run another (npx TOOL, uvx TOOL) or do with a "run"/"exec" word (uv run TOOL): True for those.
_RUNNERS = {"npx": False, "uvx": False, "bunx": False, "pipx": True, "uv": True, "poetry": True, "pdm": True}
_RUNNERS |= {"hatch": True, "pipenv": True, "rye": True, "npm": True, "pnpm": True, "yarn": True, "bun": True}
_STRICT = frozenset({"npm", "npx", "yarn", "pnpm", "pip", "pip3", "uv", "uvx", "poetry", "cargo", "go", "gh"})
_VIEWERS = frozenset(
    {"cat", "head", "tail", "less", "more", "bat", "batcat", "nl", "wc", "diff", "cmp", "file", "stat"}
    | {"md5sum", "sha1sum", "sha256sum", "xxd", "hexdump", "od", "strings", "sort", "uniq", "cut", "jq"}
    | {"source", "."}
)
_SEARCHERS = frozenset({"find", "ls", "tree", "du", "grep", "egrep", "fgrep", "rg", "ag", "ack", "fd"})
_WRITERS = frozenset(
    {"rm", "rmdir", "touch", "mkdir", "tee", "truncate", "chmod", "chown", "ln", "unlink", "mv"}
)
_COPIERS = frozenset({"cp", "install", "rsync"})  # the last argument is written, the others read
_IN_PLACE = frozenset({"sed", "perl"})  # edit with -i, else read
# Programs whose first plain argument is a pattern or a program text, not a file.
_PATTERN_FIRST = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack", "sed", "awk", "gawk", "perl", "jq"})
# git subcommands whose arguments are files (the others take refs, remotes, messages); after "--" always.
_PATTERN_OPTIONS = frozenset({"-e", "-f", "--regexp", "--file"})
_GIT_PATHS = frozenset({"add", "rm", "mv", "restore", "diff", "blame", "log", "show", "stage", "grep"})
_GIT_KINDS = {"add": RUN, "rm": WRITE, "mv": WRITE, "restore": WRITE, "stage": RUN}

_HEREDOC = re.compile(r"(?<!<)<<(-?)\s*(['\"]?)([A-Za-z_][\w.-]*)\2")
_ASSIGNMENT = re.compile(r"[A-Za-z_]\w*=")
_NOT_PLAIN = re.compile(r"[\s$`*?\[\]{}()<>|;&'\"=!\\,\x00-\x1f]|://|\.\.\.")
_EXTENSION = re.compile(r"\.?[\w@+-][\w@+.-]*\.([A-Za-z0-9_]{1,16})")
_DOT_FILE = re.compile(r"\.[A-Za-z0-9_][\w.-]*")
_WINDOWS_DRIVE = re.compile(r"[A-Za-z]:[\\/]")
_DEVICES = ("/dev/", "/proc/", "/sys/")


def path_like(word: str, strict: bool = False) -> bool:
    """True when ``word`` reads as a file path: a plain word with a ``/`` or a file extension, or a dot file.

    Never an option (``-x``), a glob, a variable, a substitution, a URL, a word with spaces or quotes, a
    version number (``1.2.3``), ``.`` or ``..``, a device (``/dev/null``). ``strict``: only an explicit
    path (``/``, ``./``, ``../``, ``~/`` first) or a ``/`` with a file extension (for package managers,
    whose words are package names).
    """
    if not word or len(word) > 4096 or word[0] in "-+@%:":
        return False
    if "::" in word:  # a test's node id (tests/test_app.py::test_login): its file
        word = word.partition("::")[0]
    drive = _WINDOWS_DRIVE.match(word) is not None
    if drive:
        word = word[2:].replace("\\", "/")  # C:\src\app.ts: its folders, as a POSIX path's
    if ":" in word or _NOT_PLAIN.search(word) is not None:
        return False
    if word in (".", "..", "/", "~") or word.startswith(_DEVICES):
        return False
    name = word.rstrip("/").rpartition("/")[2]
    extension = _EXTENSION.fullmatch(name)
    has_extension = extension is not None and not extension.group(1).isdigit()
    if strict:
        explicit = word.startswith(("/", "./", "../", "~/")) or drive
        return explicit or ("/" in word and has_extension)
    return "/" in word or drive or has_extension or _DOT_FILE.fullmatch(name) is not None


def command_touches(command: str, base: str = "") -> list[tuple[str, str]]:
    """The files a shell command names as plain arguments, as ``(path, how)`` in order, each pair once.

    Args:
        command: the command line (a whole script: several lines, here-documents, pipes).
        base: the folder relative paths start from before any ``cd``; ``""`` is the project folder.

    Returns:
        ``path`` as the command wrote it, joined to the folder a ``cd`` in the command moved to (a
        relative path stays relative: the caller resolves it against the project folder); ``how`` one of
        :data:`READ`, :data:`WRITE`, :data:`EDIT`, :data:`SEARCH`, :data:`RUN`.
    """
    if not isinstance(command, str) or not command:
        return []
    text = _without_heredocs(command.replace("\\\n", " "))[:MAX_COMMAND]
    words = _words(text)
    found: dict[tuple[str, str], None] = {}
    state = _Walk(base)
    for command_words in _simple_commands(words):
        for path, how in state.touches(command_words):
            found[(path, how)] = None
    return list(found)


def _without_heredocs(text: str) -> str:
    """``text`` without the bodies of its here-documents (``<<EOF`` ... ``EOF``): file contents, not words."""
    if "<<" not in text:
        return text
    kept: list[str] = []
    waiting: list[tuple[str, bool]] = []  # (delimiter, tabs stripped) of the open here-documents
    for line in text.split("\n"):
        if waiting:
            delimiter, tabs = waiting[0]
            if (line.lstrip("\t") if tabs else line).rstrip("\r") == delimiter:
                waiting.pop(0)
            continue
        kept.append(line)
        waiting.extend((m.group(3), m.group(1) == "-") for m in _HEREDOC.finditer(line))
    return "\n".join(kept)


def _words(text: str) -> list[str]:
    """The shell words and operators of ``text``; a line whose quotes do not close is read on its own."""
    try:
        return _lex(text)
    except ValueError:  # a quote left open: read each line alone, skipping those that cannot be read
        words: list[str] = []
        for line in text.split("\n"):
            try:
                words += _lex(line)
            except ValueError:
                words.append(";")
        return words


def _lex(text: str) -> list[str]:
    # A new line ends a command: it becomes "\n;" (inside quotes the ";" only spoils a word with a new
    # line in it, which is never a path). A comment runs to the end of its line, its ";" survives.
    lexer = shlex.shlex(text.replace("\n", "\n;"), posix=True, punctuation_chars=_PUNCTUATION)
    lexer.whitespace_split = True
    words: list[str] = []
    for word in lexer:
        if word and len(word) > 1 and set(word) <= _PUNCTUATION_SET:
            words += _operators(word)  # shlex joins adjacent punctuation: ");" is ")" then ";"
        else:
            words.append(word)
    return words


def _operators(run: str) -> list[str]:
    """A run of punctuation cut into the shell's operators, longest first (``);`` is ``)`` and ``;``)."""
    out: list[str] = []
    index = 0
    while index < len(run):
        for size in (3, 2, 1):
            piece = run[index : index + size]
            if size == 1 or piece in _OPERATORS:
                out.append(piece)
                index += size
                break
    return out


def _simple_commands(words: list[str]) -> list[list[str]]:
    """``words`` cut into simple commands at separators; ``(`` and ``)`` stay as commands of their own."""
    commands: list[list[str]] = []
    current: list[str] = []
    for word in words:
        if word in _SEPARATORS:
            if current:
                commands.append(current)
                current = []
            if word in ("(", ")"):
                commands.append([word])
        else:
            current.append(word)
    if current:
        commands.append(current)
    return commands


class _Walk:
    """Where relative paths start as the commands go by (``cd``; a subshell's ``cd`` ends with it)."""

    def __init__(self, base: str) -> None:
        self.base: str | None = base
        self.saved: list[str | None] = []

    def touches(self, words: list[str]) -> list[tuple[str, str]]:
        """The files of one simple command, as ``(path, how)``."""
        if words == ["("]:
            self.saved.append(self.base)
            return []
        if words == [")"]:
            if self.saved:
                self.base = self.saved.pop()
            return []
        words, redirected = _redirections(words)
        program, args = _program(words)
        if program in ("cd", "pushd"):
            self._cd(args)
            return self._placed(redirected)
        return self._placed(redirected + _argument_touches(program, args))

    def _cd(self, args: list[str]) -> None:
        target = next((a for a in args if not a.startswith("-")), None)
        if target is None or self.base is None or not _plain_folder(target):
            self.base = None  # home, "-", a variable: where it went is unknown
        elif target.startswith("/") or _WINDOWS_DRIVE.match(target):
            self.base = target
        else:
            self.base = posixpath.join(self.base, target) if self.base else target

    def _placed(self, touches: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """``touches`` with relative paths joined to the current folder; dropped when it is unknown."""
        out = []
        for path, how in touches:
            absolute = path.startswith(("/", "~")) or _WINDOWS_DRIVE.match(path) is not None
            if absolute:
                out.append((path, how))
            elif self.base is not None:
                out.append((posixpath.join(self.base, path) if self.base else path, how))
        return out


def _plain_folder(word: str) -> bool:
    return bool(word) and word not in ("-", "~") and _NOT_PLAIN.search(word) is None and ":" not in word[2:]


def _redirections(words: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """The words of a command without its redirections, and the files those write (``>``) or read (``<``)."""
    kept: list[str] = []
    files: list[tuple[str, str]] = []
    skip = False
    for index, word in enumerate(words):
        if skip:
            skip = False
            continue
        if word and set(word) <= set("<>&|"):
            target = words[index + 1] if index + 1 < len(words) else ""
            skip = True
            if word in ("<<", "<<-", "<<<") or word.endswith("&"):
                continue  # a here-document's delimiter, a here-string, a copied descriptor (>&2)
            if path_like(target) or (target and "." not in target and "/" not in target and _plain(target)):
                files.append((target, READ if word == "<" else WRITE))
            continue
        if word.isdigit() and index + 1 < len(words) and words[index + 1].startswith(">"):
            continue  # the descriptor of 2> file
        kept.append(word)
    return kept, files


def _plain(word: str) -> bool:
    return bool(word) and _NOT_PLAIN.search(word) is None and not word.startswith("-")


def _program(words: list[str]) -> tuple[str, list[str]]:
    """A simple command's program (its base name) and arguments, past keywords, assignments and wrappers."""
    index = 0
    while index < len(words):
        word = words[index]
        if word in _KEYWORDS or _ASSIGNMENT.match(word):
            index += 1
        elif word.rpartition("/")[2] in _WRAPPERS:
            index += 1
            while index < len(words) and (words[index].startswith("-") or words[index][:1].isdigit()):
                index += 2 if words[index] in _WRAPPER_VALUES else 1  # its options (timeout's duration)
        else:
            program = word.rpartition("/")[2]
            rest = words[index + 1 :]
            if program in _RUNNERS:  # npx prettier ..., uv run pytest ...: the program is the tool run
                plain = [i for i, w in enumerate(rest) if not w.startswith("-")]
                if _RUNNERS[program]:  # only with its "run" word
                    if not plain or rest[plain[0]] not in ("run", "exec"):
                        return program, rest
                    plain = plain[1:]
                if plain:
                    return rest[plain[0]].rpartition("/")[2], rest[plain[0] + 1 :]
            return program, rest
    return "", []


def _argument_touches(program: str, args: list[str]) -> list[tuple[str, str]]:
    """The files among a program's arguments, and what the program does to them."""
    if not program or program in _NO_PATHS:
        return []
    if program == "git":
        return _git_touches(args)
    how = _how(program, args)
    if program.startswith("python") and "-m" in args:  # python -m pkg.module: a module, not a file
        args = args[: args.index("-m")] + args[args.index("-m") + 2 :]
    if program in _PATTERN_FIRST:
        args = _without_patterns(args)
    plain = [a for a in args if not a.startswith("-")]
    if program in _PATTERN_FIRST and plain and not _has_pattern_option(args):
        plain = plain[1:]
    strict = program in _STRICT
    paths = [a.partition("::")[0] for a in plain if path_like(a, strict)]
    if program in _COPIERS and paths and plain and paths[-1] == plain[-1]:
        return [(p, READ) for p in paths[:-1]] + [(paths[-1], WRITE)]
    return [(p, how) for p in paths]


def _how(program: str, args: list[str]) -> str:
    if program in _VIEWERS:
        return READ
    if program in _SEARCHERS:
        return SEARCH
    if program in _WRITERS:
        return WRITE
    if program in _IN_PLACE:
        in_place = any(a.startswith("-i") or (a.startswith("-") and "i" in a[1:3]) for a in args)
        return EDIT if in_place else READ
    if program in ("awk", "gawk"):
        return READ
    return RUN


def _without_patterns(args: list[str]) -> list[str]:
    """``args`` without the patterns given with an option (``-e PAT``), but with the option (it tells)."""
    out: list[str] = []
    skip = False
    for arg in args:
        if not skip:
            out.append(arg)
        skip = not skip and arg in _PATTERN_OPTIONS
    return out


def _has_pattern_option(args: list[str]) -> bool:
    """The pattern came with an option (``grep -e PAT``): the first plain word is then a file."""
    return any(a in _PATTERN_OPTIONS or a.startswith(("--regexp=", "--expression=")) for a in args)


def _git_touches(args: list[str]) -> list[tuple[str, str]]:
    """The files of a git command: the arguments of subcommands that take files, and anything after ``--``."""
    plain = [a for a in args if not a.startswith("-")]
    sub = plain[0] if plain else ""
    after = args[args.index("--") + 1 :] if "--" in args else []
    files = after or (plain[1:] if sub in _GIT_PATHS else [])
    how = _GIT_KINDS.get(sub, READ)
    return [(a, how) for a in files if path_like(a)]
