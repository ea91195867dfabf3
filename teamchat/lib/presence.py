"""Presence constants and Zulip's two wire formats for a presence row (pure)."""

from __future__ import annotations

from typing import Literal

from teamchat.lib.api_types import JsonDict
from teamchat.records import PresenceRow

PRESENCE_PING_INTERVAL_SECS = 60
OFFLINE_THRESHOLD_SECS = 200
# A client pinging more often than this does not move the stored timestamps.
PRESENCE_UPDATE_MIN_FREQ_SECS = 55
# Active within this long before the last connection still reads as "active" (legacy format).
LEGACY_ACTIVITY_OFFSET_SECS = 70
DEFAULT_HISTORY_LIMIT_DAYS = 14
SECS_PER_DAY = 86400


def timestamps(row: PresenceRow, date_joined: int) -> tuple[int, int]:
    """(last active, last connected), never null: Zulip falls back to date_joined."""
    active = row.last_active_time if row.last_active_time is not None else date_joined
    connected = row.last_connected_time if row.last_connected_time is not None else date_joined
    return active, connected


def modern_info(active: int, connected: int) -> JsonDict:
    return {"active_timestamp": active, "idle_timestamp": connected}


def legacy_status(active: int, connected: int) -> tuple[Literal["active", "idle"], int]:
    """(status, timestamp) of the legacy format: recently active reads as "active"."""
    if active + LEGACY_ACTIVITY_OFFSET_SECS >= connected:
        return "active", active
    return "idle", connected


def legacy_client_info(active: int, connected: int) -> JsonDict:
    """The one client entry (`website`) of the legacy format, with `pushable`."""
    status, timestamp = legacy_status(active, connected)
    return {"client": "website", "status": status, "timestamp": timestamp, "pushable": False}


def legacy_info(active: int, connected: int) -> JsonDict:
    """`{aggregated, website}`: identical data since feature level 178."""
    status, timestamp = legacy_status(active, connected)
    aggregated = {"client": "website", "status": status, "timestamp": timestamp}
    website = {**aggregated, "pushable": False}
    return {"aggregated": aggregated, "website": website}
