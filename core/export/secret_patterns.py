"""The credential shapes redaction looks for that detect-secrets lacks or returns cut short.

One table, each row with the source that documents the shape; :mod:`core.export.redact` compiles them
on first use and says why each is there.
"""

from __future__ import annotations

from typing import NamedTuple


class SecretPattern(NamedTuple):
    """A credential shape the library lacks: its kind, its regex, where the shape is documented.

    ``lead`` (``lead_width`` characters) is the part of the credential before the regex's literal
    start, checked in code: a regex that starts with a literal keeps the regex engine's fast prefix
    scan (a leading character class made one pattern 35 times slower).
    """

    kind: str
    regex: str
    source: str
    lead: str = ""
    lead_width: int = 0


# Patterns start with a literal prefix and no ``\b``, which keeps the regex engine's fast prefix scan;
# the word boundary before a match is checked in code (``_at_word_start`` in :mod:`core.export.redact`).
PATTERNS: tuple[SecretPattern, ...] = (
    SecretPattern(
        "anthropic-key",
        r"sk-ant-(?:api|admin|oat|sid)?[0-9]{0,2}-?[A-Za-z0-9_\-]{20,}",
        "Anthropic API docs, keys: sk-ant-api03-..., sk-ant-admin01-...",
    ),
    SecretPattern("openrouter-key", r"sk-or-v1-[A-Za-z0-9]{32,}", "OpenRouter docs, API keys"),
    SecretPattern(
        "openai-key",
        r"sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_\-]{20,}",
        "OpenAI platform docs, project and service-account keys",
    ),
    SecretPattern(
        "openai-key", r"sk-[A-Za-z0-9]{32,}(?![A-Za-z0-9_\-])", "OpenAI legacy user keys (sk- + 48)"
    ),
    SecretPattern(
        "google-api-key", r"AIza[0-9A-Za-z_\-]{35}", "Google Cloud docs, API keys; gitleaks gcp-api-key"
    ),
    SecretPattern("huggingface-token", r"hf_[A-Za-z0-9]{30,}", "Hugging Face docs, user access tokens"),
    SecretPattern(
        "huggingface-token", r"api_org_[A-Za-z]{34}", "gitleaks huggingface-organization-api-token"
    ),
    SecretPattern("groq-key", r"gsk_[A-Za-z0-9]{40,}", "Groq console API keys; gitleaks"),
    SecretPattern("xai-key", r"xai-[A-Za-z0-9]{40,}", "xAI console API keys"),
    SecretPattern(
        "perplexity-key", r"pplx-[A-Za-z0-9]{40,}", "Perplexity API docs; gitleaks perplexity-api-key"
    ),
    SecretPattern("replicate-token", r"r8_[A-Za-z0-9]{30,}", "Replicate docs, API tokens"),
    SecretPattern(
        "github-token", r"github_pat_[A-Za-z0-9_]{22,}", "GitHub docs, fine-grained personal access tokens"
    ),
    SecretPattern(
        "github-token", r"gh[pousr]_[A-Za-z0-9]{30,}", "GitHub docs, token prefixes (ghp_ gho_ ...)"
    ),
    SecretPattern(
        "gitlab-token",
        r"gl(?:pat|oas|dt|rt|rtr|cbt|ptt|ft|imt|agent|soat|ffct|wt)-[A-Za-z0-9_\-]{20,}(?:\.[A-Za-z0-9_\-]+)*",
        "GitLab docs, token prefixes (security/tokens); gitleaks gitlab-* rules",
    ),
    SecretPattern("gitlab-token", r"GR1348941[A-Za-z0-9_\-]{20,}", "GitLab docs, runner registration tokens"),
    SecretPattern("npm-token", r"npm_[A-Za-z0-9]{36}", "npm docs, access tokens; gitleaks npm-access-token"),
    SecretPattern("stripe-key", r"sk_(?:live|test)_[0-9A-Za-z]{24,}", "Stripe docs, API keys (secret keys)"),
    SecretPattern("stripe-key", r"rk_(?:live|test)_[0-9A-Za-z]{24,}", "Stripe docs, restricted API keys"),
    SecretPattern(
        "slack-token", r"xapp-\d-[A-Za-z0-9]+-\d+-[A-Za-z0-9]+", "Slack docs, app-level tokens; gitleaks"
    ),
    SecretPattern("slack-token", r"xoxe-\d-[A-Za-z0-9]{20,}", "Slack docs, token rotation refresh tokens"),
    # Shapes gitleaks' default rules (core/export/rules/gitleaks.toml) lack, or find only next to a keyword.
    SecretPattern(
        "vault-token",
        r"hv[sb]\.[A-Za-z0-9_\-]{90,300}",
        "HashiCorp Vault docs, service and batch tokens (hvs., hvb.); gitleaks' rule lets one in fifty"
        " through (its allowlist s\\.[A-Za-z]{24} is unanchored: 24 letters after hvs. allow it)",
    ),
    SecretPattern(
        "discord-webhook",
        r"discord(?:app)?\.com/api/webhooks/\d{17,20}/[A-Za-z0-9_\-]{60,}",
        "Discord developer docs, webhook URLs (https://discord.com/api/webhooks/ID/TOKEN)",
    ),
    SecretPattern(
        "google-oauth-token", r"ya29\.[0-9A-Za-z_\-]{20,}", "Google OAuth 2.0 docs, access tokens (ya29.)"
    ),
    SecretPattern("docker-hub-token", r"dckr_(?:pat|oat)_[A-Za-z0-9_\-]{27,}", "Docker docs, access tokens"),
    SecretPattern(
        "notion-token", r"secret_[A-Za-z0-9]{43}(?![A-Za-z0-9])", "Notion docs, internal integration secrets"
    ),
    SecretPattern("langsmith-key", r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}", "LangSmith docs, API keys"),
    SecretPattern("mailgun-key", r"key-[a-f0-9]{32}(?![A-Za-z0-9])", "Mailgun docs, private API keys (key-)"),
    SecretPattern(
        "azure-client-secret",
        r"Q~[A-Za-z0-9_~.\-]{31,34}(?![A-Za-z0-9_~.\-])",
        "Microsoft Entra (Azure AD) client secrets; gitleaks azure-ad-client-secret",
        lead=r"[A-Za-z0-9_~.]{3}\d",
        lead_width=4,
    ),
)
