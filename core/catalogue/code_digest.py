"""A digest of the code of some packages, that two processes running the same code agree on.

:mod:`core.catalogue.snapshots` stamps each snapshot with the digest of the code that makes a session's
index and tree structure, so a snapshot written by other code is never read back.
"""

from __future__ import annotations

import hashlib
import importlib
import pkgutil
from collections.abc import Iterator, Sequence
from types import CodeType

__all__ = ["code_fingerprint"]


def code_fingerprint(packages: Sequence[str]) -> str:
    """A digest of the bytecode of every module of ``packages`` (their functions and methods, by name).

    What a cache wrote with other code (another version of the app, or a development tree edited since)
    may hold state the code reading it no longer means: a snapshot records the digest of the code that
    made its index, and any change to those modules makes every snapshot stale. Computed from the code
    objects' own parts, since ``marshal`` output varies between processes (it marks objects by reference
    count) and set constants by string hash seed.
    """
    digest = hashlib.sha256()
    for package in packages:
        top = importlib.import_module(package)
        names = sorted(info.name for info in pkgutil.iter_modules(top.__path__))
        for name in [package, *(f"{package}.{name}" for name in names)]:
            digest.update(name.encode())
            module = importlib.import_module(name)
            for value in _definitions(vars(module), name):
                _digest_code(digest, value)
    return digest.hexdigest()[:32]


def _definitions(namespace: dict[str, object], module: str) -> Iterator[CodeType]:
    """The code of the functions and methods defined in ``namespace`` (a module's), by name."""
    for key in sorted(namespace):
        value = namespace[key]
        if getattr(value, "__module__", None) != module:
            continue
        if isinstance(value, type):
            yield from _definitions(dict(vars(value)), module)
        code = getattr(value, "__code__", None)
        if isinstance(code, CodeType):
            yield code


def _digest_code(digest: hashlib._Hash, code: CodeType) -> None:
    stack = [code]
    while stack:  # nested functions and comprehensions are constants of their outer code
        current = stack.pop()
        digest.update(current.co_code)
        digest.update(repr((current.co_names, current.co_varnames)).encode())
        for const in current.co_consts:
            if isinstance(const, CodeType):
                stack.append(const)
            elif isinstance(const, frozenset):
                digest.update(repr(sorted(map(repr, const))).encode())
            else:
                digest.update(repr(const).encode())
