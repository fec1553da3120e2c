"""Errors that reach the user. Each carries one clear sentence, never a traceback."""


class PrimeSessionsError(Exception):
    """Base class for every error the user may see; ``str(err)`` is the sentence to show."""


class SessionReadError(PrimeSessionsError):
    """A session file cannot be read at all (missing, a folder, no permission)."""


class SessionWriteError(PrimeSessionsError):
    """Writing failed (read-only folder, disk full, file vanished); nothing already on disk changed."""


class SessionChangedError(SessionWriteError):
    """The file changed underneath in a way that is not an append; the edit was refused."""


class InvalidRequestError(PrimeSessionsError):
    """The request does not make sense for this session (unknown entry id, empty path, ...)."""
