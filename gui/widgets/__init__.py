"""Widgets of the window: panes, the transcript, search, diagnostics, the diff window, the export dialog."""
