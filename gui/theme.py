"""Light and dark: follow the system, or a choice the user made in View > Theme.

The system's choice arrives as the application palette (and, on platforms that report it, as the style
hints' colour scheme); :func:`is_dark` reads the palette, so a dark desktop theme is followed even where no
colour scheme is reported. A forced theme uses the Fusion style with a palette of its own, because the
platform styles draw with the system's colours whatever palette they are given.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QGuiApplication, QPainter, QPalette, QPen
from PySide6.QtWidgets import QApplication, QProxyStyle, QStyle, QStyleOption, QWidget

__all__ = ["THEMES", "apply_theme", "is_dark"]

THEMES = ("system", "light", "dark")
_system: tuple[str, QPalette] | None = None  # the style name and palette before any theme was forced


def is_dark() -> bool:
    """Whether text is shown light on dark: the colour scheme says so, or the palette's base is dark."""
    if QGuiApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark and _system is None:
        return True
    return QGuiApplication.palette().color(QPalette.ColorRole.Base).lightness() < 128


def apply_theme(theme: str) -> None:
    """Use ``theme`` (one of :data:`THEMES`) for the whole application; unknown names mean "system"."""
    global _system
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        return
    if theme not in ("light", "dark"):
        if _system is not None:
            style, palette = _system
            _system = None
            app.setStyle(style)
            app.setPalette(palette)
        return
    if _system is None:
        _system = (app.style().name(), QPalette(app.palette()))
    if theme == "dark":
        app.setStyle(_DarkContrastStyle("Fusion"))
        app.setPalette(_dark_palette())
    else:
        app.setStyle("Fusion")
        app.setPalette(_light_palette(app.style().standardPalette()))


# Fusion outlines check boxes, radio buttons and fields in the window colour made darker, which on a dark
# window is nearly black on nearly black (a contrast of 1.2:1). The forced dark theme draws those outlines
# again in this colour: 4.5:1 against the window, over the 3:1 WCAG asks of a control's boundary.
DARK_OUTLINE = "#8e8e8e"
_OUTLINED = (
    QStyle.PrimitiveElement.PE_IndicatorCheckBox,
    QStyle.PrimitiveElement.PE_IndicatorRadioButton,
    QStyle.PrimitiveElement.PE_FrameLineEdit,
)


class _DarkContrastStyle(QProxyStyle):
    """Fusion, with outlines people can see on the dark palette."""

    def drawPrimitive(
        self,
        element: QStyle.PrimitiveElement,
        option: QStyleOption,
        painter: QPainter,
        widget: QWidget | None = None,
    ) -> None:
        super().drawPrimitive(element, option, painter, widget)
        if element not in _OUTLINED:
            return
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(QPen(QColor(DARK_OUTLINE), 1))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        rect = QRectF(option.rect).adjusted(0.5, 0.5, -0.5, -0.5)
        if element == QStyle.PrimitiveElement.PE_IndicatorRadioButton:
            painter.drawEllipse(rect)
        else:
            painter.drawRoundedRect(rect, 2, 2)
        painter.restore()


def _light_palette(standard: QPalette) -> QPalette:
    """Fusion's light palette with a selection dark enough for white text (5.7:1 instead of 3.7:1)."""
    palette = QPalette(standard)
    for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
        palette.setColor(group, QPalette.ColorRole.Highlight, QColor("#1f64a8"))
    return palette


def _dark_palette() -> QPalette:
    role = QPalette.ColorRole
    palette = QPalette()
    colours = {
        role.Window: "#2b2b2b",
        role.WindowText: "#e6e6e6",
        role.Base: "#1e1e1e",
        role.AlternateBase: "#262626",
        role.ToolTipBase: "#323232",
        role.ToolTipText: "#e6e6e6",
        role.PlaceholderText: "#8a8a8a",
        role.Text: "#e6e6e6",
        role.Button: "#353535",
        role.ButtonText: "#e6e6e6",
        role.BrightText: "#ff6b6b",
        role.Light: "#454545",
        role.Midlight: "#3a3a3a",
        role.Mid: "#2f2f2f",
        role.Dark: "#1a1a1a",
        role.Shadow: "#000000",
        role.Highlight: "#2f65ca",
        role.HighlightedText: "#ffffff",
        role.Link: "#6cb6ff",
        role.LinkVisited: "#b392f0",
    }
    for colour_role, value in colours.items():
        palette.setColor(colour_role, QColor(value))
    disabled = QPalette.ColorGroup.Disabled
    for colour_role in (role.WindowText, role.Text, role.ButtonText):
        palette.setColor(disabled, colour_role, QColor("#7f7f7f"))
    return palette
