"""Widgets of the window: panes, the message view, search, diagnostics, the diff window, the export dialog."""
