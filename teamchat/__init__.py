"""teamchat: a team chat server that speaks the Zulip REST API, on one SQLite file."""

from __future__ import annotations

__version__ = "0.1.0"
