"""Qt item models that adapt core records for the views; they never read or parse files."""

from gui.models.roles import Role
from gui.models.session_filter_proxy import SessionFilterProxy
from gui.models.session_list_model import COLUMNS, Column, SessionColumn, SessionListModel

__all__ = ["COLUMNS", "Column", "Role", "SessionColumn", "SessionFilterProxy", "SessionListModel"]
