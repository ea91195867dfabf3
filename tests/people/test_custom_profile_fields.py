"""Custom profile fields: definitions (administrators) and values (users and administrators).

A server of its own: the two-fields-in-the-summary limit and reordering are realm-wide.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import database_url
from tests.support.api import Api, assert_error
from tests.support.people import events, login, register, verify
from tests.support.server import ServerProcess

NOT_EDITABLE = "You are not allowed to change this field. Contact an administrator to update it."


@pytest.fixture(scope="module")
def cpf_server(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[ServerProcess]:
    directory = tmp_path_factory.mktemp("cpf")
    proc = ServerProcess(directory, database_url=database_url(request)).start()
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def admin(cpf_server: ServerProcess) -> Iterator[Api]:
    with Api(cpf_server.url, cpf_server.owner_email, cpf_server.owner_key) as api:
        api.user_id = api.ok("GET", "/users/me")["user_id"]  # type: ignore[attr-defined]
        yield api


_people = iter(range(1, 1000))


@pytest.fixture
def member(cpf_server: ServerProcess, admin: Api) -> Iterator[Api]:
    email = f"person{next(_people)}@example.com"
    admin.ok("POST", "/users", email=email, password="pw-123456", full_name=email.split("@")[0])
    api = login(cpf_server.url, email, "pw-123456")
    yield api
    api.close()


def create(admin: Api, **params: object) -> int:
    field_id: int = admin.ok("POST", "/realm/profile_fields", **params)["id"]
    return field_id


def fields_by_id(api: Api) -> dict[int, dict]:  # type: ignore[type-arg]
    return {f["id"]: f for f in api.ok("GET", "/realm/profile_fields")["custom_fields"]}


CHOICES = {"a": {"text": "Alpha", "order": "1"}, "b": {"text": "Beta", "order": "2"}}


def test_creating_every_field_type(admin: Api, member: Api) -> None:
    specs = [
        {"field_type": 1, "name": "Nickname", "hint": "What we call you"},
        {"field_type": 2, "name": "Biography"},
        {"field_type": 3, "name": "Team", "field_data": CHOICES},
        {"field_type": 4, "name": "Birthday"},
        {"field_type": 5, "name": "Homepage"},
        {"field_type": 6, "name": "Mentor"},
        {
            "field_type": 7,
            "name": "Fediverse",
            "field_data": {
                "subtype": "custom",
                "url_pattern": "https://social.example/@%(username)s",
            },
        },
        {"field_type": 8, "name": "Pronouns"},
    ]
    ids = []
    for spec in specs:
        sent = verify(member, lambda spec=spec: ids.append(create(admin, **spec)))  # type: ignore[misc]
        assert [e["type"] for e in sent] == ["custom_profile_fields"]
    listed = fields_by_id(member)
    for field_id, spec in zip(ids, specs, strict=True):
        field = listed[field_id]
        assert field["type"] == spec["field_type"] and field["name"] == spec["name"]
        assert field["hint"] == spec.get("hint", "") and field["editable_by_user"] is True
        assert field["required"] is False and "display_in_profile_summary" not in field
        if spec["field_type"] in (3, 7):
            assert field["field_data"].startswith("{")
        else:
            assert field["field_data"] == ""
    state = member.ok("POST", "/register", fetch_event_types=["custom_profile_fields"])
    assert state["custom_profile_field_types"]["SELECT"] == {"id": 3, "name": "List of options"}
    assert state["realm_default_external_accounts"]["github"]["name"] == "GitHub"


def test_creation_errors(admin: Api, member: Api) -> None:
    assert_error(
        member.post("/realm/profile_fields", field_type=1, name="Mine"),
        "Must be an organization administrator",
        "UNAUTHORIZED_PRINCIPAL",
    )
    create(admin, field_type=1, name="Taken")
    cases = [
        ({"field_type": 9, "name": "Nine"}, "Invalid field type."),
        ({"field_type": 1, "name": "  "}, "Label cannot be blank."),
        ({"field_type": 1, "name": "x" * 41}, "name is too long (limit: 40 characters)"),
        (
            {"field_type": 1, "name": "Hinted", "hint": "h" * 81},
            "hint is too long (limit: 80 characters)",
        ),
        ({"field_type": 1, "name": "Taken"}, "A field with that label already exists."),
        ({"field_type": 3, "name": "Empty choice"}, "Field must have at least one choice."),
        (
            {"field_type": 3, "name": "No text", "field_data": {"a": {"order": "1"}}},
            "text key is missing from field_data",
        ),
        (
            {
                "field_type": 3,
                "name": "Twice",
                "field_data": {"a": {"text": "X", "order": "1"}, "b": {"text": "X", "order": "2"}},
            },
            "Field must not have duplicate choices.",
        ),
        (
            {"field_type": 7, "name": "Odd", "field_data": {"subtype": "myspace"}},
            "Invalid external account type",
        ),
        (
            {"field_type": 7, "name": "Custom", "field_data": {"subtype": "custom"}},
            "Custom external account must define URL pattern",
        ),
        (
            {
                "field_type": 7,
                "name": "No user",
                "field_data": {"subtype": "custom", "url_pattern": "https://x.example/"},
            },
            "URL pattern must contain '%(username)s'.",
        ),
        (
            {"field_type": 6, "name": "Buddy", "display_in_profile_summary": True},
            "Field type not supported for display in profile summary.",
        ),
        (
            {"field_type": 2, "name": "Story", "use_for_user_matching": True},
            "Field type not supported for user matching.",
        ),
        ({"field_type": "one", "name": "Word"}, "field_type is not valid JSON"),
        ({"field_type": "true", "name": "Word"}, "field_type is not an integer"),
    ]
    for params, msg in cases:
        assert_error(admin.post("/realm/profile_fields", **params), msg)
    assert_error(
        admin.post("/realm/profile_fields", name="No type"),
        "Missing 'field_type' argument",
        "REQUEST_VARIABLE_MISSING",
    )
    matched = create(admin, field_type=1, name="Employee ID", use_for_user_matching=True)
    assert fields_by_id(admin)[matched]["use_for_user_matching"] is True


def test_at_most_two_fields_in_the_profile_summary(admin: Api) -> None:
    first = create(admin, field_type=1, name="Summary one", display_in_profile_summary=True)
    create(admin, field_type=8, name="Summary two", display_in_profile_summary=True)
    msg = "Only 2 custom profile fields can be displayed in the profile summary."
    assert_error(
        admin.post(
            "/realm/profile_fields",
            field_type=1,
            name="Summary three",
            display_in_profile_summary=True,
        ),
        msg,
    )
    third = create(admin, field_type=1, name="Summary three")
    assert_error(
        admin.patch(f"/realm/profile_fields/{third}", display_in_profile_summary=True), msg
    )
    admin.ok("PATCH", f"/realm/profile_fields/{first}", display_in_profile_summary=False)
    admin.ok("PATCH", f"/realm/profile_fields/{third}", display_in_profile_summary=True)
    assert fields_by_id(admin)[third]["display_in_profile_summary"] is True


def test_default_external_accounts(admin: Api) -> None:
    github = create(admin, field_type=7, field_data={"subtype": "github"})
    field = fields_by_id(admin)[github]
    assert field["name"] == "GitHub" and field["hint"] == "Enter your GitHub username"
    assert_error(
        admin.patch(f"/realm/profile_fields/{github}", name="Code"),
        "Default custom field cannot be updated.",
    )
    admin.ok("PATCH", f"/realm/profile_fields/{github}", required=True)
    assert fields_by_id(admin)[github]["required"] is True


def test_updating_deleting_and_reordering(admin: Api, member: Api) -> None:
    field_id = create(admin, field_type=1, name="Desk")
    sent = verify(
        member,
        lambda: admin.ok(
            "PATCH",
            f"/realm/profile_fields/{field_id}",
            name=" Office ",
            hint="Room",
            editable_by_user=False,
        ),
    )
    assert [e["type"] for e in sent] == ["custom_profile_fields"]
    field = fields_by_id(member)[field_id]
    assert (field["name"], field["hint"], field["editable_by_user"]) == ("Office", "Room", False)
    assert_error(admin.patch("/realm/profile_fields/99999", name="X"), "Field id 99999 not found.")
    assert_error(
        member.patch(f"/realm/profile_fields/{field_id}", name="X"),
        "Must be an organization administrator",
        "UNAUTHORIZED_PRINCIPAL",
    )
    ids = list(fields_by_id(admin))
    order = list(reversed(ids))
    verify(member, lambda: admin.ok("PATCH", "/realm/profile_fields", order=order))
    assert [f["id"] for f in admin.ok("GET", "/realm/profile_fields")["custom_fields"]] == order
    assert_error(admin.patch("/realm/profile_fields", order=order[1:]), "Invalid order mapping.")
    assert_error(
        admin.patch("/realm/profile_fields", order=[*order[1:], 99999]), "Invalid order mapping."
    )
    admin.ok("PATCH", "/users/me/profile_data", data=[{"id": field_id, "value": "B12"}])
    verify(member, lambda: admin.ok("DELETE", f"/realm/profile_fields/{field_id}"))
    assert field_id not in fields_by_id(admin)
    assert_error(
        admin.delete(f"/realm/profile_fields/{field_id}"), f"Field id {field_id} not found."
    )


def test_setting_values_of_every_type(admin: Api, member: Api) -> None:
    ids = {
        kind: create(admin, field_type=kind, name=f"Value type {kind}", **extra)
        for kind, extra in [
            (1, {}),
            (2, {}),
            (3, {"field_data": CHOICES}),
            (4, {}),
            (5, {}),
            (6, {}),
            (7, {"field_data": {"subtype": "twitter"}}),
            (8, {}),
        ]
    }
    data = [
        {"id": ids[1], "value": "*Bold* name"},
        {"id": ids[2], "value": "Line one\n\nLine two"},
        {"id": ids[3], "value": "b"},
        {"id": ids[4], "value": "2000-01-02"},
        {"id": ids[5], "value": "https://example.com/me"},
        {"id": ids[6], "value": [admin.user_id]},  # type: ignore[attr-defined]
        {"id": ids[7], "value": "zulip"},
        {"id": ids[8], "value": "they/them"},
    ]
    sent = verify(admin, lambda: member.ok("PATCH", "/users/me/profile_data", data=data))
    values = [e["person"]["custom_profile_field"] for e in sent]
    assert [v["id"] for v in values] == [d["id"] for d in data]
    assert values[0]["rendered_value"] == "<p><em>Bold</em> name</p>"
    assert "rendered_value" in values[1] and "rendered_value" not in values[2]
    assert values[5]["value"] == f"[{admin.user_id}]"  # type: ignore[attr-defined]
    listed = admin.ok("GET", "/users", include_custom_profile_fields=True)["members"]
    [mine] = [m for m in listed if m["user_id"] == member.user_id]  # type: ignore[attr-defined]
    assert mine["profile_data"][str(ids[3])] == {"value": "b"}
    assert mine["profile_data"][str(ids[1])]["value"] == "*Bold* name"
    assert "profile_data" not in admin.ok("GET", "/users")["members"][0]
    one = admin.ok("GET", f"/users/{member.user_id}", include_custom_profile_fields=True)["user"]  # type: ignore[attr-defined]
    assert one["profile_data"] == mine["profile_data"]
    # Changing nothing sends nothing; removing sends a null value.
    assert verify(admin, lambda: member.ok("PATCH", "/users/me/profile_data", data=data[:1])) == []
    removed = verify(admin, lambda: member.ok("DELETE", "/users/me/profile_data", data=[ids[8]]))
    assert removed[0]["person"]["custom_profile_field"] == {"id": ids[8], "value": None}


def test_value_errors(admin: Api, member: Api) -> None:
    ids = {
        kind: create(
            admin,
            field_type=kind,
            name=f"Checked type {kind}",
            **({"field_data": CHOICES} if kind == 3 else {}),
        )
        for kind in (1, 3, 4, 5, 6)
    }
    gone_email = "gone@example.com"
    admin.ok("POST", "/users", email=gone_email, password="pw-123456", full_name="Gone")
    gone_id = admin.ok("GET", f"/users/{gone_email}")["user"]["user_id"]
    admin.ok("DELETE", f"/users/{gone_id}")
    cases = [
        ([{"id": ids[1], "value": "x" * 51}], "Checked type 1 is too long (limit: 50 characters)"),
        ([{"id": ids[1], "value": 5}], "Checked type 1 is not a string"),
        ([{"id": ids[3], "value": "zz"}], "'zz' is not a valid choice for 'Checked type 3'."),
        ([{"id": ids[4], "value": "02/01/2000"}], "Checked type 4 is not a date"),
        ([{"id": ids[5], "value": "not a link"}], "Checked type 5 is not a URL"),
        ([{"id": ids[6], "value": "me"}], "User IDs is not a list"),
        ([{"id": ids[6], "value": [999999]}], "Invalid user ID: 999999"),
        ([{"id": ids[6], "value": [gone_id]}], f"User with ID {gone_id} is deactivated"),
        ([{"id": 99999, "value": "x"}], "Field id 99999 not found."),
        (["x"], "data[0] is not a dict"),
        ([{"id": ids[1]}], "value key is missing from data[0]"),
    ]
    for data, msg in cases:
        assert_error(member.patch("/users/me/profile_data", data=data), msg)
    assert_error(member.patch("/users/me/profile_data", data="{"), "data is not valid JSON")
    assert_error(member.delete("/users/me/profile_data", data=[99999]), "Field id 99999 not found.")


def test_fields_not_editable_by_users(admin: Api, member: Api) -> None:
    locked = create(admin, field_type=1, name="Badge number", editable_by_user=False)
    assert_error(
        member.patch("/users/me/profile_data", data=[{"id": locked, "value": "7"}]), NOT_EDITABLE
    )
    assert_error(member.delete("/users/me/profile_data", data=[locked]), NOT_EDITABLE)
    queue = register(member)
    admin.ok("PATCH", f"/users/{member.user_id}", profile_data=[{"id": locked, "value": "42"}])  # type: ignore[attr-defined]
    [event] = events(member, queue, type="realm_user")
    assert event["person"]["custom_profile_field"]["value"] == "42"
    admin.ok("PATCH", f"/users/{member.user_id}", profile_data=[{"id": locked, "value": None}])  # type: ignore[attr-defined]
    me = member.ok("GET", f"/users/{member.user_id}", include_custom_profile_fields=True)["user"]  # type: ignore[attr-defined]
    assert str(locked) not in me["profile_data"]
    assert_error(
        admin.patch(f"/users/{member.user_id}", profile_data=[{"id": locked, "value": "x" * 51}]),  # type: ignore[attr-defined]
        "Badge number is too long (limit: 50 characters)",
    )


def test_dropping_a_dropdown_choice_clears_its_values(admin: Api, member: Api) -> None:
    team = create(admin, field_type=3, name="Squad", field_data=CHOICES)
    member.ok("PATCH", "/users/me/profile_data", data=[{"id": team, "value": "a"}])
    sent = verify(
        member,
        lambda: admin.ok("PATCH", f"/realm/profile_fields/{team}", field_data={"b": CHOICES["b"]}),
    )
    persons = [e["person"] for e in sent if e["type"] == "realm_user"]
    assert persons == [
        {"user_id": member.user_id, "custom_profile_field": {"id": team, "value": None}}
    ]  # type: ignore[attr-defined]
