"""Credentials found by where they stand, whatever the service: headers, command-line flags, key names.

A token of a service no rule knows is still a secret when it is sent as ``Authorization: Bearer …`` or
``x-api-key: …``, passed as ``mysql -p…`` or ``--api-key …``, or assigned to a name like
``AZURE_OPENAI_KEY``. Each finder here reads one such context, in any language the line is written in
(curl, raw HTTP, Go, JavaScript, Python, shell, env and config files), and keeps a value only when it
looks generated (letters and digits mixed, or base64 that decodes to ``user:password``) and is no
placeholder or code (``$TOKEN``, ``<token>``, ``${{ secrets.X }}``, ``getToken()``).
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections import Counter

__all__ = ["add_context_secrets", "looks_generated"]

# What stands in a secret's place without being one: $VAR, ${VAR}, <token>, {{x}}, ****, %s, xxxx, YOUR_KEY.
_PLACEHOLDER = re.compile(
    r"(?i)\$\{?[\w.]+\}?|<[^>]*>|\{\{?[^}]*\}?\}|\*+|%[sd]|x{4,}|\.{3}|\[REDACTED:[\w-]+\].*"
    r"|(?:your|my|the|some|example|dummy|fake|test)[_-]?\w*|\w*(?:here|placeholder|redacted|changeme)\w*"
)
# A value that is code: a member access or a call (config.token, os.environ["X"], getToken()).
_CODE = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*|\[[\"'][\w$-]+[\"']\])*(?:\(.*)?[;,]?")

# Authorization: <scheme> <credentials>, in a header line, a header map or a call's arguments.
_AUTH_SCHEME = re.compile(r"(?i)\b(bearer|basic|token|bot|apikey|sso-key)[ \t]+([A-Za-z0-9._~+/\-:]{8,}=*)")
# Headers that carry a key or token as their whole value (x-api-key: …, PRIVATE-TOKEN: …), however the
# line writes them: `-H "x-api-key: v"`, `{"X-API-Key": "v"}`, `headers["X-API-Key"] = "v"`,
# `.set("x-api-key", "v")`.
_KEY_HEADER = re.compile(
    r"(?i)(?<![\w-])(?:x-)?(?:api-?key|auth-token|access-token|private-token|goog-api-key|functions-key"
    r"|vault-token|auth-key|secret-key|token|apim-subscription-key|ocp-apim-subscription-key)"
    r"[\"'`]?\]?[ \t]*(?::|=|,)[ \t]*[\"'`]?([^\s\"'`,;)}\]]{8,})"
)
# Password and token flags of commands, by command: mysql -pSECRET (no space: -p alone prompts),
# sshpass -p SECRET, redis-cli -a SECRET, docker login -p SECRET, and --password/--token/--api-key
# anywhere (with = or a space).
_FLAGS = (
    re.compile(
        r"\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n|;&]*?[ \t]-p([^\s\"'`-][^\s\"'`]*)"
    ),
    re.compile(r"\bsshpass\b[^\n|;&]*?[ \t]-p[ \t]*[\"']?([^\s\"'`]+)"),
    re.compile(r"\bredis-cli\b[^\n|;&]*?[ \t]-a[ \t]+[\"']?([^\s\"'`]+)"),
    re.compile(
        r"\b(?:docker|podman|helm|oras)\b[^\n|;&]*?\blogin\b[^\n|;&]*?[ \t]-p[ \t]+[\"']?([^\s\"'`]+)"
    ),
    re.compile(
        r"(?i)[ \t]--(?:password|passwd|pass|token|api-?key|access-token|auth-token|client-secret)"
        r"(?:=|[ \t]+)[\"']?([^\s\"'`]+)"
    ),
)
# A value assigned to a name whose last part says key (AZURE_OPENAI_KEY, sentryKey, NEW_RELIC_LICENSE_KEY,
# VAULT_TOKEN_PROD): the general keyword rules know names with token, secret or password anywhere, and
# api_key-like ones, but not every *_KEY.
_KEY_NAME = re.compile(
    r"(?<![\w.$-])([A-Za-z][A-Za-z0-9]*(?:[_-][A-Za-z0-9]+)*(?:[_-](?i:key)|(?-i:[a-z0-9]Key))(?:[_-][A-Z0-9]{1,12})?)"
    r"[\"'`]?[ \t]*(?::=|=|:)[ \t]*[\"'`]?([^\s\"'`,;)}\]]+)"
)
# Names ending in key that hold no secret (a table's key, a cache's key, a public key).
_NOT_SECRET_KEY = re.compile(
    r"(?i).*(?:primary|foreign|sort|partition|cache|idempotency|public|pub|hash|lookup|dedup|row|cursor"
    r"|object|bucket|s3|map|dict|env|group|shortcut|hot|sign|sorting|unique|composite|natural|i18n"
    r"|translation|message|storage|state|query|route|react|list|item|index|column|field|license_file"
    r"|keyboard|monkey|turkey|jwks|kid|key_?id)[_-]?key(?:[_-]\w+)?"
)
# The text of an XML element that holds a secret: Jenkins' credentials.xml (<secret>, <password>,
# <apiToken>), Maven's settings.xml, NuGet.Config, Azure's publish settings. The whole text goes, braces
# and all (Jenkins writes ``{AQAAABAAAA…}``), unless it is a variable.
_XML_ELEMENT = re.compile(
    r"<((?i:secret|password|passphrase|passwd|token|api_?token|api_?key|access_?key|secret_?key|account_?key"
    r"|private_?key|client_?secret|auth_?token|access_?token|refresh_?token|privateKeyPassphrase))>"
    r"([^<>\n]{6,})</\1>"
)
# A quoted value on a line that names a credential before it (``lokalise token - 'c4eb…'``,
# ``Your API2CART key is 2afd…``, ``std::string secret("…")``): a value that looks generated, 16
# characters or more, with more entropy than a word or a path has.
_NAMED_LINE = re.compile(
    r"(?i)(?:\b|_)(?:tokens?|secrets?|passw(?:or)?ds?|pwd|credentials?|api[_ -]?keys?|access[_ -]?keys?"
    r"|auth(?:_?token)?|keys?)(?:\b|_)"
)
_QUOTED = re.compile(
    r"[\"'`]([^\s\"'`]{12,})[\"'`]|(?<![\w/.=-])([A-Za-z0-9+/_~\-]{16,}(?:\.[A-Za-z0-9+/_~\-]+)*={0,2})(?![\w/=-])"
)
# A string literal assigned to (or compared with) a name that ends in password, secret or api key: the
# literal is the secret whatever it looks like (``password = "hunter2"``, ``DB_PASSWORD: 'Tr0ub4dor&3'``),
# unless it is a placeholder, a template, a URL, or prose (a space). ``secret_name`` or ``password_hash``
# do not end so; ``if ("…" == password)`` compares.
_LITERAL_ASSIGNMENT = re.compile(
    r"(?i)(?:[\w\-]*(?:passw(?:or)?d|pwd|secret|secrete|api[_-]?key|private[_-]?key|client[_-]?secret"
    r"|db[_-]?pass|contrase(?:ñ|n)a)s?(?-i:(?<=[a-z])(?![a-z])|(?<=[A-Z])(?![A-Z]))[\"'`\]]{0,2}[ \t]*"
    r"(?:=>|:=|!==?|={1,3}|:)"
    r"[ \t]*@?([\"'`])([^\s\"'`]{6,200})\1"
    r"|([\"'`])([^\s\"'`]{6,200})\3[ \t]*(?:!==?|={2,3})[ \t]*[\w\-]*(?:passw(?:or)?d|pwd|secret|api[_-]?key"
    r"|private[_-]?key)\b)"
)
_TEMPLATE = re.compile(r"\$\{[\w.]+\}|^\$\w+|\$[A-Za-z_]\w*$|\{\{[^{}]*\}\}|%\(?\w*\)?[sd]|://")
# Hints that a line may hold one of the contexts above: the finders run only on the lines with one, since
# their patterns start with a character class and would otherwise try every position of a long text.
# They are matched against the text in lower case (a case-insensitive pattern is several times slower).
_AUTH_HINT = re.compile(r"(?:bearer|basic|token|bot|apikey|sso-key)[ \t]+[a-z0-9]")
_XML_HINT = re.compile(r"<(?:secret|pass|token|api|access|account|private|client|auth|refresh)")
_NAMED_HINT = re.compile(r"(?:token|secret|passw|pwd|credential|key)")
_KEY_HINT = re.compile(r"(?:key|token)[\w\-]{0,13}[\"'`\]]{0,2}[ \t]*[:=,]")
_FLAG_HINT = re.compile(r"(?:mysql|mariadb|sshpass|redis-cli|login|--(?:pass|token|api|access|auth|client))")
# Literals that name the field rather than fill it.
_NOT_PASSWORDS = frozenset(
    {"password", "passwd", "secret", "api_key", "apikey", "private_key", "required", "string"}
)
_MIN_LENGTH = 8
_MIN_ENTROPY = 3.0


def _entropy(value: str) -> float:
    counts = Counter(value)
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def looks_generated(value: str, min_length: int = _MIN_LENGTH, min_entropy: float = _MIN_ENTROPY) -> bool:
    """Whether ``value`` looks like a generated credential: letters and digits, not a placeholder or code."""
    value = value.rstrip(".,;:)")
    if len(value) < min_length or _PLACEHOLDER.fullmatch(value):
        return False
    has_digit = any(c.isdigit() for c in value)
    has_letter = any(c.isalpha() for c in value)
    if not (has_digit and has_letter) or _entropy(value) < min_entropy:
        return False
    if not (_CODE.fullmatch(value) and ("." in value or "(" in value or "[" in value)):
        return True
    # a.b.c is code, unless a part of it is itself a long random run (a dotted token: JWT-like, Yandex).
    return any(len(part) >= 16 and _entropy(part) >= 3.5 for part in re.split(r"[.(\[]", value))


def _looks_like_key(value: str) -> bool:
    """A value next to a credential's name: generated-looking, or 16+ letters of both cases with entropy."""
    if value.count("\\") >= 2 or value.count("/") >= 3:
        return False  # a Windows registry or file path, a URL's path
    if looks_generated(value, min_length=12, min_entropy=3.5):
        return True
    letters = value.replace("-", "").replace("_", "")
    return (
        len(value) >= 16
        and letters.isalpha()
        and not letters.isupper()
        and not letters.islower()
        and sum(c.isupper() for c in letters) >= 3
        and _entropy(value) >= 3.8
    )


def _basic_credentials(value: str) -> bool:
    """Whether ``value`` is base64 of ``user:password`` (HTTP Basic), random-looking or not."""
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return False
    return ":" in decoded and decoded.isprintable()


def _lines(text: str, lower: str, hint: re.Pattern[str]) -> list[str]:
    """The lines of ``text`` where ``hint`` matches ``lower`` (the text in lower case), each once."""
    lines: list[str] = []
    after = -1  # the end of the last line taken
    for match in hint.finditer(lower):
        if match.start() < after:
            continue
        start = text.rfind("\n", 0, match.start()) + 1
        end = text.find("\n", match.end())
        after = end if end != -1 else len(text)
        lines.append(text[start:after])
    return lines


def _is_placeholder(value: str) -> bool:
    """``$TOKEN``, ``<password>``, ``YOUR_KEY``, ``SECRET``: what stands where a secret goes."""
    return bool(_PLACEHOLDER.fullmatch(value)) or (value.isupper() and not any(c.isdigit() for c in value))


def _add(values: dict[str, str], value: str, kind: str) -> None:
    value = value.rstrip(".,;:)")
    if value and not value.startswith("[REDACTED:"):
        values.setdefault(value, kind)


def add_context_secrets(text: str, values: dict[str, str]) -> None:
    """Add to ``values`` (value -> kind) the secrets that their context gives away in ``text``.

    Kinds: ``auth-header`` (an Authorization or API-key header's value), ``cli-password`` (a password or
    token flag of a command) and ``secret-assignment`` (a random value assigned to a ``*_KEY`` name).
    """
    lower = text.lower()
    if len(lower) != len(text):  # a few characters change length in lower case: offsets would not match
        lower = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    for line in _lines(text, lower, _AUTH_HINT):
        for match in _AUTH_SCHEME.finditer(line):
            scheme, value = match.group(1).lower(), match.group(2)
            if (scheme == "basic" and _basic_credentials(value)) or looks_generated(value):
                _add(values, value, "auth-header")
    for line in _lines(text, lower, _KEY_HINT):
        for match in _KEY_HEADER.finditer(line):
            if looks_generated(match.group(1)):
                _add(values, match.group(1), "auth-header")
        for match in _KEY_NAME.finditer(line):
            name, value = match.group(1), match.group(2)
            if not _NOT_SECRET_KEY.fullmatch(name) and looks_generated(value, min_length=16):
                _add(values, value, "secret-assignment")
    for line in _lines(text, lower, _NAMED_HINT):
        for match in _LITERAL_ASSIGNMENT.finditer(line):
            value = match.group(2) or match.group(4)
            if not (_is_placeholder(value) or _TEMPLATE.search(value) or value.lower() in _NOT_PASSWORDS):
                _add(values, value, "secret-assignment")
    for line in _lines(text, lower, _XML_HINT):
        for match in _XML_ELEMENT.finditer(line):
            inner = match.group(2).strip()
            if inner.startswith("{") and not inner.startswith("{{"):
                inner = inner.strip("{}")  # Jenkins writes its encrypted secrets in braces
            if not _is_placeholder(inner):
                _add(values, match.group(2), "secret-element")
    for line in _lines(text, lower, _NAMED_HINT):
        named = _NAMED_LINE.search(line)
        if named is None:
            continue
        for match in _QUOTED.finditer(line, named.end()):
            value = match.group(1) or match.group(2)
            if _looks_like_key(value) and "://" not in value:
                _add(values, value, "named-secret")
    for line in _lines(text, lower, _FLAG_HINT):
        for pattern in _FLAGS:
            for match in pattern.finditer(line):
                value = match.group(1)
                if len(value) >= 6 and not _is_placeholder(value):
                    _add(values, value, "cli-password")
