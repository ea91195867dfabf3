"""Zulip-flavoured Markdown rendering: pure functions, no I/O (entry point: markdown.py)."""
