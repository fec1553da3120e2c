"""48 credential shapes as they turn up in coding sessions, random values in the services' public formats.

Each shape is a context (a curl or HTTP header, a header set in Go, JavaScript or Python, an environment
assignment, a config line, a command-line flag, a URL, a bare token in prose or code) and a generator of
fake values in the format the service documents: random, never real keys. Used by
``tests/core/test_redaction_shapes.py`` (none may survive an export) and by
``benchmarks/redaction_recall.py`` (how many survive, before and after a change).
"""

from __future__ import annotations

import base64
import random
import string
from collections.abc import Callable
from typing import NamedTuple

ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "_-"
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
WORDS = ["hunter", "dragon", "summer", "monkey", "sunshine", "winter", "orange", "falcon", "harbor", "maple"]


class Shape(NamedTuple):
    """A credential in its context: ``make(rng)`` gives the text and the secret in it."""

    name: str
    make: Callable[[random.Random], tuple[str, str]]


def _s(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _random_token(rng: random.Random, n: int = 40, alphabet: str = ALNUM) -> str:
    """A random token with letters and digits both (what a generated credential has)."""
    while True:
        token = _s(rng, alphabet, n)
        if any(c.isdigit() for c in token) and any(c.isalpha() for c in token):
            return token


def _basic(rng: random.Random) -> str:
    user = rng.choice(["admin", "deploy", "ci-bot", "api", "svc-reports"])
    password = _random_token(rng, rng.randrange(12, 24), ALNUM + "!#%*")
    return base64.b64encode(f"{user}:{password}".encode()).decode()


def _human_password(rng: random.Random) -> str:
    """A password a person picks: words and digits (low entropy, still a secret)."""
    word = rng.choice(WORDS)
    digits = str(rng.randrange(1, 9999))
    return rng.choice([word + digits + word, word.capitalize() + digits + "!", word + digits])


def _shape(name: str, template: str, secret: Callable[[random.Random], str]) -> Shape:
    def make(rng: random.Random) -> tuple[str, str]:
        value = secret(rng)
        return template.format(s=value, n=rng.randrange(100, 999)), value

    return Shape(name, make)


def _prose(name: str, secret: Callable[[random.Random], str]) -> Shape:
    """A provider's token where no keyword names it: in prose, as a call's argument, or under a plain key."""

    def make(rng: random.Random) -> tuple[str, str]:
        value = secret(rng)
        forms = [
            f"I rotated it, the new one is {value} (expires in 90 days)",
            f'client = Client("{value}")',
            f"  value: {value}",
            f"echo '{value}' | pbcopy",
        ]
        return rng.choice(forms), value

    return Shape(name, make)


# The provider formats (documented prefixes and lengths).
def _vault(r: random.Random) -> str:
    return "hvs.CAESI" + _s(r, URLSAFE, 86)


def _google_oauth(r: random.Random) -> str:
    return "ya29.a0" + _s(r, URLSAFE, 150)


def _grafana(r: random.Random) -> str:
    return r.choice(["glsa_" + _s(r, ALNUM, 32) + "_" + _s(r, HEX, 8), "glc_" + _s(r, B64, 120) + "=="])


def _notion(r: random.Random) -> str:
    return r.choice(["ntn_" + _s(r, string.digits, 11) + _s(r, ALNUM, 35), "secret_" + _random_token(r, 43)])


def _atlassian(r: random.Random) -> str:
    return "ATATT3xFfGF0" + _s(r, URLSAFE, 171) + "=" + _s(r, HEX.upper(), 8)  # 192 characters


def _one_password(r: random.Random) -> str:
    payload = base64.b64encode(
        b'{"signInAddress":"my.1password.com","userAuth":{"method":"SRPg-4096","alg":"PBES2g-HS256","iterations":650000,"salt":"'
        + r.randbytes(16).hex().encode()
        + b'"},"email":"'
        + _s(r, string.ascii_lowercase, 12).encode()
        + b'@1passwordserviceaccounts.com","srpX":"'
        + r.randbytes(32).hex().encode()
        + b'"}'
    ).decode()
    return "ops_" + payload


SHAPES: tuple[Shape, ...] = (
    # Authorization headers in curl, raw HTTP, Go, JavaScript and Python.
    _shape(
        "curl-bearer",
        'curl -s -H "Authorization: Bearer {s}" https://api.example.com/v1/items',
        _random_token,
    ),
    _shape("curl-basic", "curl -H 'Authorization: Basic {s}' https://ci.example.com/api/json", _basic),
    _shape(
        "http-bearer",
        "GET /v2/me HTTP/1.1\nHost: api.example.com\nAuthorization: Bearer {s}\n",
        _random_token,
    ),
    _shape("go-bearer", 'req.Header.Set("Authorization", "Bearer {s}")', _random_token),
    _shape("go-basic", '\treq.Header.Add("Authorization", "Basic {s}")', _basic),
    _shape("js-bearer", "fetch(url, {{ headers: {{ Authorization: 'Bearer {s}' }} }})", _random_token),
    _shape("js-basic", '  headers: {{ "Authorization": "Basic {s}" }},', _basic),
    _shape("python-bearer", 'headers = {{"Authorization": "Bearer {s}"}}', _random_token),
    _shape("python-basic", "requests.get(url, headers={{'Authorization': 'Basic {s}'}})", _basic),
    # API-key headers.
    _shape(
        "curl-x-api-key",
        'curl https://api.example.com/v1/search -H "x-api-key: {s}"',
        lambda r: _s(r, HEX, 32),
    ),
    _shape("python-x-api-key", 'session.headers["X-API-Key"] = "{s}"', _random_token),
    _shape(
        "curl-private-token",
        "curl --header 'PRIVATE-TOKEN: {s}' https://git.example.com/api/v4/user",
        _random_token,
    ),
    # Environment assignments whose name says key or token, with high-entropy values.
    _shape("env-azure-openai-key", "AZURE_OPENAI_KEY={s}", lambda r: _s(r, HEX, 32)),
    _shape("env-sentry-key", "export SENTRY_KEY={s}", lambda r: _s(r, HEX, 32)),
    _shape("env-license-key", "NEW_RELIC_LICENSE_KEY={s}", lambda r: _s(r, HEX, 40)),
    _shape("env-maxmind-license-key", "MAXMIND_LICENSE_KEY='{s}'", lambda r: _random_token(r, 16)),
    _shape("env-vault-token-suffix", "export VAULT_TOKEN_PROD={s}", lambda r: _random_token(r, 28)),
    _shape("env-webhook-secret", "STRIPE_WEBHOOK_SECRET=whsec_{s}", lambda r: _random_token(r, 32)),
    _shape(
        "dotenv-private-key-value", "APP_KEY=base64:{s}", lambda r: base64.b64encode(r.randbytes(32)).decode()
    ),
    # Config files.
    _shape("compose-password", "      - POSTGRES_PASSWORD={s}", _random_token),
    _shape("ini-password", "[database]\nhost = db.internal\npassword = {s}\n", _human_password),
    _shape("human-password", "password={s}", lambda r: r.choice(["hunter2hunter2", _human_password(r)])),
    # Command-line flags.
    _shape("mysql-p", "mysql -u root -p{s} -h 127.0.0.1 shop", _human_password),
    _shape("mysqldump-password", "mysqldump --user=app --password={s} shop > shop.sql", _random_token),
    _shape("docker-login-p", "docker login -u deploy -p {s} registry.example.com", _random_token),
    _shape("redis-cli-a", "redis-cli -h cache.internal -a {s} ping", _random_token),
    _shape("sshpass-p", "sshpass -p '{s}' ssh deploy@10.0.0.{n}", _human_password),
    _shape("cli-api-key-flag", "wandb-cli sync --api-key {s} ./runs", lambda r: _s(r, HEX, 40)),
    _shape("cli-token-flag", "./deploy.sh --token={s} --env staging", _random_token),
    # URLs.
    _shape(
        "discord-webhook",
        "curl -X POST https://discord.com/api/webhooks/{s} -d @msg.json",
        lambda r: f"{r.randrange(10**17, 10**19)}/{_s(r, URLSAFE, 68)}",
    ),
    _shape(
        "ghp-after-percent-3d",
        "https://ci.example.com/login?next=%2Fsettings%3Ftoken%3D{s}",
        lambda r: "ghp_" + _s(r, ALNUM, 36),
    ),
    _shape(
        "url-access-token", "GET https://graph.example.com/v1/me?fields=id&access_token={s}", _random_token
    ),
    # Provider tokens where no keyword names them.
    _prose("vault-hvs", _vault),
    _prose("google-oauth-ya29", _google_oauth),
    _prose("digitalocean", lambda r: r.choice(["dop_v1_", "doo_v1_"]) + _s(r, HEX, 64)),
    _prose("databricks", lambda r: "dapi" + _s(r, HEX, 32)),
    _prose("shopify", lambda r: r.choice(["shpat_", "shpss_", "shpca_"]) + _s(r, HEX, 32)),
    _prose("grafana", _grafana),
    _prose("docker-hub", lambda r: "dckr_pat_" + _s(r, URLSAFE, 27)),
    _prose("linear", lambda r: "lin_api_" + _s(r, ALNUM, 40)),
    _prose("sourcegraph", lambda r: "sgp_" + _s(r, HEX, 16) + "_" + _s(r, HEX, 40)),
    _prose("notion", _notion),
    _prose("langsmith", lambda r: r.choice(["lsv2_pt_", "lsv2_sk_"]) + _s(r, HEX, 32) + "_" + _s(r, HEX, 10)),
    _prose("planetscale", lambda r: r.choice(["pscale_tkn_", "pscale_pw_"]) + _s(r, URLSAFE, 43)),
    _prose("mailgun", lambda r: "key-" + _s(r, HEX, 32)),
    _prose("pulumi", lambda r: "pul-" + _s(r, HEX, 40)),
    _prose("1password", _one_password),
    _prose("atlassian", _atlassian),
)
