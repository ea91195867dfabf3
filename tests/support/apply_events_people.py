"""Appliers for the people event types (settings, defaults, custom profile fields, presence,
user status, alert words, muted users), registered into tests.support.apply_events."""

from __future__ import annotations

from typing import Any

from tests.support.apply_events import applier

JsonDict = dict[str, Any]


@applier("user_settings")
def _user_settings(state: JsonDict, event: JsonDict) -> None:
    if "user_settings" in state:
        state["user_settings"][event["property"]] = event["value"]


@applier("update_display_settings")
def _display_settings(state: JsonDict, event: JsonDict) -> None:
    if event["setting_name"] in state:
        state[event["setting_name"]] = event["setting"]


@applier("update_global_notifications")
def _global_notifications(state: JsonDict, event: JsonDict) -> None:
    if event["notification_name"] in state:
        state[event["notification_name"]] = event["setting"]


@applier("realm_user_settings_defaults")
def _realm_defaults(state: JsonDict, event: JsonDict) -> None:
    if "realm_user_settings_defaults" in state:
        state["realm_user_settings_defaults"][event["property"]] = event["value"]


@applier("custom_profile_fields")
def _custom_profile_fields(state: JsonDict, event: JsonDict) -> None:
    """As Zulip: replace the list and drop users' values of fields that are gone."""
    state["custom_profile_fields"] = event["fields"]
    ids = {str(field["id"]) for field in event["fields"]}
    for key in ("realm_users", "realm_non_active_users"):
        for person in state.get(key, []):
            data = person.get("profile_data", {})
            for field_id in [f for f in data if f not in ids]:
                del data[field_id]


@applier("user_status")
def _user_status(state: JsonDict, event: JsonDict) -> None:
    if "user_status" not in state:
        return
    statuses = state["user_status"]
    entry = statuses.setdefault(str(event["user_id"]), {})
    if "away" in event:
        if event["away"]:
            entry["away"] = True
        else:
            entry.pop("away", None)
    if "status_text" in event:
        if event["status_text"]:
            entry["status_text"] = event["status_text"]
        else:
            entry.pop("status_text", None)
    if "emoji_name" in event:
        for key in ("emoji_name", "emoji_code", "reaction_type"):
            if event["emoji_name"]:
                entry[key] = event[key]
            else:
                entry.pop(key, None)
    if not entry:
        del statuses[str(event["user_id"])]


@applier("alert_words")
def _alert_words(state: JsonDict, event: JsonDict) -> None:
    if "alert_words" in state:
        state["alert_words"] = event["alert_words"]


@applier("muted_users")
def _muted_users(state: JsonDict, event: JsonDict) -> None:
    if "muted_users" in state:
        state["muted_users"] = event["muted_users"]


@applier("presence")
def _presence(state: JsonDict, event: JsonDict) -> None:
    """Legacy-format clients replace the user's entry; presences are volatile anyway."""
    if "presences" not in state or event["email"] not in state["presences"]:
        return
    website = event["presence"]["website"]
    aggregated = {k: v for k, v in website.items() if k != "pushable"}
    state["presences"][event["email"]] = {"aggregated": aggregated, "website": website}
