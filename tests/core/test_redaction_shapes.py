"""The 48 credential shapes of coding sessions (``credential_shapes``): none survives redaction or an export.

Also gitleaks' rule file as shipped, and what ordinary source must keep (issue 29: ``TOKENIZE = "unicode61
…"`` was redacted).
"""

from __future__ import annotations

import random
from pathlib import Path

import orjson
import pytest

from core.export import ExportOptions, gitleaks_rules, render_export
from core.export.redact import Redactor
from core.session import load_session
from tests.conftest import REPO
from tests.core.credential_shapes import SHAPES
from tests.core.test_redaction_recall import GENERATORS, _pieces, _readme_kinds

SAMPLES = 12


def _survives(secret: str, text: str) -> bool:
    return secret in text or not _pieces(secret).isdisjoint({text[i : i + 12] for i in range(len(text) - 11)})


def test_there_are_48_shapes() -> None:
    assert len(SHAPES) == 48
    assert len({shape.name for shape in SHAPES}) == 48


@pytest.mark.parametrize("shape", SHAPES, ids=[shape.name for shape in SHAPES])
def test_no_shape_survives_redaction(shape) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(f"29-{shape.name}")
    for _ in range(SAMPLES):
        text, secret = shape.make(rng)
        redacted = Redactor().text(text)
        assert not _survives(secret, redacted), f"{shape.name}: {redacted!r}"


def test_no_shape_survives_an_export(tmp_path: Path) -> None:
    rng = random.Random(29)
    fakes = [shape.make(rng) for shape in SHAPES for _ in range(2)]
    ts = "2026-01-01T00:00:00.000Z"
    lines: list[dict[str, object]] = [
        {"type": "session", "version": 3, "id": "s", "timestamp": ts, "cwd": "/w"}
    ]
    parent = None
    for i, (text, _secret) in enumerate(fakes):
        role = "user" if i % 2 else "assistant"
        content = text if role == "user" else [{"type": "text", "text": f"Ran this:\n\n```\n{text}\n```"}]
        lines.append(
            {
                "type": "message",
                "id": f"{i:08x}",
                "parentId": parent,
                "timestamp": ts,
                "message": {"role": role, "content": content, "timestamp": 1767225600000},
            }
        )
        parent = f"{i:08x}"
    path = tmp_path / "shapes.jsonl"
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    session = load_session(path)
    for fmt in ("md", "html"):
        text = render_export(session, fmt, ExportOptions(redact=True), whole_tree=True).data.decode()
        survivors = [secret for _text, secret in fakes if secret in text]
        assert survivors == [], fmt


@pytest.mark.parametrize(
    "line",
    [
        'TOKENIZE = "unicode61 remove_diacritics 2"',  # the catalogue's FTS5 tokenizer (was redacted)
        "tokenizer = AutoTokenizer.from_pretrained(model_name2)",
        'self.password = config["password"]',
        "headers = {'Authorization': f'Bearer {token}'}",
        'req.Header.Set("Authorization", "Bearer "+os.Getenv("API_TOKEN"))',
        "mysql -u root -p shop",  # -p alone: mysql prompts
        "ssh -p 2222 deploy@host && mkdir -p build/out2",
        "docker build --secret id=npmrc,src=$HOME/.npmrc .",
        "PRIMARY_KEY = 'user_id_2024_v1'",
        'export OPENAI_API_KEY="$OPENAI_API_KEY"',
        "curl -H 'x-api-key: ${API_KEY}' https://api.example.com",
        "commit 3f9a2b7c1d4e5f60718293a4b5c6d7e8f9a0b1c2",
    ],
)
def test_ordinary_source_is_left_alone(line: str) -> None:
    redactor = Redactor()
    assert redactor.text(line) == line
    assert redactor.total == 0


def test_the_catalogue_schema_keeps_its_tokenizer() -> None:
    text = (REPO / "core" / "catalogue" / "schema.py").read_text(encoding="utf-8")
    assert "[REDACTED:" not in Redactor().text(text)


def test_gitleaks_rules_ship_with_their_licence_and_all_compile() -> None:
    import tomllib

    folder = REPO / "core" / "export" / "rules"
    assert "MIT License" in (folder / "gitleaks-LICENSE").read_text(encoding="utf-8")
    config = tomllib.loads((folder / "gitleaks.toml").read_text(encoding="utf-8"))
    content_rules = [r for r in config["rules"] if "regex" in r and "path" not in r]
    assert len(content_rules) > 200
    assert set(gitleaks_rules.rule_ids()) == {r["id"] for r in content_rules}


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        # gitleaks' own true positives (cmd/generate/config/rules): a rule of each family.
        ("token: s.ZC9Ecf4M5g9o34Q6RkzGsj0z", "vault-service-token"),
        ("PULUMI_ACCESS_TOKEN=pul-683c2770662c51d960d72ec27613be7653c5cb26", "pulumi-api-token"),
        ("DO_TOKEN=dop_v1_" + "3f9a2b7c1d4e5f60" * 4, "digitalocean-pat"),
    ],
)
def test_gitleaks_rules_find_their_shapes(text: str, rule: str) -> None:
    assert rule in {finding.rule for finding in gitleaks_rules.find(text)}


def test_gitleaks_allowlists_and_entropy_hold() -> None:
    # Low entropy and the generic rule's stop words are allowed, as in gitleaks.
    assert gitleaks_rules.find("hvs." + "x" * 95) == []
    assert [
        f for f in gitleaks_rules.find('api_key = "example_value_here"') if f.rule == "generic-api-key"
    ] == []


# Examples of the kinds that no shape yields under its own name (public formats, random values).
EXAMPLES = {
    "secret-element": "<password>{AQAAABAAAAAQ9fXa7ykiBk7iz4uUMuLGL}</password>",
    "named-secret": "shutterstock token - '35rqejvHx8E83LC82j65uBHEz8VRlWSw'",
    "discord-token": "MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs",
    "telegram-token": "bot 7213808860:AAH1bjqpKKW3maRSPAxzIU-0v6xNuq2-NjM started",
    "mailchimp-key": "343ea45721923ed956e2b38c31db76aa-us30",
    "artifactory-token": "X-JFrog-Art-Api: AKCp8jQ7ab3cD4eF5gH6iJ7kL8",
}


@pytest.mark.parametrize(("kind", "text"), EXAMPLES.items())
def test_each_kind_of_the_table_is_found_as_that_kind(kind: str, text: str) -> None:
    redactor = Redactor()
    redactor.text(text)
    assert kind in redactor.counts


def test_the_readme_lists_exactly_the_kinds_redaction_names() -> None:
    rng = random.Random(29)
    found: set[str] = {"literal", *GENERATORS, *EXAMPLES}
    for shape in SHAPES:
        redactor = Redactor()
        for _ in range(4):
            redactor.text(shape.make(rng)[0])
        found.update(k for k in redactor.counts if k not in gitleaks_rules.rule_ids())
    assert _readme_kinds() == found
