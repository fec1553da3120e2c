"""Secret scanners' public test fixtures, read from their repositories at run time (nothing is copied here).

``collect(gitleaks=..., trufflehog=..., detect_secrets=...)`` takes each repository as a clone or a git
directory (what the search tool's ``fetch`` leaves: ``/work/.mirror/OWNER+NAME/repo``) and reads, at its
``HEAD``:

* **gitleaks** (MIT): the literal strings of each rule's true positives (``tps``) in
  ``cmd/generate/config/rules/*.go``; the ones it generates from a regex at test time are left out.
* **trufflehog** (AGPL-3.0): every detector test's cases (``pkg/detectors/**/*_test.go``, not the
  integration tests) whose ``want`` is not empty: the ``input`` and the wanted secrets, evaluated from
  the Go source (string literals, constants, ``+`` and ``fmt.Sprintf``; a case using anything else is
  left out).
* **detect-secrets** (Apache-2.0): the plugins' test cases (``tests/plugins/*_test.py``): tuples whose
  first item is a string and whose second says it is flagged (``True``, or the secret itself), evaluated
  from the Python source (literals, module constants, ``+``, ``%``, ``.format``).

A fixture's ``secrets`` are the strings the scanner's test says it finds, where they stand whole in the
text; when it names none (gitleaks, detect-secrets' ``True``), a fixture counts as caught when anything
in it is redacted.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple


class Fixture(NamedTuple):
    source: str  # gitleaks, trufflehog, detect-secrets
    origin: str  # the file it came from
    text: str
    # What must not survive: each item is one credential, as the parts of it that stand in the text (a
    # joined ``id:secret`` gives two); it survives when every part does. Empty: anything redacted in the
    # text counts as caught.
    secrets: tuple[tuple[str, ...], ...]


def _git(repo: Path, *args: str, data: bytes | None = None) -> bytes:
    git_dir = repo / ".git" if (repo / ".git").exists() else repo
    return subprocess.run(
        ["git", f"--git-dir={git_dir}", *args], input=data, capture_output=True, check=True
    ).stdout


def _files(repo: Path, pattern: str) -> Iterator[tuple[str, str]]:
    """``(path, text)`` of the files at HEAD whose path matches ``pattern``."""
    names = [
        n
        for n in _git(repo, "ls-tree", "-r", "--name-only", "HEAD").decode().splitlines()
        if re.search(pattern, n)
    ]
    if not names:
        return
    out = _git(repo, "cat-file", "--batch", data="".join(f"HEAD:{n}\n" for n in names).encode())
    pos = 0
    for name in names:
        header_end = out.index(b"\n", pos)
        size = int(out[pos:header_end].split()[2])
        yield name, out[header_end + 1 : header_end + 1 + size].decode("utf-8", "replace")
        pos = header_end + 1 + size + 1


# ----------------------------------------------------------------------------------------------- Go
_GO_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    '"': '"',
    "\\": "\\",
    "'": "'",
    "0": "\0",
    "a": "\a",
    "b": "\b",
}


class _Go:
    """A tiny evaluator of Go string expressions: literals, names, ``+``, ``fmt.Sprintf``."""

    def __init__(self, source: str) -> None:
        self.src = source
        self.names: dict[str, str] = {}

    def skip(self, pos: int) -> int:
        while pos < len(self.src):
            if self.src[pos] in " \t\r\n":
                pos += 1
            elif self.src.startswith("//", pos):
                end = self.src.find("\n", pos)
                pos = len(self.src) if end == -1 else end
            else:
                break
        return pos

    def literal(self, pos: int) -> tuple[str | None, int]:
        if self.src[pos] == "`":
            end = self.src.find("`", pos + 1)
            return (None, pos) if end == -1 else (self.src[pos + 1 : end], end + 1)
        out = []
        i = pos + 1
        while i < len(self.src) and self.src[i] != '"':
            if self.src[i] == "\n":
                return None, pos
            if self.src[i] == "\\":
                nxt = self.src[i + 1]
                if nxt == "x":
                    out.append(chr(int(self.src[i + 2 : i + 4], 16)))
                    i += 4
                    continue
                if nxt == "u":
                    out.append(chr(int(self.src[i + 2 : i + 6], 16)))
                    i += 6
                    continue
                out.append(_GO_ESCAPES.get(nxt, nxt))
                i += 2
                continue
            out.append(self.src[i])
            i += 1
        return "".join(out), i + 1

    def term(self, pos: int) -> tuple[str | None, int]:
        pos = self.skip(pos)
        if pos >= len(self.src):
            return None, pos
        c = self.src[pos]
        if c in '`"':
            return self.literal(pos)
        if c == "(":
            value, pos = self.expr(pos + 1)
            pos = self.skip(pos)
            return (value, pos + 1) if pos < len(self.src) and self.src[pos] == ")" else (None, pos)
        match = re.compile(r"[A-Za-z_][\w.]*").match(self.src, pos)
        if not match:
            return None, pos
        name, pos = match.group(0), match.end()
        if name == "fmt.Sprintf":
            args, pos = self.args(pos)
            if not args or any(a is None for a in args):
                return None, pos
            return _sprintf(args[0], args[1:]), pos
        if name == "strings.Repeat":
            args, pos = self.args(pos)
            return None, pos
        after = self.skip(pos)
        if after < len(self.src) and self.src[after] == "(":
            return None, pos  # a call we do not evaluate
        return self.names.get(name), pos

    def args(self, pos: int) -> tuple[list[str | None], int]:
        pos = self.skip(pos)
        if pos >= len(self.src) or self.src[pos] != "(":
            return [], pos
        pos += 1
        values: list[str | None] = []
        while True:
            pos = self.skip(pos)
            if pos < len(self.src) and self.src[pos] == ")":
                return values, pos + 1
            value, pos = self.expr(pos)
            values.append(value)
            pos = self.skip(pos)
            if pos < len(self.src) and self.src[pos] == ",":
                pos += 1
            elif pos < len(self.src) and self.src[pos] == ")":
                return values, pos + 1
            else:
                return [None], pos

    def expr(self, pos: int) -> tuple[str | None, int]:
        value, pos = self.term(pos)
        while True:
            after = self.skip(pos)
            if after < len(self.src) and self.src[after] == "+" and self.src[after + 1 : after + 2] != "+":
                right, pos = self.term(after + 1)
                value = value + right if value is not None and right is not None else None
            else:
                return value, pos

    def string_list(self, pos: int) -> tuple[list[str | None] | None, int]:
        pos = self.skip(pos)
        if self.src.startswith("nil", pos):
            return [], pos + 3
        if not self.src.startswith("[]string{", pos):
            return None, pos
        pos += len("[]string{")
        values: list[str | None] = []
        while True:
            pos = self.skip(pos)
            if pos < len(self.src) and self.src[pos] == "}":
                return values, pos + 1
            value, pos = self.expr(pos)
            values.append(value)
            pos = self.skip(pos)
            if pos < len(self.src) and self.src[pos] == ",":
                pos += 1
            elif pos >= len(self.src) or self.src[pos] != "}":
                return None, pos


def _sprintf(template: str, args: list[str | None]) -> str | None:
    values = iter(args)
    failed = False

    def one(match: re.Match[str]) -> str:
        nonlocal failed
        verb = match.group(1)
        if verb == "%":
            return "%"
        value = next(values, None)
        if value is None:
            failed = True
            return ""
        return json.dumps(value) if verb == "q" else value

    out = re.sub(r"%[-+ #0-9.]*([svqd%])", one, template)
    return None if failed else out


def _trufflehog(repo: Path) -> Iterator[Fixture]:
    for path, source in _files(repo, r"^pkg/detectors/.+_test\.go$"):
        if "integration" in path:
            continue
        go = _Go(source)
        for match in re.finditer(r"(?m)^\s*(\w+)\s*(?::=|=)\s*(?=[`\"(A-Za-z])", source):
            value, _ = go.expr(match.end())
            if value is not None:
                go.names.setdefault(match.group(1), value)
        pending: str | None = None
        for match in re.finditer(r"\b(input|want|name):", source):
            field = match.group(1)
            if field == "name":
                pending = None
            elif field == "input":
                pending, _ = go.expr(match.end())
            elif pending is not None:
                wanted, _ = go.string_list(match.end())
                if wanted:
                    secrets = tuple(parts for w in wanted if w and (parts := _in_text(pending, w)))
                    yield Fixture("trufflehog", path, pending, secrets)
                pending = None


def _in_text(text: str, secret: str) -> tuple[str, ...]:
    """A wanted secret as it stands in the text: whole, or the parts of a joined one (``id:secret``)."""
    if secret in text:
        return (secret,)
    parts = re.split(r"[:;,|\s]+", secret)
    return tuple(p for p in parts if len(p) >= 8 and p in text and not _NOT_SECRET.search(p))


# Parts of a joined ``want`` that are not secrets: e-mail addresses, URLs, host names.
_NOT_SECRET = re.compile(r"@|^https?$|//|^[\w-]+(?:\.[\w-]+)*\.(?:com|net|org|io|dev|ai|co)$")


# ------------------------------------------------------------------------------------------ gitleaks
def _gitleaks(repo: Path) -> Iterator[Fixture]:
    for path, source in _files(repo, r"^cmd/generate/config/rules/[^/]+\.go$"):
        go = _Go(source)
        for match in re.finditer(r"\btps\s*(?::=|=)\s*(?:\[\]string\{|append\(tps,)", source):
            pos = match.end()
            depth = 1
            item_start = True  # at the start of one of the list's items
            # The list's items up to its closing brace (or append's parenthesis): literal strings only.
            while pos < len(source) and depth:
                pos = go.skip(pos)
                if pos >= len(source):
                    break
                c = source[pos]
                if c in "{(":
                    depth += 1
                    pos += 1
                    item_start = False
                elif c in "})":
                    depth -= 1
                    pos += 1
                elif c == ",":
                    item_start = depth == 1
                    pos += 1
                elif c in '`"' and item_start and depth == 1:
                    value, end = go.expr(pos)
                    after = go.skip(end)
                    if value is not None and after < len(source) and source[after] in ",})":
                        yield Fixture("gitleaks", path, value, ())
                    pos = max(end, pos + 1)
                    item_start = False
                elif c in '`"':
                    _value, end = go.literal(pos)
                    pos = max(end, pos + 1)
                else:
                    pos += 1
                    item_start = False


# ------------------------------------------------------------------------------------ detect-secrets
def _py_value(node: ast.AST, names: dict[str, object]) -> object:
    """A string expression of a test module, evaluated without running it (None when it cannot be)."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if isinstance(node, ast.BinOp):
        left, right = _py_value(node.left, names), _py_value(node.right, names)
        if isinstance(node.op, ast.Add) and isinstance(left, str) and isinstance(right, str):
            return left + right
        if isinstance(node.op, ast.Mult) and isinstance(left, str) and isinstance(right, int):
            return left * right
        if isinstance(node.op, ast.Mod) and isinstance(left, str):
            try:
                return left % (tuple(right) if isinstance(right, list) else right)
            except (TypeError, ValueError):
                return None
    if isinstance(node, ast.Tuple | ast.List):
        return [_py_value(item, names) for item in node.elts]
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
        and not node.keywords
    ):
        template = _py_value(node.func.value, names)
        args = [_py_value(a, names) for a in node.args]
        if isinstance(template, str) and all(isinstance(a, str | int) for a in args):
            try:
                return template.format(*args)
            except (IndexError, KeyError, ValueError):
                return None
    return None


def _detect_secrets(repo: Path) -> Iterator[Fixture]:
    for path, source in _files(repo, r"^tests/plugins/[^/]+_test\.py$"):
        if path.endswith("ip_public_test.py"):
            continue  # public IP addresses: no credential
        tree = ast.parse(source)
        names: dict[str, object] = {}
        for node in tree.body:
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
            ):
                names[node.targets[0].id] = _py_value(node.value, names)
        seen: set[str] = set()
        for node in ast.walk(tree):
            if not isinstance(node, ast.Tuple) or len(node.elts) < 2:
                continue
            text, flag = _py_value(node.elts[0], names), _py_value(node.elts[1], names)
            if not isinstance(text, str) or text in seen or not (flag is True or isinstance(flag, str)):
                continue
            if re.fullmatch(r"[\"']?\{\w*\}[\"']?", text):  # a template the test fills with a secret
                continue
            seen.add(text)
            secrets = ((flag,),) if isinstance(flag, str) and flag in text else ()
            yield Fixture("detect-secrets", path, text, secrets)


def collect(
    gitleaks: Path | None = None, trufflehog: Path | None = None, detect_secrets: Path | None = None
) -> list[Fixture]:
    """Every positive fixture of the repositories given (see the module's docstring)."""
    found: list[Fixture] = []
    if gitleaks:
        found += _gitleaks(gitleaks)
    if trufflehog:
        found += _trufflehog(trufflehog)
    if detect_secrets:
        found += _detect_secrets(detect_secrets)
    return [f for f in found if f.text.strip()]
