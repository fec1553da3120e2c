"""The forced themes are readable: text at WCAG AA (4.5:1), control outlines at 3:1 (issue 17)."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QCheckBox, QLineEdit, QVBoxLayout, QWidget

from gui.theme import apply_theme

ROLE = QPalette.ColorRole
TEXT_PAIRS = [
    (ROLE.Text, ROLE.Base),
    (ROLE.WindowText, ROLE.Window),
    (ROLE.ButtonText, ROLE.Button),
    (ROLE.HighlightedText, ROLE.Highlight),
    (ROLE.PlaceholderText, ROLE.Base),
    (ROLE.ToolTipText, ROLE.ToolTipBase),
    (ROLE.Link, ROLE.Base),
]


def luminance(colour: QColor) -> float:
    def channel(value: float) -> float:
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    return (
        0.2126 * channel(colour.redF()) + 0.7152 * channel(colour.greenF()) + 0.0722 * channel(colour.blueF())
    )


def contrast(a: QColor, b: QColor) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.fixture
def forced(qapp):
    yield apply_theme
    apply_theme("system")


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_text_colours_meet_wcag_aa(forced, theme: str) -> None:
    forced(theme)
    palette = QGuiApplication.palette()
    for text, background in TEXT_PAIRS:
        ratio = contrast(palette.color(text), palette.color(background))
        assert ratio >= 4.5, f"{theme}: {text.name} on {background.name} is {ratio:.2f}:1"


def test_dark_check_boxes_and_fields_have_outlines_people_see(qtbot, forced) -> None:
    forced("dark")
    holder = QWidget()
    layout = QVBoxLayout(holder)
    box, field = QCheckBox("Named only"), QLineEdit("a field")
    layout.addWidget(box)
    layout.addWidget(field)
    qtbot.addWidget(holder)
    holder.resize(240, 90)
    holder.show()
    qtbot.waitExposed(holder)
    image = holder.grab().toImage()
    window = QGuiApplication.palette().color(ROLE.Window)
    for widget, width in ((box, 18), (field, field.width())):
        geometry = widget.geometry()
        best = max(
            contrast(image.pixelColor(x, y), window)
            for x in range(geometry.x(), geometry.x() + width)
            for y in range(geometry.y(), geometry.y() + geometry.height())
        )
        assert best >= 3.0, f"{type(widget).__name__}: the outline reaches only {best:.2f}:1"
