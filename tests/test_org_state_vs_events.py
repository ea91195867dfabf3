"""Full register state versus events for organization administration (STYLE.md 4)."""

from __future__ import annotations

import itertools
from collections.abc import Callable

from tests.support.api import Api, assert_error
from tests.support.state import verify_action

_numbers = itertools.count(1)


def system_ids(api: Api) -> dict[str, int]:
    groups = api.ok("GET", "/user_groups")["user_groups"]
    return {g["name"]: g["id"] for g in groups if g["is_system_group"]}


def test_realm_settings(owner: Api) -> None:
    ids = system_ids(owner)
    verify_action(
        owner,
        lambda: owner.ok(
            "PATCH",
            "/realm",
            name="Renamed org",
            waiting_period_threshold=5,
            message_edit_history_visibility_policy="none",
            topics_policy="disable_empty_topic",
            message_content_edit_limit_seconds='"unlimited"',
            can_mention_many_users_group={"new": ids["role:members"]},
            can_create_public_channel_group={"new": ids["role:moderators"]},
        ),
    )
    verify_action(
        owner,
        lambda: owner.ok(
            "PATCH",
            "/realm",
            name="teamchat",
            waiting_period_threshold=0,
            message_edit_history_visibility_policy="all",
            topics_policy="allow_empty_topic",
            message_content_edit_limit_seconds=600,
            can_mention_many_users_group={"new": ids["role:administrators"]},
            can_create_public_channel_group={"new": ids["role:members"]},
        ),
    )


def test_user_group_lifecycle(owner: Api, make_user: Callable[..., Api]) -> None:
    member = make_user()
    ids = system_ids(owner)
    created: dict[str, int] = {}

    def create() -> None:
        created["id"] = owner.ok(
            "POST",
            "/user_groups/create",
            name=f"state group {next(_numbers)}",
            description="",
            members=[member.user_id],  # type: ignore[attr-defined]
            subgroups=[ids["role:moderators"]],
        )["group_id"]

    verify_action(member, create)
    group = created["id"]
    verify_action(
        member,
        lambda: owner.ok(
            "PATCH",
            f"/user_groups/{group}",
            description="changed",
            can_manage_group={"new": {"direct_members": [], "direct_subgroups": []}},
        ),
    )
    verify_action(
        member,
        lambda: owner.ok(
            "POST",
            f"/user_groups/{group}/members",
            delete=[member.user_id],  # type: ignore[attr-defined]
            delete_subgroups=[ids["role:moderators"]],
        ),
    )
    verify_action(member, lambda: owner.ok("POST", f"/user_groups/{group}/deactivate"))
    verify_action(member, lambda: owner.ok("PATCH", f"/user_groups/{group}", deactivated=False))


def test_channel_folders_linkifiers_playgrounds(owner: Api) -> None:
    created: dict[str, int] = {}

    def create_folder() -> None:
        created["folder"] = owner.ok(
            "POST", "/channel_folders/create", name=f"State {next(_numbers)}", description="x"
        )["channel_folder_id"]

    verify_action(owner, create_folder)
    verify_action(
        owner, lambda: owner.ok("PATCH", f"/channel_folders/{created['folder']}", is_archived=True)
    )
    order = [
        f["id"]
        for f in owner.ok("GET", "/channel_folders", include_archived=True)["channel_folders"]
    ]
    verify_action(owner, lambda: owner.ok("PATCH", "/channel_folders", order=order[::-1]))
    capabilities = {"linkifier_url_template": True, "include_deactivated_groups": True}
    verify_action(
        owner,
        lambda: owner.ok(
            "POST", "/realm/filters", pattern="SV-(?P<n>[0-9]+)", url_template="https://sv/{n}"
        ),
        client_capabilities=capabilities,
    )
    verify_action(
        owner,
        lambda: owner.ok(
            "POST",
            "/realm/playgrounds",
            name="SV",
            pygments_language="C",
            url_template="https://c/{code}",
        ),
    )


def test_absurd_ids_are_bad_requests_not_server_errors(owner: Api) -> None:
    huge = 2**70
    assert_error(owner.patch(f"/user_groups/{huge}", name="x"), "Integer out of range")
    assert_error(owner.post("/invites/multiuse", group_ids=[huge]), "group_ids[0] is too large")
    assert_error(
        owner.patch("/realm", can_mention_many_users_group={"new": huge}), "Integer out of range"
    )
    assert_error(owner.post("/default_streams", stream_id=huge), "stream_id is too large")
