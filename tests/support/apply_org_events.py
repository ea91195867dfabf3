"""Appliers for organization-administration events (realm settings, user groups, channel
folders, linkifiers, playgrounds, invitations, default channels), as Zulip clients apply them.
"""

from __future__ import annotations

import copy
from typing import Any

from tests.support.apply_events import applier

JsonDict = dict[str, Any]


@applier("realm")
def _realm(state: JsonDict, event: JsonDict) -> None:
    if event["op"] == "update":
        state[f"realm_{event['property']}"] = event["value"]
        if event["property"] == "message_edit_history_visibility_policy":
            state["realm_allow_edit_history"] = event["value"] != "none"
    elif event["op"] == "update_dict":
        for key, value in event["data"].items():
            state[f"realm_{key}"] = value


@applier("user_group")
def _user_group(state: JsonDict, event: JsonDict) -> None:
    groups = state.get("realm_user_groups")
    if groups is None:
        return
    op = event["op"]
    if op == "add":
        groups.append(copy.deepcopy(event["group"]))
        groups.sort(key=lambda g: g["id"])
        return
    group = next(g for g in groups if g["id"] == event["group_id"])
    if op == "update":
        group.update(event["data"])
    elif op in ("add_members", "remove_members"):
        members = set(group["members"])
        changed = set(event["user_ids"])
        group["members"] = sorted(members | changed if op == "add_members" else members - changed)
    elif op in ("add_subgroups", "remove_subgroups"):
        subgroups = set(group["direct_subgroup_ids"])
        changed = set(event["direct_subgroup_ids"])
        new = subgroups | changed if op == "add_subgroups" else subgroups - changed
        group["direct_subgroup_ids"] = sorted(new)
    elif op == "remove":
        groups.remove(group)


@applier("channel_folder")
def _channel_folder(state: JsonDict, event: JsonDict) -> None:
    folders = state.get("channel_folders")
    if folders is None:
        return
    if event["op"] == "add":
        folders.append(copy.deepcopy(event["channel_folder"]))
    elif event["op"] == "update":
        next(f for f in folders if f["id"] == event["channel_folder_id"]).update(event["data"])
    elif event["op"] == "reorder":
        for position, folder_id in enumerate(event["order"]):
            next(f for f in folders if f["id"] == folder_id)["order"] = position
    folders.sort(key=lambda f: (f["order"], f["id"]))


def _replace(key: str) -> Any:
    def apply(state: JsonDict, event: JsonDict) -> None:
        if key in state:
            state[key] = copy.deepcopy(event[key])

    return apply


applier("realm_linkifiers")(_replace("realm_linkifiers"))
applier("realm_filters")(_replace("realm_filters"))
applier("realm_playgrounds")(_replace("realm_playgrounds"))


@applier("default_streams")
def _default_streams(state: JsonDict, event: JsonDict) -> None:
    if "realm_default_streams" in state:
        state["realm_default_streams"] = copy.deepcopy(event["default_streams"])


@applier("invites_changed")
def _invites_changed(state: JsonDict, event: JsonDict) -> None:
    """Clients refetch GET /invites; nothing in the register state changes."""


@applier("realm_export")
@applier("realm_export_consent")
def _realm_export(state: JsonDict, event: JsonDict) -> None:
    """No register state: clients fetch GET /export/realm and /export/realm/consents."""
    del state, event
