"""Finding credentials in exported text and replacing them with ``[REDACTED:kind]`` markers.

Detection uses Yelp's ``detect-secrets`` plugins (maintained, with the patterns of many services) for
AWS and Azure storage keys, GitHub, Slack, Stripe live, Twilio, SendGrid, npm (``.npmrc``), PyPI and
Square tokens, JSON Web Tokens, OpenAI's legacy keys, and assignments to names like
``SECRET``/``PASSWORD``. Only the plugins' pattern matching is used (``analyze_string``), never their
``verify`` step, which would send the secret to the service.

Added here, in one table (``secret_patterns``, each row with its source): what the library lacks or
returns cut short. The model-provider keys (Anthropic, OpenAI project keys, Google, Hugging Face user
and organisation tokens, OpenRouter, Groq, xAI, Perplexity, Replicate), GitHub fine-grained tokens,
GitLab tokens (the library's GitLab patterns have a capture group, so only the five-letter prefix came
back), ``npm_`` tokens anywhere, Stripe test and restricted keys, Slack app-level and refresh tokens,
Azure AD client secrets and passwords in URLs (the library's pattern refused ``$ ! = &`` and the other
characters RFC 3986 allows there). Besides: whole ``-----BEGIN ... PRIVATE KEY-----`` blocks (the
library only flags the first line), tokens followed to their end when a pattern stops early (JWTs,
long Stripe keys), an entropy threshold on keyword assignments (so ``token = getToken()`` stays), and
literal strings the user adds.

A :class:`Redactor` counts what it replaced by kind, so the dialog and the CLI can show the counts.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from typing import Any, Protocol, overload

from core.export import gitleaks_rules
from core.export.secret_contexts import add_context_secrets
from core.export.secret_patterns import PATTERNS
from core.session.content import is_image_block

__all__ = ["MARKER", "Redactor", "marker"]

MARKER = "[REDACTED:{kind}]"
LITERAL = "literal"


# A password in a URL's userinfo (RFC 3986 section 3.2.1: unreserved, percent-encoded, sub-delims
# ``!$&'()*+,;=`` and ``:``): the value runs to the last ``@`` before the path, query or fragment, so a
# raw ``@`` inside it is covered too. The user may be empty (``redis://:secret@host``).
_URL_PASSWORD = re.compile(r"://[^\s:/?#\[\]]*:([^\s/?#]+)@")
# What stands in a URL's password place without being one: $VAR, ${VAR}, <password>, {{x}}, ****, %s.
_PLACEHOLDER = re.compile(r"\$\{?\w+\}?|<[^>]*>|\{\{?[\w.]*\}?\}|\*+|%[sd]|\[REDACTED:[\w-]+\]")
# A name that holds a secret, assigned or compared: detect-secrets' keyword list (``DENYLIST`` in its
# keyword plugin) and the names it lacks (token, credential, auth). The value is read in code
# (:func:`_assigned_values`) from where the operator ends, one assignment at a time, so a second
# assignment on a line, or one right after a stray quote, is read on its own: the library's patterns
# take one value per line and stop at the first quote (found by the export fuzzer: in
# ``password=abc"password=hunter2...`` and ``a: "x1...", password: hunter2...`` the second value stayed).
# The keyword must end a part of the name (``TOKENIZE`` and ``tokenizer`` are no tokens, ``authToken`` and
# ``SECRET_KEY`` are): the letter after it is not of its own case.
_ASSIGNMENT = re.compile(
    r"(?i)[\w\-]*(?:api[_-]?key|auth_?key|service_?key|account_?key|db_?key|database_?key|priv_?key"
    r"|private_?key|client_?key|db_?pass|database_?pass|key_?pass|password|passwd|pwd|secret"
    r"|contrase(?:ñ|n)a|token|credential|auth)s?(?-i:(?<=[a-z])(?![a-z])|(?<=[A-Z])(?![A-Z])|(?<![A-Za-z]))"
    r"[\w\-]*[\"'`\]]{0,2}\s*(?:=>|:=|!==?|={1,3}|:)\s*"
)
# Names that say password: a person's password (``hunter2hunter2``) has too little entropy for the
# general check, so for these a value with letters and digits, or a symbol, of 8 characters is enough.
_PASSWORD_NAME = re.compile(
    r"(?i)[\w\-]*(?:password|passwd|pwd|contrase(?:ñ|n)a)[\w\-]*[\"'`\]]{0,2}\s*(?:=>|:=|={1,3}|:)\s*"
)
# An unquoted value runs to white space, a quote, a separator or a bracket; one followed by ``(`` is a
# call (``pwd.slice(0, n)``), not a value.
_BARE_VALUE = re.compile(r"[^\s\"'`,;()\[\]{}<>]++(?!\()")  # possessive: no shorter match before "("
# Assigned values that are not secrets although they mix letters and digits: version pins
# (``tokenizers==0.13.3.post1``), URLs (a password in one is found as url-password) and template
# strings (`` `${a}...${b}` ``).
_NOT_A_SECRET = re.compile(r"v?\d+(?:\.\d+)+(?:[.+_\-]?[A-Za-z0-9]+)*|.*(?:://|\$\{).*")
# A keyword soon followed by an assignment, in lower-cased text: only lines with one are handed to
# the keyword patterns, which backtrack heavily and would otherwise dominate the time spent.
_ASSIGNMENT_HINT = re.compile(
    r"(?:key|pass|pwd|secret|contras|token|credential|auth)[a-z0-9_\-\]'\"]{0,40}\s*(?:[:=!]|=>)"
)

# detect-secrets plugins -> marker kind (see _detectors). Discord, Telegram, Mailchimp and Artifactory,
# whose patterns start without a fixed prefix, run on RE2 (_RE2Plugin): on Python's engine the four of
# them tripled the scan time (0.45 of 0.61 s per 2 MB). Replaced by PATTERNS and _URL_PASSWORD: GitLab
# (its patterns' capture group returned only the prefix) and basic auth (it refused sub-delimiters, and
# its bare password value was then replaced wherever it occurred, "postgres" in
# postgres://postgres:postgres@host included).
_PEM_BLOCK = re.compile(
    r"-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----.*?(?:-----END \1-----|\Z)", re.DOTALL
)
_PUTTY = re.compile(r"PuTTY-User-Key-File-\d+:.*?(?:Private-MAC: [0-9a-fA-F]+|\Z)", re.DOTALL)
# Characters a token may continue with past what a pattern matched (JWT patterns stop early).
_TOKEN_TAIL = re.compile(r"[A-Za-z0-9_\-]*")
_JWT_TAIL = re.compile(r"[A-Za-z0-9_\-.+/=]*")
# An assigned value that is a name or a member access (process.env.API_KEY, os.environ["X"], $TOKEN,
# config.token(), ${SECRET}) is code, not a secret.
_CODE_REFERENCE = re.compile(
    r"[$]\{?\w+\}?[;,]?"  # $TOKEN, ${TOKEN}
    r"|[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*|\[[\"'][\w$-]+[\"']\])+(?:\(\))?[;,]?"  # a.b.c, os.environ["X"]
    r"|[A-Za-z_$][\w$]*\(\)[;,]?"  # getToken()
)
_HEX_PAIR = re.compile(r"[0-9A-Fa-f]{2}")
_FILE_NAME = re.compile(r"[\w./\\-]*\.[A-Za-z][A-Za-z0-9]{0,4}")  # src/app.ts, test_0007.sql
_MIN_ENTROPY = 3.0  # bits per character; "getToken()" ~2.9, a random 16-character key ~3.8
_MIN_ASSIGNED = 8  # characters
_MIN_SCANNED = 8  # strings shorter than this cannot hold any credential the patterns know
_MAX_PASSES = 3  # scans of one string: a replacement may bring out one more secret (Redactor.text)
# Kinds whose patterns may end before the token does (see _TOKEN_TAIL).
_OPEN_ENDED = frozenset({"slack-token", "jwt", "gitlab-token", "npm-token", "pypi-token", "stripe-key"})
# When two findings cover the same text, the more specific kind wins.
_PRIORITY = {LITERAL: 0, "private-key": 1, "secret-assignment": 9, "url-password": 8}


def marker(kind: str) -> str:
    """The text that replaces a secret of this kind, e.g. ``[REDACTED:github-token]``."""
    return MARKER.format(kind=kind)


class _Detector(Protocol):
    """A detect-secrets plugin: the secret values it finds in a string."""

    def analyze_string(self, string: str) -> Iterable[object]: ...


class _KeywordDetector(Protocol):
    """detect-secrets' keyword plugin, which takes the patterns (and their value group) to use."""

    def analyze_string(
        self, string: str, denylist_regex_to_group: dict[re.Pattern[str], int] | None = None
    ) -> Iterable[object]: ...


class _RE2Plugin:
    """A detect-secrets plugin's patterns run on RE2, which skips ahead where Python's engine cannot."""

    def __init__(self, plugin: Any) -> None:
        import re2

        self.patterns = [re2.compile(regex.pattern) for regex in plugin.denylist]

    def analyze_string(self, string: str) -> Iterable[object]:
        data = string.encode("utf-8", "surrogatepass")
        for pattern in self.patterns:
            for match in pattern.finditer(data):
                # Artifactory's patterns take the space, quote or = around the key: the key alone.
                yield match.group(0).decode("utf-8", "surrogatepass").strip(' \t\r\n"=:')


_Extra = tuple[str, re.Pattern[str], re.Pattern[str] | None, int]  # kind, regex, lead, lead width
_RegexMaps = list[dict[re.Pattern[str], int]]
_Detectors = tuple[list[tuple[str, _Detector]], list[_Extra], _KeywordDetector, _RegexMaps]


@lru_cache(maxsize=1)
def _detectors() -> _Detectors:
    """The detect-secrets plugins, our extra patterns, and the keyword detector with its regexes.

    Imported on first use: detect-secrets pulls in ``requests``, which an export without redaction
    (and the rest of the CLI) should not pay for.
    """
    # Imported by name (not in a loop over names), so PyInstaller sees every plugin the app needs.
    from detect_secrets.plugins import (
        artifactory,
        aws,
        azure_storage_key,
        discord,
        github_token,
        jwt,
        keyword,
        mailchimp,
        npm,
        openai,
        pypi_token,
        sendgrid,
        slack,
        square_oauth,
        stripe,
        telegram_token,
        twilio,
    )

    plugins: list[tuple[str, _Detector]] = [
        ("aws-key", aws.AWSKeyDetector()),
        ("azure-key", azure_storage_key.AzureStorageKeyDetector()),
        ("github-token", github_token.GitHubTokenDetector()),
        ("slack-token", slack.SlackDetector()),
        ("stripe-key", stripe.StripeDetector()),
        ("twilio-key", twilio.TwilioKeyDetector()),
        ("sendgrid-key", sendgrid.SendGridDetector()),
        ("npm-token", npm.NpmDetector()),
        ("pypi-token", pypi_token.PypiTokenDetector()),
        ("square-token", square_oauth.SquareOAuthDetector()),
        ("openai-key", openai.OpenAIDetector()),
        ("jwt", jwt.JwtTokenDetector()),
        ("discord-token", _RE2Plugin(discord.DiscordBotTokenDetector())),
        ("telegram-token", _RE2Plugin(telegram_token.TelegramBotTokenDetector())),
        ("mailchimp-key", _RE2Plugin(mailchimp.MailchimpDetector())),
        ("artifactory-token", _RE2Plugin(artifactory.ArtifactoryDetector())),
    ]
    extras = [
        (p.kind, re.compile(p.regex), re.compile(p.lead) if p.lead else None, p.lead_width) for p in PATTERNS
    ]
    regex_maps = [keyword.QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP, keyword.CONFIG_DENYLIST_REGEX_TO_GROUP]
    return plugins, extras, keyword.KeywordDetector(), regex_maps


def _at_word_start(text: str, start: int) -> bool:
    """Whether a token starts a word at ``start``: after a non-word character or a percent-encoded one."""
    if start == 0 or not (text[start - 1].isalnum() or text[start - 1] in "_-"):
        return True
    # ``?next=%2F%3Ftoken%3Dghp_...``: a URL-encoded ``=`` or ``/`` before the token ends the word before it.
    return start >= 3 and text[start - 3] == "%" and _HEX_PAIR.fullmatch(text, start - 2, start) is not None


def _hinted_lines(text: str) -> list[str]:
    """The lines of ``text`` where a keyword is assigned something (see ``_ASSIGNMENT_HINT``)."""
    lower = text.lower()
    starts: dict[int, None] = {}
    for match in _ASSIGNMENT_HINT.finditer(lower):
        starts[lower.rfind("\n", 0, match.start()) + 1] = None
    lines = []
    for start in starts:
        end = text.find("\n", start)
        lines.append(text[start : end if end != -1 else len(text)])
    return lines


def _assigned_values(line: str, assignment: re.Pattern[str] = _ASSIGNMENT) -> list[str]:
    """The values assigned to (or compared with) secret-holding names in one line, as candidates.

    A quoted value gives two candidates, up to its closing quote and up to the first separator: when
    the quotes do not pair up (``password="abc'|token=...``), one of the two is still the secret, and
    the longer of overlapping findings wins in :meth:`Redactor.find`.
    """
    values = []
    for match in assignment.finditer(line):
        start = match.end()
        if start >= len(line):
            continue
        quote = line[start]
        if quote in "\"'`":
            start += 1
            close = line.find(quote, start)
            values.append(line[start : close if close != -1 else len(line)])
        bare = _BARE_VALUE.match(line, start)
        if bare is not None:
            values.append(bare.group(0))
    return [value for value in values if value and not _NOT_A_SECRET.fullmatch(value)]


def _looks_random(value: str) -> bool:
    """Letters and digits mixed, and not a file name: generated secrets are, words and paths are not."""
    has_digit = any(c.isdigit() for c in value)
    has_letter = any(c.isalpha() for c in value)
    return has_digit and has_letter and not _FILE_NAME.fullmatch(value)


# The detectors of Redactor._values that are ours: each adds what it finds to ``values`` (value ->
# kind) unless an earlier one found it.
def _add_private_keys(text: str, values: dict[str, str]) -> None:
    """Whole private key blocks (PEM) and PuTTY key files."""
    for pattern in (_PEM_BLOCK, _PUTTY):
        for match in pattern.finditer(text):
            values.setdefault(match.group(0), "private-key")


def _add_pattern_matches(text: str, extras: list[_Extra], values: dict[str, str]) -> None:
    """The matches of our own patterns (:data:`~core.export.secret_patterns.PATTERNS`) at a word's start."""
    for kind, pattern, lead, width in extras:
        for match in pattern.finditer(text):
            start = match.start()
            if lead is not None:
                start -= width
                if start < 0 or not lead.fullmatch(text, start, match.start()):
                    continue
            if _at_word_start(text, start):
                values.setdefault(text[start : match.end()], kind)


def _add_url_passwords(text: str, values: dict[str, str]) -> None:
    """The passwords in URLs that are not placeholders."""
    for match in _URL_PASSWORD.finditer(text):
        if not _PLACEHOLDER.fullmatch(match.group(1)):
            # With its delimiters, so only this place is replaced (see find), never the same word
            # elsewhere: in postgres://postgres:postgres@host the scheme and user stay.
            values.setdefault(f":{match.group(1)}@", "url-password")


def _add_assigned_secrets(
    text: str, keyword_detector: _KeywordDetector, regex_maps: _RegexMaps, values: dict[str, str]
) -> None:
    """The values assigned to secret-holding names that look generated: long, random, not code."""
    for line in _hinted_lines(text):
        assigned: list[object] = list(_assigned_values(line))
        for regex_map in regex_maps:
            assigned.extend(keyword_detector.analyze_string(line, regex_map))
        passwords = set(_assigned_values(line, _PASSWORD_NAME)) if "p" in line.lower() else set()
        for value in assigned:
            if (
                isinstance(value, str)
                and len(value) >= _MIN_ASSIGNED
                and not value.startswith("[REDACTED:")
                and (_entropy(value) >= _MIN_ENTROPY or value in passwords)
                and not _CODE_REFERENCE.fullmatch(value)
                and _looks_random(value)
            ):
                values.setdefault(value, "secret-assignment")


def _entropy(value: str) -> float:
    counts = Counter(value)
    length = len(value)
    return -sum(n / length * math.log2(n / length) for n in counts.values())


class Redactor:
    """Replaces credentials and literal strings with markers, counting them by kind.

    With ``report_only``, the credentials it detects are counted in :attr:`found` and left as written (the
    literal strings are still replaced): an export without redaction can say what it wrote unredacted.

    Attributes:
        detect: run the credential detectors (False: only the literal strings are replaced).
        literals: strings to replace wherever they occur, as kind ``literal``.
        report_only: detected credentials are counted, not replaced.
        counts: kind -> how many occurrences were replaced so far.
        found: kind -> how many credentials were found and left as written (``report_only``).
    """

    def __init__(
        self, detect: bool = True, literals: Iterable[str] = (), *, report_only: bool = False
    ) -> None:
        self.detect = detect
        # Longest first, so a literal that contains another is replaced whole.
        self.literals = sorted({s for s in literals if s}, key=len, reverse=True)
        self.report_only = report_only
        self.counts: Counter[str] = Counter()
        self.found: Counter[str] = Counter()

    def replaced(
        self, spans: list[tuple[int, int, str]], shown: int | None = None
    ) -> list[tuple[int, int, str]]:
        """The spans of :meth:`find` to replace: all of them, or with ``report_only`` the literal ones.

        With ``report_only`` the credentials are counted in :attr:`found` (those starting before ``shown``,
        the characters kept of a text that is cut) and left out.
        """
        if not self.report_only:
            return spans
        self.found.update(
            kind for start, _end, kind in spans if kind != LITERAL and (shown is None or start < shown)
        )
        return [span for span in spans if span[2] == LITERAL]

    @property
    def total(self) -> int:
        """How many replacements were made, of every kind."""
        return sum(self.counts.values())

    def summary(self) -> str:
        """The counts as one line: ``3 github-token, 1 private-key`` (``nothing found`` when none)."""
        if not self.counts:
            return "nothing found"
        return ", ".join(
            f"{n} {kind}" for kind, n in sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0]))
        )

    def find(self, text: str, values: dict[str, str] | None = None) -> list[tuple[int, int, str]]:
        """The spans to replace in ``text``: sorted, non-overlapping ``(start, end, kind)``.

        Args:
            text: any string.
            values: secret value -> kind, found beforehand (see :meth:`value`); detected in ``text``
                when None.
        """
        found: list[tuple[int, int, str]] = []
        for literal in self.literals:
            start = text.find(literal)
            while start != -1:
                found.append((start, start + len(literal), LITERAL))
                start = text.find(literal, start + len(literal))
        if values is None:
            values = self._values(text) if self.detect and len(text) >= _MIN_SCANNED else {}
        for value, kind in values.items():
            tail = _JWT_TAIL if kind == "jwt" else _TOKEN_TAIL if kind in _OPEN_ENDED else None
            inner = 1 if kind == "url-password" else 0  # ":password@": the delimiters stay
            start = text.find(value)
            while start != -1:
                end = start + len(value)
                if tail is not None and (longer := tail.match(text, end)) is not None:
                    end = longer.end()
                found.append((start + inner, end - inner, kind))
                start = text.find(value, end)
        if not found:
            return []
        found.sort(key=lambda s: (s[0], -(s[1] - s[0]), _PRIORITY.get(s[2], 5)))
        kept: list[tuple[int, int, str]] = []
        end = -1
        for span in found:
            if span[0] >= end:
                kept.append(span)
                end = span[1]
        return kept

    def _values(self, text: str) -> dict[str, str]:
        """Every secret found in ``text``: value -> kind (the first detector to find it names it)."""
        plugins, extras, keyword_detector, regex_maps = _detectors()
        values: dict[str, str] = {}
        if "PRIVATE KEY" in text or "PuTTY-User-Key-File" in text:
            _add_private_keys(text, values)
        for kind, plugin in plugins:
            for value in plugin.analyze_string(text):
                if isinstance(value, str) and len(value) >= 6:
                    values.setdefault(value, kind)
        _add_pattern_matches(text, extras, values)
        if "://" in text:
            _add_url_passwords(text, values)
        add_context_secrets(text, values)
        _add_assigned_secrets(text, keyword_detector, regex_maps, values)
        for finding in gitleaks_rules.find(text):
            # gitleaks' generic rule takes any value of a keyed assignment: a member access is code.
            if not (finding.rule.startswith("generic") and _CODE_REFERENCE.fullmatch(finding.secret)):
                values.setdefault(finding.secret, finding.rule)
        return values

    def text(self, text: str, values: dict[str, str] | None = None) -> str:
        """``text`` with every finding replaced by its marker; the counts grow by what was replaced.

        Args:
            text: any string.
            values: secrets found beforehand (value -> kind); detected in ``text`` when None.
        """
        if not text:
            return text
        # Replacing one secret can bring out another: a JWT at the end of ``password=...`` hid the
        # password from the keyword detector, which saw one long token. The text is scanned again after a
        # replacement until nothing more is found (found by the export fuzzer; at most a few passes, and
        # only for the rare strings that held a secret).
        # Reporting leaves the credentials in place: a second pass would only count them again.
        for _pass in range(1 if values is not None or self.report_only else _MAX_PASSES):
            spans = self.replaced(self.find(text, values))
            if not spans:
                break
            out = []
            last = 0
            for start, end, kind in spans:
                out.append(text[last:start])
                out.append(marker(kind))
                self.counts[kind] += 1
                last = end
            out.append(text[last:])
            text = "".join(out)
        return text

    @overload
    def value(self, value: str) -> str: ...
    @overload
    def value(self, value: dict[str, object]) -> dict[str, object]: ...
    @overload
    def value(self, value: object) -> object: ...
    def value(self, value: object) -> object:
        """A copy of a JSON value with every string redacted (image data and keys left alone).

        Iterative, so a deeply nested value cannot exhaust the stack.
        """
        if isinstance(value, str):
            return self.text(value)
        if not isinstance(value, dict | list):
            return value
        # Detection runs once over all the strings joined by newlines: thirty-odd patterns called on
        # each of a message's many small strings cost far more than one pass over their text.
        strings = _strings(value)
        joined = "\n".join(strings)
        values = self._values(joined) if self.detect and len(joined) >= _MIN_SCANNED else {}
        if not values and not any(literal in joined for literal in self.literals):
            return value  # nothing to replace: the value itself, not a copy
        root: list[object] = [None]
        # (value to copy, the dict or list its copy goes into, its key or index there): the container
        # and key are typed loosely, they always match by construction.
        stack: list[tuple[object, Any, Any]] = [(value, root, 0)]
        while stack:
            source, target, key = stack.pop()
            if isinstance(source, str):
                target[key] = self.text(source, values)
            elif isinstance(source, dict):
                copy: dict[str, object] = {}
                target[key] = copy
                is_image = is_image_block(source)
                for k, v in source.items():
                    if is_image and k == "data":
                        copy[k] = v
                    elif isinstance(v, dict | list | str):
                        copy[k] = None
                        stack.append((v, copy, k))
                    else:
                        copy[k] = v
            elif isinstance(source, list):
                items: list[object] = [None] * len(source)
                target[key] = items
                for i, v in enumerate(source):
                    if isinstance(v, dict | list | str):
                        stack.append((v, items, i))
                    else:
                        items[i] = v
            else:
                target[key] = source
        return root[0]


def _strings(value: object) -> list[str]:
    """Every string inside a JSON value except image data, iteratively."""
    found: list[str] = []
    stack: list[object] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            is_image = is_image_block(item)
            stack.extend(v for k, v in item.items() if not (is_image and k == "data"))
        elif isinstance(item, list):
            stack.extend(item)
    return found
