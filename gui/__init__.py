"""Prime Sessions desktop app (PySide6). All Qt lives in this package; core stays Qt-free."""
