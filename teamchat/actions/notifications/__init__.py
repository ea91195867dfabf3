"""Notifications that reach people who are not looking: missed-message emails."""
