"""PATCH /realm/user_settings_defaults: every parameter, events, and new users' settings.

A server of its own: changed defaults would leak into users other tests create.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from teamchat.lib.user_settings import CHOICES, REALM_DEFAULT_SETTINGS, SETTING_TYPES
from tests.conftest import database_url
from tests.support.api import Api, assert_error
from tests.support.openapi import OPENAPI_PATH
from tests.support.people import login, verify
from tests.support.server import ServerProcess

SPEC = OPENAPI_PATH.parent / "SPEC.md"


@pytest.fixture(scope="module")
def defaults_server(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[ServerProcess]:
    directory = tmp_path_factory.mktemp("defaults")
    proc = ServerProcess(directory, database_url=database_url(request)).start()
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def admin(defaults_server: ServerProcess) -> Iterator[Api]:
    with Api(defaults_server.url, defaults_server.owner_email, defaults_server.owner_key) as api:
        yield api


def new_member(server: ServerProcess, admin: Api, email: str) -> Api:
    admin.ok("POST", "/users", email=email, password="pw-123456", full_name=email.split("@")[0])
    return login(server.url, email, "pw-123456")


def test_the_parameters_are_spec_s_list() -> None:
    if not SPEC.exists():
        pytest.skip("SPEC.md is not beside the repository")
    section = SPEC.read_text().split("### Update realm-level defaults of user settings")[1]
    section = section.split("### Create a custom profile field")[0]
    names = set(re.findall(r"^- `(\w+)`", section, re.M))
    names |= set(re.findall(r"^\| (\w+) \|", section, re.M)) - {"Name"}
    assert names == set(REALM_DEFAULT_SETTINGS)


def test_only_administrators(defaults_server: ServerProcess, admin: Api) -> None:
    member = new_member(defaults_server, admin, "plain@example.com")
    assert_error(
        member.patch("/realm/user_settings_defaults", enter_sends=True),
        "Must be an organization administrator",
        "UNAUTHORIZED_PRINCIPAL",
    )
    member.close()


def test_every_parameter_is_validated(admin: Api) -> None:
    for name in REALM_DEFAULT_SETTINGS:
        kind = SETTING_TYPES[name]
        if kind is bool:
            assert_error(
                admin.patch("/realm/user_settings_defaults", **{name: "yes"}),
                f"{name} is not valid JSON",
            )
        elif kind is int:
            assert_error(
                admin.patch("/realm/user_settings_defaults", **{name: "x"}),
                f"{name} is not valid JSON",
            )
            if name in CHOICES:
                assert_error(
                    admin.patch("/realm/user_settings_defaults", **{name: 99}), f"Invalid {name}"
                )
        elif name in CHOICES:
            assert_error(
                admin.patch("/realm/user_settings_defaults", **{name: "zzz"}),
                f"Invalid {name}: Value error, Not in the list of possible values",
            )
    defaults = admin.ok("POST", "/register")["realm_user_settings_defaults"]
    assert defaults["color_scheme"] == 1 and defaults["enter_sends"] is False


def test_defaults_apply_to_new_users_only(defaults_server: ServerProcess, admin: Api) -> None:
    existing = new_member(defaults_server, admin, "before@example.com")
    changes = {
        "twenty_four_hour_time": True,
        "color_scheme": 2,
        "web_home_view": "recent",
        "email_address_visibility": 4,
        "web_font_size_px": 19,
        "emojiset": "text",
    }
    sent = verify(existing, lambda: admin.ok("PATCH", "/realm/user_settings_defaults", **changes))
    assert {e["property"]: e["value"] for e in sent} == changes
    assert all(e["type"] == "realm_user_settings_defaults" and e["op"] == "update" for e in sent)
    mine = existing.ok("POST", "/register")["user_settings"]
    assert mine["twenty_four_hour_time"] is False and mine["color_scheme"] == 1
    newcomer = new_member(defaults_server, admin, "after@example.com")
    theirs = newcomer.ok("POST", "/register")["user_settings"]
    for name, value in changes.items():
        assert theirs[name] == value, name
    # Visibility "nobody" from the defaults: the API email is the dummy address.
    seen = existing.ok("GET", f"/users/{newcomer.user_id}")["user"]
    assert seen["email"].startswith(f"user{newcomer.user_id}@") and seen["delivery_email"] is None
    existing.close()
    newcomer.close()


def test_free_form_defaults(admin: Api) -> None:
    """SPEC: notification_sound is a free string; the batching period any integer."""
    admin.ok("PATCH", "/realm/user_settings_defaults", notification_sound="my-chime")
    admin.ok(
        "PATCH", "/realm/user_settings_defaults", email_notifications_batching_period_seconds=0
    )
    defaults = admin.ok("POST", "/register")["realm_user_settings_defaults"]
    assert defaults["notification_sound"] == "my-chime"
    assert defaults["email_notifications_batching_period_seconds"] == 0
    admin.ok("PATCH", "/realm/user_settings_defaults", notification_sound="zulip")
    admin.ok(
        "PATCH", "/realm/user_settings_defaults", email_notifications_batching_period_seconds=120
    )


def test_unknown_names_are_ignored(admin: Api) -> None:
    body = admin.ok(
        "PATCH", "/realm/user_settings_defaults", enter_sends=True, default_language="de", bogus=1
    )
    assert body["ignored_parameters_unsupported"] == ["bogus", "default_language"]
    assert admin.ok("POST", "/register")["realm_user_settings_defaults"]["enter_sends"] is True
