"""The export dialog (Markdown, HTML, PDF) and the worker functions it runs.

What to export, what to include, images and redaction are chosen here; core renders
(:func:`core.export.render_export`) and writes (:func:`core.export.save_export`) in a worker, reading its
own copy of the session file so a live refresh of the window's session cannot interleave. The dialog
always looks for credentials: it renders in a worker after every change and says how many of each kind
the export holds, before anything is written. When it finds any, redaction is turned on, and turning it
off again takes a confirmation that names them; an export asked for before the first look has finished
waits for it. An existing file is replaced only after the user said yes to a question that names it.
"""

from __future__ import annotations

import os
import re
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from core.errors import PrimeSessionsError
from core.export import ExportOptions, check_targets
from gui.errors import user_sentence
from gui.scheduling import Priority
from gui.settings import app_settings, last_export_folder, remember_export_folder

if TYPE_CHECKING:
    from core.export import RenderedExport
    from core.session import Session
    from gui.workers import TaskContext, TaskRunner

__all__ = ["ExportDialog", "ExportRequest", "run_export"]

_FORMATS = (("md", "Markdown (.md)"), ("html", "HTML page (.html)"), ("pdf", "PDF (.pdf)"))
_IMAGES = (
    ("embed", "Embedded in the file"),
    ("beside", "As files in a folder beside it"),
    ("omit", "Left out"),
)
_PREVIEW_DELAY_MS = 300  # typing a literal does not start a render per keystroke


@dataclass(frozen=True)
class ExportRequest:
    """Everything one export needs; made on the GUI thread, used in a worker.

    Attributes:
        path: the session file.
        fmt: ``md``, ``html`` or ``pdf``.
        options: what to include and redact.
        leaf_id: the entry whose path is exported (None: the current leaf).
        whole_tree: every branch instead of one path.
        target: the file to write.
        overwrite: the user confirmed replacing ``target``.
    """

    path: str
    fmt: str
    options: ExportOptions
    leaf_id: str | None
    whole_tree: bool
    target: str
    overwrite: bool = False


class ExportCancelled(Exception):
    """The user stopped the export; nothing was written."""


def _render(
    request: ExportRequest, fmt: str, pdf_writer: Callable[[str, str], bytes] | None = None
) -> RenderedExport:
    """The session of ``request`` rendered as ``fmt`` with its options."""
    from core.export import render_export
    from core.session import load_session

    session = load_session(request.path, checksum=False, keep_bodies=True)
    return render_export(
        session,
        fmt,
        request.options,
        leaf_id=request.leaf_id,
        whole_tree=request.whole_tree,
        target=request.target,
        pdf_writer=pdf_writer,
    )


def run_export(
    request: ExportRequest,
    progress: Callable[..., None] | None = None,
    cancel: threading.Event | None = None,
) -> tuple[str, int, Counter[str]]:
    """Render and write one export (in a worker); returns the target, files written and redaction counts.

    ``progress`` gets the PDF's stages and pages (see :func:`gui.pdf_export.markdown_to_pdf`);
    ``cancel`` stops a PDF within a tenth of a second (its processes are killed), and any export before
    its file is written.

    Raises:
        ExportCancelled: ``cancel`` was set before anything was written.
    """
    from core.export import save_export

    def pdf_writer(markdown: str, title: str) -> bytes:
        # Child processes lay out and paint the PDF (gui.pdf_export): this worker thread only waits for
        # them, so no Qt runs beside the GUI thread, and cancelling kills them.
        from gui.pdf_export import PdfCancelled, markdown_to_pdf

        try:
            return markdown_to_pdf(markdown, title, progress, cancel)
        except PdfCancelled as err:
            raise ExportCancelled from err

    rendered = _render(request, request.fmt, pdf_writer)
    if cancel is not None and cancel.is_set():
        raise ExportCancelled
    written = save_export(rendered, request.target, overwrite=request.overwrite)
    return request.target, len(written), rendered.counts


def preview_counts(request: ExportRequest) -> Counter[str]:
    """What redaction would replace in the export, by kind, without writing anything (in a worker).

    Credentials are looked for whether or not the request redacts them (the dialog always says what the
    export holds); the literal strings are counted as the request gives them.
    """
    from dataclasses import replace

    looking = replace(request, options=replace(request.options, redact=True))
    # A PDF holds the Markdown's content, so the Markdown gives its counts without laying out pages.
    return _render(looking, "md" if request.fmt == "pdf" else request.fmt).counts


def _kinds(counts: Counter[str]) -> str:
    return ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def credentials(counts: Counter[str]) -> Counter[str]:
    """The credentials among redaction counts (the user's own literal strings left out)."""
    from core.export.redact import LITERAL

    return Counter({kind: n for kind, n in counts.items() if kind != LITERAL and n})


def counts_text(counts: Counter[str], redacting: bool = True) -> str:
    """What the look for credentials found, and what the export does with it, in a sentence or two.

    ``Found 3 credentials (2 github-token, 1 aws-key): each is replaced by a [REDACTED:kind] marker.``, or
    ``...: they are written as they are.`` when ``redacting`` is off; ``Found no credentials.``
    """
    from core.export.redact import LITERAL

    found = credentials(counts)
    total = sum(found.values())
    if not total:
        text = "Found no credentials."
    else:
        what = "1 credential" if total == 1 else f"{total:,} credentials"
        if redacting:
            text = f"Found {what} ({_kinds(found)}): each is replaced by a [REDACTED:kind] marker."
        else:
            text = f"Found {what} ({_kinds(found)}): {'it is' if total == 1 else 'they are'} written as is."
    literals = counts.get(LITERAL, 0)
    if literals:
        text += f" Your text to redact: {literals:,} {'place' if literals == 1 else 'places'}."
    return text


def file_stem(title: str, fallback: str, width: int = 60) -> str:
    """A file name (without extension) from a session's title: letters, digits, ``-`` and ``_`` only.

    ``"Fix double submit on login form"`` -> ``"fix-double-submit-on-login-form"``; ``fallback`` (the
    session file's stem) when nothing is left.
    """
    words = re.findall(r"[^\W_]+", title.casefold())
    stem = "-".join(words)[:width].strip("-")
    return stem or fallback


def proposed_target(session: Session, fmt: str) -> str:
    """Where an export of ``session`` goes unless the user says otherwise: its title, in the last folder."""
    from core.formatting import title

    folder = last_export_folder() or str(Path.home())
    stem = file_stem(title(session.name, session.first_message), Path(session.path).stem)
    return os.path.join(folder, f"{stem}.{fmt}")


def _as_bool(value: object) -> bool:
    """A QSettings value as a bool (INI files hand back "true"/"false" strings)."""
    return value.lower() == "true" if isinstance(value, str) else bool(value)


class ExportDialog(QDialog):
    """Choose what to export and how; previews redaction counts; exports in a worker.

    Signals:
        exported: the path written, after success.
        failed: the sentence shown, after a failure.
        preview_ready: the counts of the latest preview.
    """

    exported = Signal(str)
    failed = Signal(str)
    preview_ready = Signal(object)

    def __init__(
        self,
        session: Session,
        runner: TaskRunner,
        selected_id: str | None = None,
        parent: QWidget | None = None,
        start_from_selected: bool = False,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export Session")
        self.session_path = session.path
        self.runner = runner
        self.selected_id = selected_id
        self.last_counts: Counter[str] | None = None  # what the latest look found (None: still looking)
        self._busy = False
        self._unredacted_ok = False  # the user confirmed writing the credentials found as they are
        self._export_after_look = False  # Export was pressed, unredacted, before the first look finished

        self.leaf_radio = QRadioButton("Path to the current leaf")
        self.selected_radio = QRadioButton("Path to the selected entry")
        self.tree_radio = QRadioButton("Whole tree, every branch")
        self.scope = QButtonGroup(self)
        for button in (self.leaf_radio, self.selected_radio, self.tree_radio):
            self.scope.addButton(button)
        self.selected_radio.setEnabled(selected_id is not None)
        (self.selected_radio if start_from_selected and selected_id else self.leaf_radio).setChecked(True)

        self.format_combo = QComboBox()
        for key, text in _FORMATS:
            self.format_combo.addItem(text, key)
        self.thinking_check = QCheckBox("Thinking")
        self.tools_check = QCheckBox("Tool calls and results")
        self.custom_check = QCheckBox("Extension entries")
        self.bookkeeping_check = QCheckBox("Bookkeeping (model changes, labels, names)")
        for check in (self.thinking_check, self.tools_check, self.custom_check, self.bookkeeping_check):
            check.setChecked(True)
        self.safe_check = QCheckBox("Safe Markdown: raw HTML shown as text, script links disabled")
        self.safe_check.setToolTip(
            "Markdown and PDF only (the HTML page is always safe). Off: message text exactly as written."
        )
        self.safe_check.setChecked(True)
        self.remote_images_check = QCheckBox("Load remote images (a previewer fetches them from the web)")
        self.remote_images_check.setToolTip(
            "Markdown only. Off: an image from the web in message text is written as a link to it, so "
            "opening the file fetches nothing (the HTML page never loads one)."
        )
        self.images_combo = QComboBox()
        for key, text in _IMAGES:
            self.images_combo.addItem(text, key)

        self.redact_check = QCheckBox("Replace credentials with [REDACTED:kind] markers")
        self.redact_check.setChecked(True)  # the default: on, unless the user turned it off last time
        self.literals_edit = QPlainTextEdit()
        self.literals_edit.setPlaceholderText(
            "More text to redact, one per line (names, hosts, project codes)"
        )
        self.literals_edit.setFixedHeight(64)
        self.preview_label = QLabel("")
        self.preview_label.setWordWrap(True)

        self.target_edit = QLineEdit(proposed_target(session, self.fmt))
        browse = QPushButton("Browse…")
        browse.clicked.connect(self.browse)

        what = QGroupBox("What")
        what_layout = QVBoxLayout(what)
        for button in (self.leaf_radio, self.selected_radio, self.tree_radio):
            what_layout.addWidget(button)
        include = QGroupBox("Include")
        include_layout = QVBoxLayout(include)
        for check in (self.thinking_check, self.tools_check, self.custom_check, self.bookkeeping_check):
            include_layout.addWidget(check)
        redaction = QGroupBox("Redaction")
        redaction_layout = QVBoxLayout(redaction)
        redaction_layout.addWidget(self.redact_check)
        redaction_layout.addWidget(self.literals_edit)
        redaction_layout.addWidget(self.preview_label)
        form = QFormLayout()
        form.addRow("Format", self.format_combo)
        form.addRow("Images", self.images_combo)
        form.addRow("", self.safe_check)
        form.addRow("", self.remote_images_check)
        target_row = QHBoxLayout()
        target_row.addWidget(self.target_edit, 1)
        target_row.addWidget(browse)
        form.addRow("Save as", target_row)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.export_button = self.buttons.addButton("Export", QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.rejected.connect(self.reject)
        self.export_button.clicked.connect(self.start_export)
        self.status_label = QLabel("")
        layout = QVBoxLayout(self)
        layout.addWidget(what)
        layout.addWidget(include)
        layout.addLayout(form)
        layout.addWidget(redaction)
        layout.addWidget(self.status_label)
        layout.addWidget(self.buttons)

        self._restore(remember_scope=not start_from_selected)
        self.target_edit.setText(proposed_target(session, self.fmt))
        self._preview_timer = QTimer(self)
        self._preview_timer.setSingleShot(True)
        self._preview_timer.setInterval(_PREVIEW_DELAY_MS)
        self._preview_timer.timeout.connect(self.refresh_preview)
        self.format_combo.currentIndexChanged.connect(self._format_changed)
        for signal in (
            self.scope.buttonToggled,
            self.thinking_check.toggled,
            self.tools_check.toggled,
            self.custom_check.toggled,
            self.bookkeeping_check.toggled,
            self.literals_edit.textChanged,
        ):
            signal.connect(self._options_changed)
        self.redact_check.toggled.connect(self._redaction_toggled)
        self._options_changed()

    # ------------------------------------------------------------------ remembered between exports
    def _restore(self, *, remember_scope: bool) -> None:
        """The format, scope and options of the last export (not its redaction literals: secret)."""
        settings = app_settings()
        settings.beginGroup("export")
        index = self.format_combo.findData(settings.value("format", "md"))
        self.format_combo.setCurrentIndex(max(0, index))
        scope = settings.value("scope", "leaf")
        if remember_scope:
            button = {"leaf": self.leaf_radio, "selected": self.selected_radio, "tree": self.tree_radio}.get(
                str(scope), self.leaf_radio
            )
            (button if button.isEnabled() else self.leaf_radio).setChecked(True)
        for key, check in self._checks().items():
            check.setChecked(_as_bool(settings.value(key, check.isChecked())))
        images = self.images_combo.findData(settings.value("images", "embed"))
        self.images_combo.setCurrentIndex(max(0, images))
        settings.endGroup()
        self.images_combo.setEnabled(self.fmt != "pdf")
        self.safe_check.setEnabled(self.fmt != "html")
        self.remote_images_check.setEnabled(self.fmt == "md")

    def _remember(self) -> None:
        settings = app_settings()
        settings.beginGroup("export")
        settings.setValue("format", self.fmt)
        scope = (
            "selected"
            if self.selected_radio.isChecked()
            else "tree"
            if self.tree_radio.isChecked()
            else "leaf"
        )
        settings.setValue("scope", scope)
        for key, check in self._checks().items():
            settings.setValue(key, check.isChecked())
        settings.setValue("images", str(self.images_combo.currentData()))
        settings.endGroup()
        target = self.target_edit.text().strip()
        if target:
            remember_export_folder(os.path.dirname(os.path.abspath(os.path.expanduser(target))))

    def _checks(self) -> dict[str, QCheckBox]:
        return {
            "thinking": self.thinking_check,
            "tools": self.tools_check,
            "custom": self.custom_check,
            "bookkeeping": self.bookkeeping_check,
            "redact": self.redact_check,
            "safe_markdown": self.safe_check,
            "remote_images": self.remote_images_check,
        }

    # ------------------------------------------------------------------ reading the form
    @property
    def fmt(self) -> str:
        """The chosen format key."""
        return str(self.format_combo.currentData())

    def options(self) -> ExportOptions:
        """The options the form shows."""
        literals = tuple(
            line.strip() for line in self.literals_edit.toPlainText().splitlines() if line.strip()
        )
        return ExportOptions(
            thinking=self.thinking_check.isChecked(),
            tools=self.tools_check.isChecked(),
            custom=self.custom_check.isChecked(),
            bookkeeping=self.bookkeeping_check.isChecked(),
            images=str(self.images_combo.currentData()),
            redact=self.redact_check.isChecked(),
            literals=literals,
            safe_markdown=self.safe_check.isChecked(),
            remote_images=self.remote_images_check.isChecked() and self.fmt == "md",
        )

    def request(self, overwrite: bool = False) -> ExportRequest:
        """The export the form describes."""
        leaf = self.selected_id if self.selected_radio.isChecked() else None
        return ExportRequest(
            path=self.session_path,
            fmt=self.fmt,
            options=self.options(),
            leaf_id=leaf,
            whole_tree=self.tree_radio.isChecked(),
            target=os.path.expanduser(self.target_edit.text().strip()),
            overwrite=overwrite,
        )

    # ------------------------------------------------------------------ reacting
    def _format_changed(self) -> None:
        target = self.target_edit.text().strip()
        if target:
            root, _ext = os.path.splitext(target)
            self.target_edit.setText(f"{root}.{self.fmt}")
        self.images_combo.setEnabled(self.fmt != "pdf")  # a PDF always carries its images
        self.safe_check.setEnabled(self.fmt != "html")  # the HTML page is safe either way
        self.remote_images_check.setEnabled(self.fmt == "md")  # the page and the PDF never load them
        self._options_changed()

    def _options_changed(self, *_args: Any) -> None:
        """What the export holds may have changed: look for credentials again (debounced)."""
        self.last_counts = None
        self.preview_label.setText("Looking for credentials…")
        self._preview_timer.start()

    def _redaction_toggled(self, on: bool) -> None:
        """Turning redaction off while credentials were found asks first (a deliberate click)."""
        if not on and not self._unredacted_ok:
            found = credentials(self.last_counts or Counter())
            if found:
                if not self.confirm_unredacted(found):
                    self.redact_check.setChecked(True)  # toggled again, with on: nothing asked
                    return
                self._unredacted_ok = True
        if self.last_counts is not None:  # the same findings, now replaced or written as they are
            self.preview_label.setText(counts_text(self.last_counts, on))

    def confirm_unredacted(self, found: Counter[str]) -> bool:
        """Ask whether to write the credentials found as they are; tests replace this method."""
        total = sum(found.values())
        answer = QMessageBox.warning(
            self,
            "Export Credentials?",
            f"This export holds {total:,} credential{'' if total == 1 else 's'} ({_kinds(found)}). Without "
            "redaction anyone who reads the file can use them. Export them as they are?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

    def refresh_preview(self) -> None:
        """Look for credentials in a worker: say what the export holds, and redact it when it holds any."""
        request = self.request()

        def shown(counts: Counter[str]) -> None:
            self.last_counts = counts
            forced = (
                bool(credentials(counts)) and not self.redact_check.isChecked() and not self._unredacted_ok
            )
            if forced:
                self.redact_check.setChecked(True)  # found some: on, as by default
            text = counts_text(counts, self.redact_check.isChecked())
            self.preview_label.setText(text + (" Redaction was turned on." if forced else ""))
            self.preview_ready.emit(counts)
            if self._export_after_look:
                self._export_after_look = False
                if forced:  # what was asked for is not what would be written now: the user looks again
                    self.status_label.setText("Credentials found: redaction is on. Export again to write.")
                else:
                    self.start_export()

        def failed(error: Exception) -> None:
            self.last_counts = Counter()
            self.preview_label.setText(user_sentence(error))
            if self._export_after_look:
                self._export_after_look = False
                self.status_label.setText("")

        self.runner.start(
            "export-preview",
            lambda _task: preview_counts(request),
            shown,
            failed,
            priority=Priority.FOREGROUND,
        )

    def browse(self) -> None:
        """Pick the file to write (the overwrite question comes from the export itself)."""
        filters = {"md": "Markdown (*.md)", "html": "HTML (*.html)", "pdf": "PDF (*.pdf)"}
        path, _filter = QFileDialog.getSaveFileName(
            self,
            "Export to",
            self.target_edit.text(),
            filters[self.fmt],
            options=QFileDialog.Option.DontConfirmOverwrite,
        )
        if path:
            self.target_edit.setText(path)

    def confirm_overwrite(self, target: str) -> bool:
        """Ask whether to replace an existing file; tests replace this method."""
        answer = QMessageBox.question(
            self,
            "Replace File?",
            f"{target} already exists. Replace it?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

    def show_error(self, sentence: str) -> None:
        """Show a failure as one sentence; tests replace this method."""
        QMessageBox.warning(self, "Export", sentence)

    def start_export(self) -> None:
        """Check the target, ask before replacing it, then export in a worker."""
        if self._busy:
            return
        request = self.request()
        if self.last_counts is None and not request.options.redact:
            self._export_after_look = True  # unredacted: only once the look says what would be written
            self.status_label.setText("Looking for credentials first…")
            return
        if not request.target:
            self._fail("Choose a file to export to.")
            return
        try:
            # A folder, or the session itself (by any name), is refused before the question to replace.
            check_targets([request.target], inputs=[self.session_path], overwrite=True)
        except PrimeSessionsError as err:
            self._fail(str(err))
            return
        if os.path.exists(request.target):
            if not self.confirm_overwrite(request.target):
                return
            request = self.request(overwrite=True)
        self._busy = True
        self._remember()
        self.export_button.setEnabled(False)
        self.status_label.setText("Exporting…")

        def done(result: tuple[str, int, Counter[str]]) -> None:
            self._busy = False
            self.export_button.setEnabled(True)
            target, files, _counts = result
            extra = f" and {files - 1} image file(s)" if files > 1 else ""
            self.status_label.setText(f"Wrote {target}{extra}.")
            self.exported.emit(target)
            self.accept()

        def failed(error: Exception) -> None:
            self._busy = False
            self.export_button.setEnabled(True)
            self.status_label.setText("")
            self._fail(user_sentence(error))

        def work(task: TaskContext) -> tuple[str, int, Counter[str]]:
            return run_export(request, task.progress, task.cancel_event)

        # Foreground, not a write: the user waits for it, it can be cancelled, and its file is written whole.
        self.runner.start("export", work, done, failed, self._show_progress, priority=Priority.FOREGROUND)

    def _show_progress(self, stage: str, done: int, total: int) -> None:
        if stage == "layout":
            self.status_label.setText("Laying out the PDF pages…")
        elif stage == "page":
            self.status_label.setText(f"Writing page {done:,} of {total:,}…")

    @property
    def busy(self) -> bool:
        """An export is running."""
        return self._busy

    def reject(self) -> None:
        """Cancel, Escape or the close button: stop a running export (the dialog stays), else close.

        A cancelled export writes nothing: a PDF stops between pages, the others before writing.
        """
        if not self._busy:
            super().reject()
            return
        self.runner.cancel("export")  # its result, if one still comes, is dropped
        self._busy = False
        self.export_button.setEnabled(True)
        self.status_label.setText("Export cancelled; nothing was written.")

    def _fail(self, sentence: str) -> None:
        self.failed.emit(sentence)
        self.show_error(sentence)
