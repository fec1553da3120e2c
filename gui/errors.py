"""The one place where an exception from a worker or a core call becomes the sentence a user sees.

Core's rule stays: for a :class:`core.errors.PrimeSessionsError`, ``str(err)`` is that sentence. An
``OSError`` gets the system's words and the file it concerns. Anything else is a bug: it is named as an
internal error (type and message), so a report says what broke instead of showing a bare message.
"""

from __future__ import annotations

__all__ = ["user_sentence"]


def user_sentence(error: BaseException) -> str:
    """One sentence for ``error``, ending with a full stop, never a traceback."""
    from core.errors import PrimeSessionsError

    if isinstance(error, PrimeSessionsError):
        return str(error) or f"{type(error).__name__}."
    if isinstance(error, OSError):
        reason = error.strerror or str(error) or type(error).__name__
        where = f": {error.filename}" if error.filename else ""
        return f"{reason}{where}."
    detail = f": {error}" if str(error) else ""
    return f"Internal error ({type(error).__name__}{detail})."
