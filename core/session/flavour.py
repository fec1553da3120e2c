"""Which agent wrote a session file, and so whose reading rules give that agent's own answer.

Three agents write this format, and each builds "what the model saw" from it a little differently
(``FORMAT.md``, ``FORMAT-latest.md`` §4 and §6):

=================================================  =========  =========  ===========
rule                                               pi 0.73.1  pi 1.6.0   Prime Agent
=================================================  =========  =========  ===========
``context_edit`` replaces or drops content         no         yes        no
``compaction.systemMessage`` before the summary    no         yes        no
``system`` messages skipped in a kept range        no         yes        no
null or missing message content filled in         no         yes        no
``child_usage_attributed`` applied on load         no         no         yes
``serviceTier`` in the context                     no         no         yes
``retainedMessageCount``, ``customInstructions``   no         no         yes
on the compaction summary
=================================================  =========  =========  ===========

A file's :class:`Flavour` is the first of these that holds:

1. :attr:`Flavour.PRIME_AGENT` when the header has ``git`` or ``rlmDepth``, an entry has one of Prime
   Agent's five types (:data:`core.session.vocabulary.PRIME_AGENT_TYPES`), or the file lies in a
   ``.prime/agent`` folder (Prime Agent's ``~/.prime/agent/sessions/<id>.jsonl``). Prime Agent never
   writes pi 1.x's types, so a file with marks of both is taken for Prime Agent's.
2. :attr:`Flavour.PI_1` when the file holds something only pi 1.x writes: a ``usage`` or
   ``context_edit`` entry, a ``system`` message, or a compaction with a ``systemMessage``.
3. :attr:`Flavour.PI_0` for everything else.

So the same file gives each agent's answer where they differ only when the file is that agent's. A
file pi 1.6.0 wrote without any of its new types reads as pi 0.73.1's: there the two agree (the one
rule left, filling in missing content, concerns messages no agent writes), and every file
that existed before 1.x keeps the answer it always had. ``prime-sessions context`` prints a
``serviceTier`` for every file all the same: ``"default"`` for any file but Prime Agent's, which
alone can change it.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import PurePath

__all__ = ["Flavour", "flavour_of", "in_prime_agent_folder"]


class Flavour(StrEnum):
    """Whose rules read a file (see the module docstring for how it is decided)."""

    PI_0 = "pi-0.73"
    """pi 0.73.1 and every pi before it: the reference the samples were made with."""
    PI_1 = "pi-1.6"
    """pi 1.x (``@earendil-works/pi-coding-agent``, 1.6.0 checked)."""
    PRIME_AGENT = "prime-agent"
    """Prime Agent (``PrimeIntellect-ai/prime-agent``), the fork the spec describes."""


def in_prime_agent_folder(path: str) -> bool:
    """True when ``path`` lies inside a ``.prime/agent`` folder (Prime Agent's configuration folder).

    Any user's (``/home/ana/.prime/agent/...``) or a copy of one (``/backup/.prime/agent/...``) counts:
    only Prime Agent writes sessions there.
    """
    parts = PurePath(path).parts
    return any(parts[i] == ".prime" and parts[i + 1] == "agent" for i in range(len(parts) - 1))


def flavour_of(path: str, prime_marked: bool, pi1_marked: bool) -> Flavour:
    """The flavour of a file from what its reader noticed.

    Args:
        path: the session file.
        prime_marked: the header or an entry carries a Prime Agent mark (rule 1 of the module docstring).
        pi1_marked: an entry carries a pi 1.x mark (rule 2).
    """
    if prime_marked or in_prime_agent_folder(path):
        return Flavour.PRIME_AGENT
    if pi1_marked:
        return Flavour.PI_1
    return Flavour.PI_0
