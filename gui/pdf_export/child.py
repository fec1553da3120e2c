"""The child process of a PDF export: lays out the whole export and paints its share of the pages.

It is started by :func:`gui.pdf_export.markdown_to_pdf` with ``spawn`` and talks over one pipe:

* it receives ``(markdown, title, part, parts)``;
* it sends ``("pages", count, start, stop)`` once laid out (its pages are ``start`` to ``stop``),
  ``("page", index)`` after each page painted, then ``("pdf", data)``; or ``("error", sentence)``
  (a sentence to show as it is).

Qt is imported here, in the child, never in the process that asked for the PDF (the window or the CLI).
"""

from __future__ import annotations

import os
import time
from multiprocessing.connection import Connection

__all__ = ["PAGE_SECONDS", "run"]

# For tests: seconds to pause after each page, so that an export lasts long enough to be cancelled.
PAGE_SECONDS = "PRIME_SESSIONS_PDF_PAGE_SECONDS"


def run(connection: Connection) -> None:
    """Make this process's pages of the PDF (the target of the child process)."""
    try:
        markdown, title, part, parts = connection.recv()
        _lay_out_and_paint(connection, markdown, title, part, parts)
    except (EOFError, BrokenPipeError):
        return  # the parent is gone or stopped the export
    except ImportError as err:  # a broken Qt installation: the CLI's other commands still work
        connection.send(("error", f"PDF export needs the Qt libraries, which cannot load ({err})."))
    except Exception as err:  # a sentence for the parent to show, never a traceback
        detail = " ".join(str(err).split())  # one line, whatever the message
        connection.send(("error", f"The PDF could not be made ({type(err).__name__}: {detail})."))
    finally:
        connection.close()


def _lay_out_and_paint(connection: Connection, markdown: str, title: str, part: int, parts: int) -> None:
    from core.export import markdown_to_html
    from gui.pdf_export.document import Pages

    html = markdown_to_html(markdown)
    del markdown
    pages = Pages(html, title)
    del html
    start, stop = pages.count * part // parts, pages.count * (part + 1) // parts
    connection.send(("pages", pages.count, start, stop))
    pause = float(os.environ.get(PAGE_SECONDS) or 0)

    def painted(index: int) -> None:
        connection.send(("page", index))
        if pause:
            time.sleep(pause)

    connection.send(("pdf", pages.paint(start, stop, painted)))
