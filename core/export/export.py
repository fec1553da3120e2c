"""Exporting a session to a file: one entry point for the CLI and the app.

:func:`render_export` renders (Markdown, HTML, or PDF through a writer the app supplies, since core
cannot use Qt) and :func:`save_export` writes the result and its images atomically. The redaction
counts come back with the rendering, so a caller can show them before anything is written.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import InvalidRequestError
from core.export.common import FORMATS, ExportOptions, ImageSink
from core.export.files import image_folder_for, write_export

if TYPE_CHECKING:
    from core.session import Session

__all__ = ["PdfWriter", "RenderedExport", "render_export", "save_export"]

PdfWriter = Callable[[str, str], bytes]
"""Turns ``(markdown, title)`` into PDF bytes (``gui.pdf_export.markdown_to_pdf``)."""


@dataclass
class RenderedExport:
    """An export rendered in memory, not yet written.

    Attributes:
        parts: the file's bytes, in pieces written in order (an HTML page is never joined whole).
        images: image files to write beside it (relative name -> bytes, in ``images.files``).
        counts: redactions made, by kind (empty when nothing was redacted).
        entries: how many entries the export covers.
        sources: the session files it was made from, which :func:`save_export` never writes over.
        found: credentials written as they are, by kind (``render_export(report_found=True)`` without
            ``redact``; empty otherwise).
    """

    parts: list[bytes]
    images: ImageSink = field(default_factory=ImageSink)
    counts: Counter[str] = field(default_factory=Counter)
    entries: int = 0
    sources: tuple[str, ...] = ()
    found: Counter[str] = field(default_factory=Counter)

    @property
    def data(self) -> bytes:
        """The file as one ``bytes`` (a copy: to write it, write :attr:`parts`)."""
        return self.parts[0] if len(self.parts) == 1 else b"".join(self.parts)


def render_export(
    session: Session,
    fmt: str,
    options: ExportOptions | None = None,
    *,
    leaf_id: str | None = None,
    whole_tree: bool = False,
    target: str | os.PathLike[str] | None = None,
    pdf_writer: PdfWriter | None = None,
    workers: int = 1,
    report_found: bool = False,
) -> RenderedExport:
    """Render a session as ``md``, ``html`` or ``pdf``.

    Args:
        session: the loaded session.
        fmt: ``"md"``, ``"html"`` or ``"pdf"``.
        options: what to include and what to redact; the defaults when None.
        leaf_id: the entry whose path is exported (the current leaf when None).
        whole_tree: every branch instead of one path.
        target: where the file will go; names the image folder when images go beside it.
        pdf_writer: needed for PDF (core has no Qt); without it PDF raises InvalidRequestError.
        workers: processes the HTML export may use (see :mod:`core.export.parallel`); more than 1
            only from a caller that runs no other thread (the command line, not the app).
        report_found: without ``options.redact``, still look for credentials and count in ``found``
            what is written as it is (the bytes are those of an export that does not look).

    Returns:
        The bytes, the images and the redaction counts.
    """
    options = options or ExportOptions()
    if fmt not in FORMATS:
        raise InvalidRequestError(f"Unknown format {fmt!r}; choose md, html or pdf.")
    folder = image_folder_for(target) if target is not None else "images"
    redactor = None
    if options.redacting or report_found:
        from core.export.redact import Redactor  # its patterns are compiled on import: only when needed

        report_only = report_found and not options.redact
        redactor = Redactor(
            detect=options.redact or report_only, literals=options.literals, report_only=report_only
        )
    if fmt == "html":
        from core.export.html import session_to_html

        page = session_to_html(
            session,
            options,
            leaf_id=leaf_id,
            whole_tree=whole_tree,
            redactor=redactor,
            image_folder=folder,
            workers=workers,
        )
        parts, images, entries = page.parts, page.images, page.entries
    else:
        from core.export.markdown import session_to_markdown

        if fmt == "pdf":
            if pdf_writer is None:
                raise InvalidRequestError(
                    "PDF export needs the app's Qt; run it from the app or prime-sessions."
                )
            # A PDF carries its images inside; files beside it would be lost.
            if options.images == "beside":
                from dataclasses import replace

                options = replace(options, images="embed")
        doc = session_to_markdown(
            session, options, leaf_id=leaf_id, whole_tree=whole_tree, redactor=redactor, image_folder=folder
        )
        if fmt == "pdf" and pdf_writer is not None:  # checked above; said again for the type checker
            title = re.sub(r"\\(.)", r"\1", doc.text.split("\n", 1)[0].lstrip("# ").strip())
            parts = [pdf_writer(doc.text, title)]
            images = ImageSink(folder)
        else:
            parts = [doc.text.encode("utf-8", "backslashreplace")]
            images = doc.images
        entries = doc.entries
    counts = Counter(redactor.counts) if redactor is not None else Counter()
    found = Counter(redactor.found) if redactor is not None else Counter()
    return RenderedExport(parts, images, counts, entries, (os.fspath(session.path),), found)


def save_export(
    rendered: RenderedExport, target: str | os.PathLike[str], *, overwrite: bool = False
) -> list[Path]:
    """Write a rendered export and its images beside ``target`` (see ``core.export.files.write_export``).

    Never over the session it was made from (``rendered.sources``), even with ``overwrite``.
    """
    return write_export(
        target, rendered.parts, rendered.images.files, overwrite=overwrite, inputs=rendered.sources
    )
