"""Redaction: fake credentials in every place a session can hide them are all found and counted.

The credentials below are made up; they only have the shape of real ones.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import orjson
import pytest

from core.export import ExportOptions, render_export
from core.export.common import redacted_cut
from core.export.markdown import session_to_markdown
from core.export.redact import Redactor
from core.session import load_session
from tests.browser.hostile import PNG

FAKES: dict[str, str] = {
    "aws-key": "AKIAIOSFODNN7EXAMPLQ",
    "github-token": "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
    "slack-token": "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "anthropic-key": "sk-ant-api03-"
    + "Zq8Xw7Vu6Ts5Rq4Po3Nm2Lk1Jh0GfEdCbA9z8y7x6w5v4u3t2s1r0QpOnMlKjIhGfEdCbAzYxW-AA",
    "openai-key": "sk-proj-" + "Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7jKl0nOp3rSt6vWx9z",
    "google-api-key": "AIzaSyD-1234567890abcdefghijklmnopqrstu",
    "jwt": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    "stripe-key": "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "private-key": "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq8fakefakefake\nQ2xhc3NpZmllZA==\n"
    "-----END RSA PRIVATE KEY-----",
}
# Secrets that are only part of what they appear in: (text, the secret, kind).
EMBEDDED = [
    ("postgres://admin:S3cr3tP4ssw0rd@db.example.com:5432/app", "S3cr3tP4ssw0rd", "url-password"),
    ("redis://:p4$$w0rd!x=1&y@cache:6379/0", "p4$$w0rd!x=1&y", "url-password"),  # sub-delimiters
    ("smtp://me@example.com:p@ss:w0rd@mail.example.com", "p@ss:w0rd", "url-password"),  # raw @ and :
    ("the runner uses glrt-t1_AbCdEfGhIjKlMnOpQrSt here", "glrt-t1_AbCdEfGhIjKlMnOpQrSt", "gitlab-token"),
    ("key sk_live_51" + "Ab" * 48 + " in the log", "sk_live_51" + "Ab" * 48, "stripe-key"),  # the whole key
    ('API_SECRET="Zx9vQ2LmN8pR4tYw7KbC"', "Zx9vQ2LmN8pR4tYw7KbC", "secret-assignment"),
    (
        "export SERVICE_TOKEN=Qm9vbGVhbi1Ub2tlbi1WYWx1ZTQy",
        "Qm9vbGVhbi1Ub2tlbi1WYWx1ZTQy",
        "secret-assignment",
    ),
]
LITERAL = "Project Bluebird"
ALL = "\n".join([*FAKES.values(), *(text for text, _s, _k in EMBEDDED), f"codename {LITERAL}"])
SECRETS = [*FAKES.values(), *(secret for _t, secret, _k in EMBEDDED), LITERAL]
EXPECTED_PER_PLACE = Counter({**dict.fromkeys(FAKES, 1), "literal": 1}) + Counter(k for _t, _s, k in EMBEDDED)
HARMLESS = [
    "token = getToken()",
    'password = input("Password: ")',
    "commit 3f1c2a9e8b7d6c5f4e3d2c1b0a9f8e7d6c5b4a3f",
    "id 019cb402-3c88-737c-a54e-8f5201941e04",
    "const apiKey = process.env.API_KEY;",
    "see https://example.org/docs?page=2",
    "sk-learn is a typo of scikit-learn",
    'secret_file = "pipeline/tests/test_transform.py"',
    "token: Boundary",
    "auth = fetchProducts",
    "DATABASE_URL=postgres://app:${DB_PASSWORD}@db.example.com/app",
    "git clone https://github.com/acme/app.git && open http://localhost:8080/login",
    # Code and pins the assignment scanner once took for values (found on corpus/real):
    "const start = pwd.slice(0, Math.max(1, width));",
    "const maxTokens = Math.floor(0.8 * reserveTokens);",
    'const TOKEN_URL = "https://console.anthropic.com/v1/oauth/token";',
    " + tokenspeed-triton==3.7.10.post20260505",
    "pwd = `${start}...${end}`;",
    "token: abc123def(",  # a call: no shorter run before its "(" is a value either
]


def _session(tmp_path: Path) -> tuple[Path, int]:
    """A session with ALL in every place a credential can hide; returns its path and the place count."""
    ts = "2026-01-01T00:00:00.000Z"
    entries: list[dict] = []

    def add(body: dict) -> None:
        parent = entries[-1]["id"] if entries else None
        entries.append({"id": f"{len(entries) + 1:08x}", "parentId": parent, "timestamp": ts, **body})

    def message(body: dict) -> None:
        add({"type": "message", "message": {"timestamp": 1767225600000, **body}})

    places = 0
    message(
        {
            "role": "user",
            "content": [
                {"type": "text", "text": ALL},
                {"type": "image", "mimeType": "image/png", "data": PNG},
            ],
        }
    )
    places += 1
    calls = [
        {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": ALL}},
        {"type": "toolCall", "id": "c2", "name": "web_fetch", "arguments": {"headers": {"x": ALL}}},
    ]
    message(
        {
            "role": "assistant",
            "content": [{"type": "thinking", "thinking": ALL}, {"type": "text", "text": ALL}, *calls],
            "provider": "anthropic",
            "model": "claude-sonnet-4-5",
            "stopReason": "toolUse",
        }
    )
    places += 4  # thinking, text, bash command, JSON arguments
    for call in calls:
        message(
            {
                "role": "toolResult",
                "toolCallId": call["id"],
                "toolName": call["name"],
                "content": [{"type": "text", "text": ALL}],
            }
        )
        places += 1
    message({"role": "bashExecution", "command": ALL, "output": ALL, "exitCode": 0})
    places += 2
    add({"type": "custom_message", "customType": "note", "content": ALL, "display": True})
    places += 1
    add({"type": "branch_summary", "fromId": "00000001", "summary": ALL})
    places += 1
    header = {
        "type": "session",
        "version": 3,
        "id": "redact-test",
        "timestamp": ts,
        "cwd": "/home/dev/bluebird",
    }
    path = tmp_path / "secrets.jsonl"
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in [header, *entries]))
    return path, places


@pytest.mark.parametrize("kind", list(FAKES))
def test_each_fake_credential_is_found_as_its_kind(kind: str) -> None:
    redactor = Redactor()
    out = redactor.text(f"before {FAKES[kind]} after")
    assert out == f"before [REDACTED:{kind}] after"
    assert redactor.counts == {kind: 1}


@pytest.mark.parametrize(("text", "secret", "kind"), EMBEDDED)
def test_embedded_secrets_lose_only_the_secret(text: str, secret: str, kind: str) -> None:
    redactor = Redactor()
    out = redactor.text(text)
    assert out == text.replace(secret, f"[REDACTED:{kind}]")
    assert redactor.counts == {kind: 1}


# Ways a line holds two assignments; the export fuzzer found the second value left in place when a stray
# quote or a first value stood before it (``password=abc"password=hunter2hunter2XYZ``).
NAMES = ["password", "secret", "api_key", "token", "passwd", "client_secret", "AUTH_TOKEN", "apiKey"]
OPERATORS = ["=", ": ", '="', ': "', "='", " = ", '":"', '": "', ":=", "=>", "=="]
JOINS = [" ", "; ", ", ", "&", '"', "'", '";&', "\t", "|", "\n", '"password=']
FIRST, SECOND = "xY7kQ2mN9pL4", "hunter2hunter2XYZ"


@pytest.mark.parametrize("join", JOINS)
@pytest.mark.parametrize("operator", OPERATORS)
def test_every_assignment_on_a_line_loses_its_value(operator: str, join: str) -> None:
    for first_name, second_name in [(a, b) for a in NAMES for b in NAMES[::3]]:
        for first_operator in OPERATORS[::2]:
            text = f"{first_name}{first_operator}{FIRST}{join}{second_name}{operator}{SECOND}"
            out = Redactor().text(text)
            assert FIRST not in out and SECOND not in out, (text, out)


def test_a_value_after_a_stray_quote_is_found() -> None:
    out = Redactor().text('password=abc"password=hunter2hunter2XYZ')
    assert out == 'password=abc"password=[REDACTED:secret-assignment]'


def test_a_url_password_is_replaced_where_it_stands_only() -> None:
    redactor = Redactor()
    out = redactor.text("postgres://postgres:postgres@localhost/postgres")
    assert out == "postgres://postgres:[REDACTED:url-password]@localhost/postgres"
    assert redactor.counts == {"url-password": 1}


@pytest.mark.parametrize("text", HARMLESS)
def test_ordinary_code_and_ids_are_left_alone(text: str) -> None:
    redactor = Redactor()
    assert redactor.text(text) == text
    assert not redactor.counts


def test_literals_are_redacted_even_without_detection() -> None:
    redactor = Redactor(detect=False, literals=["Bluebird", "Project Bluebird", ""])
    assert redactor.text(f"{LITERAL} and Bluebird and {FAKES['aws-key']}") == (
        f"[REDACTED:literal] and [REDACTED:literal] and {FAKES['aws-key']}"
    )
    assert redactor.counts == {"literal": 2}


def test_value_redacts_every_string_but_image_data_and_keys() -> None:
    redactor = Redactor()
    value = {FAKES["aws-key"]: [{"type": "image", "data": FAKES["github-token"]}, {"deep": [[ALL]]}], "n": 1}
    out = redactor.value(value)
    assert list(out) == [FAKES["aws-key"], "n"]
    assert out[FAKES["aws-key"]][0]["data"] == FAKES["github-token"]
    assert FAKES["jwt"] not in str(out[FAKES["aws-key"]][1])
    assert redactor.value({"clean": "nothing here"}) == {"clean": "nothing here"}


def test_every_place_in_a_markdown_export_is_redacted_and_counted(tmp_path: Path) -> None:
    path, places = _session(tmp_path)
    session = load_session(path)
    plain = session_to_markdown(session, whole_tree=True).text
    for secret in SECRETS:
        assert secret in plain or secret.split("\n")[0] in plain  # the fixture really holds them
    rendered = render_export(session, "md", ExportOptions(redact=True, literals=(LITERAL,)), whole_tree=True)
    text = rendered.data.decode()
    for secret in SECRETS:
        for line in secret.split("\n"):
            assert line not in text, line
    expected = Counter({kind: n * places for kind, n in EXPECTED_PER_PLACE.items()})
    # The title is the start of the first user message, which holds the first few fakes too: redacted
    # whole, then cut, so a secret whose marker starts in the title counts (cut first, it leaked).
    title = Redactor(literals=[LITERAL])
    redacted_cut(" ".join(session.first_message.split()), 100, title)
    expected.update(title.counts)
    assert rendered.counts == expected
    assert text.count("[REDACTED:") == sum(expected.values())
    assert "data:image/png;base64," in text  # the image survived untouched


def test_html_and_pdf_sources_are_redacted_too(tmp_path: Path) -> None:
    path, places = _session(tmp_path)
    session = load_session(path)
    options = ExportOptions(redact=True, literals=(LITERAL,))
    html = render_export(session, "html", options, whole_tree=True)
    page = html.data.decode()
    for secret in SECRETS:
        for line in secret.split("\n"):
            assert line not in page, line
    # The sidebar previews are redacted as well, so the page counts at least what the Markdown counts.
    for kind, n in EXPECTED_PER_PLACE.items():
        assert html.counts[kind] >= n * places
    seen: list[str] = []
    render_export(
        session, "pdf", options, whole_tree=True, pdf_writer=lambda md, title: seen.append(md) or b"%PDF"
    )
    assert seen and not any(secret in seen[0] for secret in SECRETS)


def test_redaction_off_changes_nothing(tmp_path: Path) -> None:
    path, _places = _session(tmp_path)
    session = load_session(path)
    rendered = render_export(session, "md", ExportOptions(), whole_tree=True)
    assert not rendered.counts
    assert rendered.data.decode() == session_to_markdown(session, whole_tree=True).text
