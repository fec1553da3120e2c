"""The action registry: every action of the main window, built once, with its shortcut and enabled rule.

Controllers add their actions here (text, slot, shortcut, status tip, where it goes in the menus and the
toolbar, and a predicate saying when it applies); the window builds its menus and toolbar from the
registry and calls :meth:`ActionRegistry.update` when the selection or the open session changes, so every
action's enabled state follows one rule in one place. The registry also knows every shortcut, which is
what makes "no two actions share a shortcut" checkable and a shortcut list printable.

Scopes: an action with ``scope="list"`` or ``scope="tree"`` is a widget shortcut of that view only (F2
renames in the list but edits a label in the tree; Delete trashes sessions only from the list). Context
menus are filled by contributors per view, called with the menu and the model index under the mouse.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QModelIndex, QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QWidget

__all__ = ["MENUS", "ActionRegistry", "ContextContributor", "Shortcut", "on_a_keyboard"]

MENUS = ("File", "Edit", "Session", "View", "Go", "Help")  # in menu-bar order
Shortcut = str | QKeySequence.StandardKey
ContextContributor = Callable[[QMenu, QModelIndex], None]


@dataclass
class _Place:
    name: str
    menu: str | None
    section: str
    toolbar: bool
    submenu: QMenu | None = None


# Qt's key codes from here on are media and application keys ("Open", "Refresh", "Find"): a standard key
# binding lists them beside Ctrl+O, F5 and Ctrl+F, but nobody types them on an ordinary keyboard.
_FIRST_SPECIAL_KEY = Qt.Key.Key_Direction_R.value


def on_a_keyboard(sequence: QKeySequence) -> bool:
    """Whether every key of ``sequence`` is one an ordinary keyboard has (not a media or launch key)."""
    keys = [sequence[i].key() for i in range(sequence.count())]  # type: ignore[index]  # (stubs lack it)
    return bool(keys) and all(key.value < _FIRST_SPECIAL_KEY for key in keys)


class ActionRegistry(QObject):
    """The window's actions by name (``"edit.label"``, ``"session.fork"``, ...)."""

    def __init__(self, host: QWidget) -> None:
        super().__init__(host)
        self._host = host  # window-wide shortcuts live on it, so they work with the menu bar hidden
        self._actions: dict[str, QAction] = {}
        self._places: list[_Place] = []
        self._enabled: dict[str, Callable[[], bool]] = {}
        self._scopes: dict[str, QWidget] = {}
        self._context: dict[str, list[ContextContributor]] = {}
        self._contexts: dict[str, str] = {}  # action name -> what its text means out of its menu

    # ------------------------------------------------------------------ building
    def set_scope(self, scope: str, widget: QWidget) -> None:
        """Name a view whose widget shortcuts later actions may ask for (``"list"``, ``"tree"``)."""
        self._scopes[scope] = widget

    def add(
        self,
        name: str,
        text: str,
        slot: Callable[[], object],
        *,
        shortcut: Shortcut | None = None,
        tip: str = "",
        menu: str | None = None,
        section: str = "",
        scope: str | None = None,
        toolbar: bool = False,
        enabled: Callable[[], bool] | None = None,
        context: str = "",
    ) -> QAction:
        """Make an action and register it; see the module docstring for ``scope`` and ``enabled``."""
        action = QAction(text, self._host)
        action.triggered.connect(lambda _checked=False: slot())
        return self.adopt(
            name,
            action,
            shortcut=shortcut,
            tip=tip,
            menu=menu,
            section=section,
            scope=scope,
            toolbar=toolbar,
            enabled=enabled,
            context=context,
        )

    def add_toggle(
        self,
        name: str,
        text: str,
        toggled: Callable[[bool], object],
        *,
        checked: bool = False,
        shortcut: Shortcut | None = None,
        tip: str = "",
        menu: str | None = None,
        section: str = "",
    ) -> QAction:
        """A checkable action; ``toggled`` gets the new state."""
        action = QAction(text, self._host)
        action.setCheckable(True)
        action.setChecked(checked)
        action.toggled.connect(toggled)
        return self.adopt(name, action, shortcut=shortcut, tip=tip, menu=menu, section=section)

    def adopt(
        self,
        name: str,
        action: QAction,
        *,
        shortcut: Shortcut | None = None,
        tip: str = "",
        menu: str | None = None,
        section: str = "",
        scope: str | None = None,
        toolbar: bool = False,
        enabled: Callable[[], bool] | None = None,
        context: str = "",
    ) -> QAction:
        """Register an action made elsewhere (``QUndoStack.createUndoAction``) like :meth:`add` does.

        ``context`` is what the action's text means without its menu (``"Theme"`` for "Dark"): the
        command palette, which lists actions out of their menus, shows ``Theme: Dark``.
        """
        if name in self._actions:
            raise ValueError(f"an action named {name!r} is registered already")
        if menu is not None and menu not in MENUS:
            raise ValueError(f"unknown menu {menu!r}; expected one of {MENUS}")
        if isinstance(shortcut, QKeySequence.StandardKey):
            action.setShortcuts(QKeySequence.keyBindings(shortcut))
        elif shortcut:
            action.setShortcut(QKeySequence(shortcut))
        if tip:
            action.setStatusTip(tip)
        # The tooltip says what the action does and its shortcut (toolbar buttons show it on hover).
        keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        label = tip or action.text().replace("&", "").rstrip("…")
        action.setToolTip(f"{label} ({keys})" if keys else label)
        action.setObjectName(name)
        if scope is None:
            self._host.addAction(action)
        else:
            action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
            self._scopes[scope].addAction(action)
        self._actions[name] = action
        if context:
            self._contexts[name] = context
        self._places.append(_Place(name, menu, section, toolbar))
        if enabled is not None:
            self._enabled[name] = enabled
            action.setEnabled(bool(enabled()))
        return action

    def add_submenu(self, name: str, submenu: QMenu, *, menu: str, section: str = "") -> QMenu:
        """Place a submenu (Open Recent, Theme) among the actions of ``menu``."""
        if menu not in MENUS:
            raise ValueError(f"unknown menu {menu!r}; expected one of {MENUS}")
        self._places.append(_Place(name, menu, section, False, submenu))
        return submenu

    def add_context(self, view: str, contribute: ContextContributor) -> None:
        """Have ``contribute(menu, index)`` add entries to the context menu of ``view`` (list, tree)."""
        self._context.setdefault(view, []).append(contribute)

    # ------------------------------------------------------------------ using
    def __getitem__(self, name: str) -> QAction:
        return self._actions[name]

    def __contains__(self, name: object) -> bool:
        return name in self._actions

    def names(self) -> list[str]:
        """Every registered name, in registration order."""
        return list(self._actions)

    def context_of(self, name: str) -> str:
        """What the action's text means out of its menu (``"Theme"``, ``"Show"``), or ``""``."""
        return self._contexts.get(name, "")

    def update(self, *_args: object) -> None:
        """Enable each action whose rule says it applies now (actions without a rule stay as they are)."""
        for name, applies in self._enabled.items():
            self._actions[name].setEnabled(bool(applies()))

    def fill_menu(self, menu: QMenu, title: str) -> None:
        """Add the actions placed in menu ``title``, in registration order, a separator between sections."""
        section: str | None = None
        for place in self._places:
            if place.menu != title:
                continue
            if section is not None and place.section != section:
                menu.addSeparator()
            section = place.section
            if place.submenu is not None:
                menu.addMenu(place.submenu)
            else:
                menu.addAction(self._actions[place.name])

    def toolbar_actions(self) -> list[QAction]:
        """The actions that go on the toolbar, in registration order."""
        return [self._actions[p.name] for p in self._places if p.toolbar and p.submenu is None]

    def fill_context_menu(self, view: str, menu: QMenu, index: QModelIndex) -> None:
        """Let every contributor of ``view`` add its entries (a separator between contributors)."""
        for contribute in self._context.get(view, []):
            if not menu.isEmpty():
                menu.addSeparator()
            contribute(menu, index)

    def shortcuts(self) -> list[tuple[str, str, str]]:
        """``(menu, action text, shortcut)`` of every action with a shortcut, menus in menu-bar order."""
        rows = []
        for place in self._places:
            action = self._actions.get(place.name)
            if action is None:  # a submenu
                continue
            typed = [k for k in action.shortcuts() if on_a_keyboard(k)]
            keys = ", ".join(k.toString(QKeySequence.SequenceFormat.NativeText) for k in typed)
            if keys:
                rows.append((place.menu or "", action.text().replace("&", ""), keys))
        order = {menu: i for i, menu in enumerate(MENUS)}
        return sorted(rows, key=lambda row: order.get(row[0], len(MENUS)))
