"""The controllers of the main window, each the one owner of a piece of state, given a WindowContext."""
