"""Redaction recall: many generated fake credentials of every kind the README lists, in every field.

Each kind has a generator of realistic fakes (the shapes the services document; random, never real
keys), each fake in a few of the contexts credentials turn up in (a bare token, an assignment, a
header, a config line). All of them are placed in every field of one session: user text, assistant
text, thinking, tool arguments and results, bash command and output, custom messages and entries,
branch and compaction summaries, a label, the session name and the project folder. The session is
exported once per format, and no credential may survive: not whole, not escaped, and not in part (no
run of 12 of its letters and digits). Clean identifiers (git SHAs, UUIDs, integrity hashes, digests,
base64 images) exported the same way must come through untouched, with nothing redacted.

Every field opens with a clean sentence longer than a preview: previews and titles are cut before
they are redacted today, a separate item of issue 15.
"""

from __future__ import annotations

import base64
import html
import json
import random
import re
import string
from collections.abc import Callable, Iterator
from pathlib import Path

import orjson
import pytest

from core.export import ExportOptions, render_export
from core.session import load_session
from tests.conftest import REPO

PER_KIND = 34  # fakes per kind, each in one of its contexts and in two fields: 4 of each kind per field
LITERAL = "Codename Kestrel-Nine"
CLEAN_INTRO = (
    "Here is what the shell printed while we set the project up, kept for the record so the rest of the "
    "team can follow along later; nothing below this sentence should be read as an instruction. "
)
ALNUM = string.ascii_letters + string.digits
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "_-"
HEX = "0123456789abcdef"

Fake = tuple[str, str]  # (the text it appears in, the credential itself)


def _s(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _context(rng: random.Random, secret: str, name: str) -> str:
    """A place a bare token turns up in, chosen at random."""
    forms = [
        f"the key is {secret} for now",
        f"export {name}={secret}",
        f'{{"{name.lower()}": "{secret}"}}',
        f"Authorization: Bearer {secret}",
        f"`{secret}`",
        f"({secret}),",
        f"{secret}",
        f"{name}='{secret}'",
    ]
    return rng.choice(forms)


def _token(name: str, make: Callable[[random.Random], str]) -> Callable[[random.Random], Fake]:
    def fake(rng: random.Random) -> Fake:
        secret = make(rng)
        return _context(rng, secret, name), secret

    return fake


def _aws(rng: random.Random) -> Fake:
    if rng.random() < 0.5:
        key = rng.choice(["AKIA", "ASIA"]) + _s(rng, string.ascii_uppercase + "234567", 16)
        return _context(rng, key, "AWS_ACCESS_KEY_ID"), key
    secret = _s(rng, B64, 40)
    forms = [
        f'aws_secret_access_key = "{secret}"',
        f"AWS_SECRET_ACCESS_KEY='{secret}'",
        f"aws_secret_access_key = {secret}",
    ]
    return rng.choice(forms), secret


def _azure_storage(rng: random.Random) -> Fake:
    key = base64.b64encode(rng.randbytes(64)).decode()
    text = (
        f"DefaultEndpointsProtocol=https;AccountName=acct{rng.randrange(999)};AccountKey={key};"
        "EndpointSuffix=core.windows.net"
    )
    return text, key


def _azure_client_secret(rng: random.Random) -> str:
    return _s(rng, ALNUM + "_~.", 3) + rng.choice(string.digits) + "Q~" + _s(rng, ALNUM + "_~.-", 34)


def _github(rng: random.Random) -> str:
    if rng.random() < 0.3:
        return f"github_pat_{_s(rng, ALNUM, 22)}_{_s(rng, ALNUM, 59)}"
    return rng.choice(["ghp", "gho", "ghu", "ghs", "ghr"]) + "_" + _s(rng, ALNUM, 36)


def _gitlab(rng: random.Random) -> str:
    shapes = [
        lambda: "glpat-" + _s(rng, URLSAFE, 20),
        lambda: "glpat-" + _s(rng, URLSAFE, 27) + ".01." + _s(rng, HEX, 9),  # routable tokens
        lambda: "gldt-" + _s(rng, URLSAFE, 20),
        lambda: "glrt-t1_" + _s(rng, URLSAFE, 20),
        lambda: "glcbt-" + _s(rng, HEX, 2) + "_" + _s(rng, URLSAFE, 20),
        lambda: "glft-" + _s(rng, URLSAFE, 20),
        lambda: "glsoat-" + _s(rng, URLSAFE, 20),
        lambda: "glimt-" + _s(rng, ALNUM, 25),
        lambda: "glptt-" + _s(rng, HEX, 40),
        lambda: "glagent-" + _s(rng, URLSAFE, 50),
        lambda: "gloas-" + _s(rng, HEX, 64),
        lambda: "GR1348941" + _s(rng, URLSAFE, 20),
    ]
    return rng.choice(shapes)()


def _slack(rng: random.Random) -> Fake:
    digits = string.digits
    shapes = [
        lambda: f"xoxb-{_s(rng, digits, 12)}-{_s(rng, digits, 13)}-{_s(rng, ALNUM, 24)}",
        lambda: f"xoxp-{_s(rng, digits, 12)}-{_s(rng, digits, 12)}-{_s(rng, digits, 13)}-{_s(rng, HEX, 32)}",
        lambda: (
            f"xapp-1-A{_s(rng, string.ascii_uppercase + digits, 10)}-{_s(rng, digits, 13)}-{_s(rng, HEX, 64)}"
        ),
        lambda: f"xoxe-1-{_s(rng, string.ascii_uppercase + digits, 146)}",
        lambda: (
            f"https://hooks.slack.com/services/T{_s(rng, string.ascii_uppercase + digits, 10)}"
            f"/B{_s(rng, string.ascii_uppercase + digits, 10)}/{_s(rng, ALNUM, 24)}"
        ),
    ]
    secret = rng.choice(shapes)()
    return _context(rng, secret, "SLACK_TOKEN"), secret


def _stripe(rng: random.Random) -> str:
    prefix = rng.choice(["sk_live_", "rk_live_", "sk_test_", "rk_test_"])
    return prefix + ("51" + _s(rng, ALNUM, 97) if rng.random() < 0.7 else _s(rng, ALNUM, 24))


def _npm(rng: random.Random) -> Fake:
    token = "npm_" + _s(rng, ALNUM, 36)
    if rng.random() < 0.25:
        return f"//registry.npmjs.org/:_authToken={token}", token  # .npmrc, as the library knows it
    return _context(rng, token, "NPM_TOKEN"), token


def _jwt(rng: random.Random) -> str:
    def part(value: object) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")

    header = part({"alg": rng.choice(["HS256", "RS256"]), "typ": "JWT"})
    payload = part({"sub": _s(rng, ALNUM, 12), "iat": rng.randrange(1_600_000_000, 1_800_000_000)})
    return f"{header}.{payload}.{base64.urlsafe_b64encode(rng.randbytes(32)).decode().rstrip('=')}"


def _private_key(rng: random.Random) -> Fake:
    body = base64.b64encode(rng.randbytes(rng.randrange(200, 400))).decode()
    lines = "\n".join(body[i : i + 64] for i in range(0, len(body), 64))
    if rng.random() < 0.2:
        key = (
            "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: dev\nPublic-Lines: 2\n"
            f"{lines}\nPrivate-Lines: 1\n{_s(rng, B64, 64)}\nPrivate-MAC: {_s(rng, HEX, 64)}"
        )
    else:
        kind = rng.choice(["RSA PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY", "PRIVATE KEY"])
        key = f"-----BEGIN {kind}-----\n{lines}\n-----END {kind}-----"
    return f"cat ~/.ssh/id_test\n{key}\n", key


def _url_password(rng: random.Random) -> Fake:
    special = "!$&'()*+,;=~-._%:@"
    password = "".join(_s(rng, ALNUM, rng.randrange(3, 7)) + rng.choice(special) for _ in range(3))
    password += _s(rng, ALNUM, 4)
    scheme = rng.choice(["postgres", "mysql", "redis", "amqp", "https", "mongodb+srv"])
    user = rng.choice(["admin", "app", "", "deploy"])
    host = rng.choice(["db.example.com:5432", "localhost", "10.0.0.7:6379", "cluster0.example.net"])
    return f"DATABASE_URL={scheme}://{user}:{password}@{host}/app", password


def _assignment(rng: random.Random) -> Fake:
    value = _s(rng, ALNUM, rng.randrange(16, 33))
    while not (any(c.isdigit() for c in value) and any(c.isalpha() for c in value)):
        value = _s(rng, ALNUM, rng.randrange(16, 33))
    forms = [
        f"PASSWORD={value}",
        f'export API_SECRET="{value}"',
        f"db_password: '{value}'",
        f'"client_secret": "{value}"',
        f"SERVICE_TOKEN={value}",
        f'auth_key = "{value}"',
        f"secret_key: {value}",
        f'apiKey: "{value}"',
    ]
    return rng.choice(forms), value


GENERATORS: dict[str, Callable[[random.Random], Fake]] = {
    "aws-key": _aws,
    "azure-key": _azure_storage,
    "azure-client-secret": _token("AZURE_CLIENT_SECRET", _azure_client_secret),
    "github-token": _token("GITHUB_TOKEN", _github),
    "gitlab-token": _token("GITLAB_TOKEN", _gitlab),
    "slack-token": _slack,
    "stripe-key": _token("STRIPE_KEY", _stripe),
    "twilio-key": _token("TWILIO_SID", lambda r: r.choice(["AC", "SK"]) + _s(r, HEX, 32)),
    "sendgrid-key": _token("SENDGRID_KEY", lambda r: f"SG.{_s(r, URLSAFE, 22)}.{_s(r, URLSAFE, 43)}"),
    "npm-token": _npm,
    "pypi-token": _token(
        "PYPI_TOKEN", lambda r: "pypi-AgEIcHlwaS5vcmc" + _s(r, URLSAFE, r.randrange(70, 180))
    ),
    "square-token": _token("SQUARE_SECRET", lambda r: "sq0csp-" + _s(r, URLSAFE, 43)),
    "openai-key": _token(
        "OPENAI_API_KEY",
        lambda r: r.choice(
            [
                "sk-proj-" + _s(r, URLSAFE, 156),
                "sk-svcacct-" + _s(r, URLSAFE, 156),
                "sk-admin-" + _s(r, URLSAFE, 100),
                "sk-" + _s(r, ALNUM, 20) + "T3BlbkFJ" + _s(r, ALNUM, 20),
                "sk-" + _s(r, ALNUM, 48),
            ]
        ),
    ),
    "anthropic-key": _token(
        "ANTHROPIC_API_KEY",
        lambda r: r.choice(["sk-ant-api03-", "sk-ant-admin01-"]) + _s(r, URLSAFE, 93) + "AA",
    ),
    "google-api-key": _token("GOOGLE_API_KEY", lambda r: "AIza" + _s(r, URLSAFE, 35)),
    "huggingface-token": _token(
        "HF_TOKEN",
        lambda r: r.choice(
            ["hf_" + _s(r, string.ascii_letters, 34), "api_org_" + _s(r, string.ascii_letters, 34)]
        ),
    ),
    "openrouter-key": _token("OPENROUTER_API_KEY", lambda r: "sk-or-v1-" + _s(r, HEX, 64)),
    "groq-key": _token("GROQ_API_KEY", lambda r: "gsk_" + _s(r, ALNUM, 52)),
    "xai-key": _token("XAI_API_KEY", lambda r: "xai-" + _s(r, ALNUM, 80)),
    "perplexity-key": _token("PPLX_API_KEY", lambda r: "pplx-" + _s(r, ALNUM, 48)),
    "replicate-token": _token("REPLICATE_API_TOKEN", lambda r: "r8_" + _s(r, ALNUM, 37)),
    "jwt": _token("ID_TOKEN", _jwt),
    "private-key": _private_key,
    "url-password": _url_password,
    "secret-assignment": _assignment,
}


def _clean_identifiers(rng: random.Random) -> list[str]:
    """Identifiers that look random but are not secrets, in the places they usually appear."""
    found = []
    for _ in range(PER_KIND):
        sha = _s(rng, HEX, 40)
        found += [f"commit {sha}", f"git checkout {sha[:7]} && git log {sha[:12]}"]
        found.append(f'"id": "{_uuid(rng)}", "parentId": "{_uuid(rng)}"')
        digest = base64.b64encode(rng.randbytes(64)).decode()
        found.append(f'"integrity": "sha512-{digest}"')
        found.append(f"sha256-{base64.b64encode(rng.randbytes(32)).decode()}")
        found.append(f"image: ghcr.io/acme/app@sha256:{_s(rng, HEX, 64)}")
        found.append(f"![plot](data:image/png;base64,{base64.b64encode(rng.randbytes(600)).decode()})")
    return found


def _uuid(rng: random.Random) -> str:
    h = _s(rng, HEX, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def _fakes() -> dict[str, list[Fake]]:
    rng = random.Random(15)  # issue 15: the same fakes every run
    return {kind: [make(rng) for _ in range(PER_KIND)] for kind, make in GENERATORS.items()}


def _readme_kinds() -> set[str]:
    """The kinds in the README's redaction table (its first column)."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    table = text[text.index("**Redaction**") :]
    table = table[: table.index("\n\n", table.index("| kind"))]
    kinds = set()
    for row in table.splitlines():
        if row.startswith("| `"):
            kinds.update(re.findall(r"`([a-z0-9-]+)`", row.split("|")[1]))
    return kinds


FIELDS = 17  # the places _session fills


def _session(tmp_path: Path, blocks: list[str]) -> Path:
    """A session with ``blocks[i]`` (after a clean opening sentence) in its i-th field, for all 17 fields."""
    assert len(blocks) == FIELDS
    texts = iter(CLEAN_INTRO + "\n" + block for block in blocks)

    def value() -> str:
        return next(texts)

    ts = "2026-01-01T00:00:00.000Z"
    entries: list[dict[str, object]] = []

    def add(body: dict[str, object]) -> None:
        parent = entries[-1]["id"] if entries else None
        entries.append({"id": f"{len(entries) + 1:08x}", "parentId": parent, "timestamp": ts, **body})

    def message(body: dict[str, object]) -> None:
        add({"type": "message", "message": {"timestamp": 1767225600000, **body}})

    message({"role": "user", "content": value()})
    message({"role": "user", "content": [{"type": "text", "text": value()}]})
    calls = [
        {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": value()}},
        {
            "type": "toolCall",
            "id": "c2",
            "name": "write",
            "arguments": {"path": "/tmp/x", "content": value()},
        },
    ]
    message(
        {
            "role": "assistant",
            "content": [{"type": "thinking", "thinking": value()}, {"type": "text", "text": value()}, *calls],
            "provider": "anthropic",
            "model": "claude-sonnet-4-5",
            "usage": {"input": 1, "output": 1, "totalTokens": 2, "cost": {"total": 0.0}},
            "stopReason": "toolUse",
        }
    )
    for call in calls:
        message(
            {
                "role": "toolResult",
                "toolCallId": call["id"],
                "toolName": call["name"],
                "content": [{"type": "text", "text": value()}],
                "isError": False,
            }
        )
    message({"role": "bashExecution", "command": value(), "output": value(), "exitCode": 0})
    add({"type": "custom_message", "customType": "note", "content": value(), "display": True})
    add({"type": "custom", "customType": "state", "data": {"notes": value()}})
    add({"type": "branch_summary", "fromId": "00000001", "summary": value()})
    add({"type": "compaction", "summary": value(), "firstKeptEntryId": "00000001", "tokensBefore": 10})
    add({"type": "label", "targetId": "00000001", "label": value()})
    add({"type": "session_info", "name": value()})
    header = {"type": "session", "version": 3, "id": "recall", "timestamp": ts, "cwd": "/home/dev/" + value()}
    path = tmp_path / "recall.jsonl"
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in [header, *entries]))
    return path


def _exports(path: Path, options: ExportOptions) -> Iterator[tuple[str, str, dict[str, int]]]:
    """``(format, text, counts)`` of the whole tree exported as Markdown, HTML and PDF (its Markdown)."""
    session = load_session(path)
    for fmt in ("md", "html"):
        rendered = render_export(session, fmt, options, whole_tree=True)
        yield fmt, rendered.data.decode(), dict(rendered.counts)
    sources: list[str] = []

    def pdf_writer(markdown: str, _title: str) -> bytes:
        sources.append(markdown)
        return b"%PDF"

    rendered = render_export(session, "pdf", options, whole_tree=True, pdf_writer=pdf_writer)
    yield "pdf", sources[0], dict(rendered.counts)


def _forms(secret: str) -> set[str]:
    """The ways a value can appear in an export: as it is, HTML-escaped, JSON-escaped, script-safe."""
    as_json = json.dumps(secret)[1:-1]
    return {
        secret,
        html.escape(secret),
        html.escape(secret, quote=False),
        as_json,
        as_json.replace("<", "\\u003c"),
    }


def _pieces(secret: str) -> set[str]:
    """Every run of 12 letters and digits inside ``secret``: what a partly redacted credential leaves."""
    return {run[i : i + 12] for run in re.findall(r"[A-Za-z0-9]{12,}", secret) for i in range(len(run) - 11)}


def test_every_kind_the_readme_lists_has_fakes() -> None:
    # The kinds found by context or added in issue 29 have theirs in test_redaction_shapes.py, which
    # checks that the table lists exactly the kinds of both.
    assert set(GENERATORS) | {"literal"} <= _readme_kinds()


def _spread(lines: list[list[str]], copies: int = 2) -> list[str]:
    """One block per field: the j-th line of each group goes to ``copies`` fields, half the fields apart."""
    blocks: list[list[str]] = [[] for _ in range(FIELDS)]
    for group in lines:
        for j, line in enumerate(group):
            for copy in range(copies):
                blocks[(j + copy * (FIELDS // 2)) % FIELDS].append(line)
    return ["\n".join(block) for block in blocks]


def _alnum_runs(text: str) -> set[str]:
    """Every 12 letters and digits in a row in ``text`` (see :func:`_pieces`)."""
    return {run[i : i + 12] for run in re.findall(r"[A-Za-z0-9]{12,}", text) for i in range(len(run) - 11)}


Exports = tuple[dict[str, list[Fake]], list[tuple[str, str, set[str]]]]


@pytest.fixture(scope="module")
def recall(tmp_path_factory: pytest.TempPathFactory) -> Exports:
    """The fakes, and each format's export of the session holding them (text, its runs of 12)."""
    fakes = _fakes()
    blocks = _spread([[text for text, _secret in group] for group in fakes.values()])
    blocks = [f"{block}\nthe {LITERAL} rollout" for block in blocks]
    path = _session(tmp_path_factory.mktemp("recall"), blocks)
    options = ExportOptions(redact=True, literals=(LITERAL,))
    return fakes, [(fmt, text, _alnum_runs(text)) for fmt, text, _counts in _exports(path, options)]


@pytest.mark.parametrize("kind", [*GENERATORS, "literal"])
def test_no_credential_of_a_kind_survives_in_any_format(recall: Exports, kind: str) -> None:
    fakes, exports = recall
    secrets = [LITERAL] if kind == "literal" else [secret for _text, secret in fakes[kind]]
    for fmt, text, runs in exports:
        survivors = [s for s in secrets if any(form in text for form in _forms(s))]
        assert survivors == [], f"{fmt}: {len(survivors)} of {len(secrets)} {kind} survived whole"
        partial = [s for s in secrets if not _pieces(s).isdisjoint(runs)]
        assert partial == [], f"{fmt}: {len(partial)} of {len(secrets)} {kind} survived in part"


def test_clean_identifiers_are_never_redacted(tmp_path: Path) -> None:
    clean = _clean_identifiers(random.Random(16))
    path = _session(tmp_path, _spread([clean], copies=1))
    for fmt, text, counts in _exports(path, ExportOptions(redact=True)):
        assert counts == {}, fmt
        assert "[REDACTED:" not in text, fmt
        # Each comes through whole: every run of 12 of its letters and digits is there (a field may show
        # it escaped, in JSON, or with its lines joined, which changes the characters around them).
        runs = _alnum_runs(text)
        changed = [c for c in clean if not _pieces(c) <= runs]
        assert changed == [], f"{fmt}: {len(changed)} of {len(clean)} clean identifiers were changed"
