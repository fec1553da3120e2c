"""gitleaks' default rule set, run as gitleaks runs it: the credentials of some 200 services.

The rules are gitleaks' own file (``core/export/rules/gitleaks.toml``, MIT-licensed, its licence beside
it), shipped unchanged: to update them, copy ``config/gitleaks.toml`` of a newer gitleaks over it. They
are written for Go's regular expressions, which are RE2's, so they run on Google's RE2 (``google-re2``)
exactly as written; RE2 also matches in linear time, so no text in a session can make a rule backtrack.

What a rule finds follows gitleaks' ``detectRule``: a rule runs only on text holding one of its keywords
(case-insensitive; one pass of an RE2 set finds which); the secret is its ``secretGroup``, or else its
first non-empty group, or else the whole match; a secret whose Shannon entropy is at or below the rule's
``entropy`` is dropped, and so is one that the global or the rule's allowlists allow (regexes on the
secret, the match or the line; stop words in the secret; ``AND`` allowlists need every part to hold).
Left out, because an exported session has no file path or commit: rules that need a path, allowlists'
paths and commits (an ``AND`` allowlist with a path never holds), and the ``gitleaks:allow`` comment (a
line the author chose to keep in a repository is still redacted from a shared export). gitleaks' decoding
passes (base64, hex, percent-encoding) are left out too: what is redacted must be the text as exported.
"""

from __future__ import annotations

import math
import tomllib
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

__all__ = ["Finding", "find", "rule_ids"]

# RE2 compiles each pattern into at most this many bytes of program; gitleaks' largest rule (the generic
# key's allowlist) needs far less than RE2's 8 MiB default, which is what we keep.
_RULES_FILE = "export/rules/gitleaks.toml"


@dataclass(frozen=True, slots=True)
class Finding:
    """One secret a rule found: the rule's id and the secret's text."""

    rule: str
    secret: str


@dataclass(frozen=True, slots=True)
class _Allowlist:
    target: str  # "secret", "match" or "line"
    regexes: tuple[Any, ...]  # compiled RE2 patterns
    stopwords: tuple[str, ...]  # lower case
    every_part: bool  # condition AND
    needs_path: bool  # has paths or commits, which an export never matches


@dataclass(frozen=True, slots=True)
class _Rule:
    id: str
    regex: Any  # a compiled RE2 pattern
    secret_group: int
    entropy: float
    keywords: tuple[str, ...]
    allowlists: tuple[_Allowlist, ...]


@dataclass(frozen=True, slots=True)
class _RuleSet:
    rules: tuple[_Rule, ...]
    allowlists: tuple[_Allowlist, ...]
    keywords: tuple[str, ...]  # every rule's keywords, lower case, in the order of the keyword set
    keyword_set: Any  # an RE2 set of the keywords: which of them a text holds, in one pass
    by_keyword: tuple[tuple[int, ...], ...]  # for each keyword, the rules (by index) that it starts
    always: tuple[int, ...]  # the rules without keywords, which run on every text


def _compile(pattern: str) -> Any:
    import re2

    return re2.compile(pattern)


def _allowlist(spec: dict[str, Any]) -> _Allowlist:
    return _Allowlist(
        target=str(spec.get("regexTarget", "secret")),
        regexes=tuple(_compile(p) for p in spec.get("regexes", ())),
        stopwords=tuple(str(w).lower() for w in spec.get("stopwords", ())),
        every_part=str(spec.get("condition", "OR")).upper() == "AND",
        needs_path=bool(spec.get("paths") or spec.get("commits")),
    )


@lru_cache(maxsize=1)
def _rule_set() -> _RuleSet:
    """The rules of the shipped file, compiled (on first use: about 0.2 s)."""
    import re2

    text = (resources.files("core") / _RULES_FILE).read_text("utf-8")
    config = tomllib.loads(text)
    globals_ = [config["allowlist"]] if "allowlist" in config else []
    globals_ += config.get("allowlists", [])
    rules = []
    for spec in config.get("rules", []):
        if "regex" not in spec or "path" in spec:
            continue  # a rule on file names, or one that needs the file's name to match: no file here
        rules.append(
            _Rule(
                id=str(spec["id"]),
                regex=_compile(spec["regex"]),
                secret_group=int(spec.get("secretGroup", 0)),
                entropy=float(spec.get("entropy", 0.0)),
                keywords=tuple(str(k).lower() for k in spec.get("keywords", ())),
                allowlists=tuple(_allowlist(a) for a in spec.get("allowlists", [])),
            )
        )
    # Specific rules first: a secret that a service's rule and the generic rule both find is named by the
    # service's (gitleaks keeps the specific finding too).
    rules.sort(key=lambda rule: rule.id.startswith("generic"))
    keywords = sorted({k for rule in rules for k in rule.keywords})
    options = re2.Options()
    options.case_sensitive = False
    keyword_set = re2.Set.SearchSet(options)
    for keyword in keywords:
        keyword_set.Add(re2.escape(keyword))
    keyword_set.Compile()
    return _RuleSet(
        rules=tuple(rules),
        allowlists=tuple(_allowlist(a) for a in globals_),
        keywords=tuple(keywords),
        keyword_set=keyword_set,
        by_keyword=tuple(tuple(i for i, rule in enumerate(rules) if k in rule.keywords) for k in keywords),
        always=tuple(i for i, rule in enumerate(rules) if not rule.keywords),
    )


def rule_ids() -> tuple[str, ...]:
    """The ids of the rules that run on exported text (the kinds their findings are redacted as)."""
    return tuple(rule.id for rule in _rule_set().rules)


def _entropy(value: str) -> float:
    """Shannon entropy in bits per character, as gitleaks computes it (over bytes' length in Go)."""
    if not value:
        return 0.0
    length = len(value.encode("utf-8", "surrogatepass"))
    return -sum(n / length * math.log2(n / length) for n in Counter(value).values())


def _allowed(allowlists: tuple[_Allowlist, ...], secret: str, match: str, line: str) -> bool:
    for allow in allowlists:
        target = match if allow.target == "match" else line if allow.target == "line" else secret
        by_regex = bool(secret) and any(regex.search(target) for regex in allow.regexes)
        lowered = secret.lower()
        by_stopword = any(word in lowered for word in allow.stopwords)
        if allow.every_part:
            checks = [not allow.needs_path] if allow.needs_path else []
            if allow.regexes:
                checks.append(by_regex)
            if allow.stopwords:
                checks.append(by_stopword)
            if checks and all(checks):
                return True
        elif by_regex or by_stopword:
            return True
    return False


def _line_around(data: bytes, start: int, end: int) -> str:
    first = data.rfind(b"\n", 0, start) + 1
    last = data.find(b"\n", max(end - 1, start))
    return data[first : last if last != -1 else len(data)].decode("utf-8", "surrogatepass")


def _rule_findings(rules: _RuleSet, rule: _Rule, data: bytes) -> list[Finding]:
    found = []
    for match in rule.regex.finditer(data):
        start, end = match.span()
        whole = data[start:end].strip(b"\n")  # gitleaks trims the newlines a pattern took
        groups = match.groups()
        secret = whole
        if groups:
            if rule.secret_group > 0:
                chosen = groups[rule.secret_group - 1] if rule.secret_group <= len(groups) else None
                if chosen is None:
                    continue
                secret = chosen
            else:
                secret = next((g for g in groups if g), whole)
        text = secret.decode("utf-8", "surrogatepass")
        if not text or (rule.entropy and _entropy(text) <= rule.entropy):
            continue
        match_text = whole.decode("utf-8", "surrogatepass")
        line = _line_around(data, start, end)
        if _allowed(rules.allowlists, text, match_text, line) or _allowed(
            rule.allowlists, text, match_text, line
        ):
            continue
        found.append(Finding(rule.id, text))
    return found


def find(text: str) -> list[Finding]:
    """The secrets gitleaks' default rules find in ``text``, in rule order, then by position."""
    rules = _rule_set()
    data = text.encode("utf-8", "surrogatepass")
    chosen = set(rules.always)
    for keyword in rules.keyword_set.Match(data) or ():
        chosen.update(rules.by_keyword[keyword])
    found: list[Finding] = []
    for index in sorted(chosen):
        found.extend(_rule_findings(rules, rules.rules[index], data))
    return found
