"""Bots: POST/GET /users/me/bots, PATCH/DELETE /bots/{id}, regenerating their API keys."""

from __future__ import annotations

import json
import uuid

from tests.support import rawdb
from tests.support.api import Api, assert_error
from tests.support.people import bot_api, events, make_role_user, register, verify
from tests.support.server import ServerProcess


def short() -> str:
    return f"b{uuid.uuid4().hex[:8]}"


def create_bot(api: Api, **params: object) -> dict:  # type: ignore[type-arg]
    params.setdefault("full_name", f"Bot {uuid.uuid4().hex[:6]}")
    params.setdefault("short_name", short())
    return api.ok("POST", "/users/me/bots", **params)


def test_a_member_creates_a_generic_bot_that_can_log_in(  # type: ignore[no-untyped-def]
    owner: Api, make_user, server: ServerProcess
) -> None:
    creator = make_user(full_name="Bot Maker")
    admin = make_role_user(owner, make_user, 200, "Bot Admin")
    bystander = make_user(full_name="Bystander")
    queues = {api: register(api) for api in (creator, admin, bystander)}
    name = short()
    results: list[dict] = []  # type: ignore[type-arg]
    verify(admin, lambda: results.append(create_bot(creator, full_name="Helper", short_name=name)))
    body = results[0]
    assert set(body) >= {"user_id", "api_key", "avatar_url", "default_all_public_streams"}
    assert body["default_sending_stream"] is None
    host = admin.ok("POST", "/register", fetch_event_types=["realm"])["realm_bot_domain"]
    bot = bot_api(server.url, body, f"{name}-bot@{host}")
    me = bot.ok("GET", "/users/me")
    assert me["is_bot"] and me["bot_owner_id"] == creator.user_id and me["bot_type"] == 1
    for api, queue in queues.items():
        adds = events(api, queue, type="realm_user", op="add")
        assert [e["person"]["user_id"] for e in adds] == [body["user_id"]]
        bot_adds = events(api, queue, type="realm_bot", op="add")
        expected = [] if api is bystander else [body["user_id"]]
        assert [e["bot"]["user_id"] for e in bot_adds] == expected
    listed = creator.ok("GET", "/users/me/bots")["bots"]
    assert [b["username"] for b in listed] == [f"{name}-bot@{host}"]
    assert listed[0]["api_key"] == body["api_key"] and listed[0]["full_name"] == "Helper"
    bot.close()


def test_the_four_bot_types_and_their_services(owner: Api, make_user) -> None:  # type: ignore[no-untyped-def]
    creator = make_user(full_name="Service Maker")
    queue = register(creator)
    create_bot(creator, bot_type=2, service_name="github")
    create_bot(
        creator, bot_type=3, payload_url=json.dumps("https://hooks.example.com/x"), interface_type=2
    )
    create_bot(creator, bot_type=4, service_name="helloworld", config_data={"greeting": "hi"})
    bot_adds = [e["bot"] for e in events(creator, queue, type="realm_bot", op="add")]
    assert [b["bot_type"] for b in bot_adds] == [2, 3, 4]
    assert bot_adds[0]["services"] == []
    [outgoing] = bot_adds[1]["services"]
    assert outgoing["base_url"] == "https://hooks.example.com/x" and outgoing["interface"] == 2
    assert len(outgoing["token"]) == 32
    assert bot_adds[2]["services"] == [
        {"config_data": {"greeting": "hi"}, "service_name": "helloworld"}
    ]
    state = creator.ok("POST", "/register", fetch_event_types=["realm_bot", "realm_embedded_bots"])
    assert [b["user_id"] for b in state["realm_bots"]] == [b["user_id"] for b in bot_adds]
    assert {"name": "helloworld", "config": {}} in state["realm_embedded_bots"]


def test_bot_creation_errors(owner: Api, make_user) -> None:  # type: ignore[no-untyped-def]
    creator = make_user(full_name="Error Maker")
    taken = short()
    create_bot(creator, full_name="Taken Name", short_name=taken)
    cases = [
        ({"short_name": "  "}, "Bad name or username"),
        ({"short_name": "bad name"}, "Bad name or username"),
        ({"short_name": taken}, "Username already in use"),
        ({"full_name": "Taken Name"}, "Name is already in use!"),
        ({"full_name": "Bad*Name"}, "Invalid characters in name!"),
        ({"bot_type": 9}, "Invalid bot type"),
        ({"bot_type": 3, "interface_type": 7}, "Invalid interface type"),
        ({"bot_type": 3, "payload_url": "not a url"}, "payload_url is not a URL"),
        ({"bot_type": 4, "service_name": "nosuchbot"}, "Invalid embedded bot name."),
        ({"config_data": {"a": 1}}, 'config_data["a"] is not a string'),
    ]
    for extra, msg in cases:
        params = {"full_name": f"Bot {uuid.uuid4().hex[:6]}", "short_name": short(), **extra}
        assert_error(creator.post("/users/me/bots", **params), msg)
    assert_error(
        creator.post("/users/me/bots", short_name=short()),
        "Missing 'full_name' argument",
        "REQUEST_VARIABLE_MISSING",
    )
    guest = make_role_user(owner, make_user, 600, "Guest Maker")
    assert_error(
        guest.post("/users/me/bots", full_name="G Bot", short_name=short()),
        "Not allowed for guest users",
    )


def test_bots_cannot_manage_bots(make_user, server: ServerProcess) -> None:  # type: ignore[no-untyped-def]
    creator = make_user(full_name="Bot Parent")
    name = short()
    body = create_bot(creator, short_name=name)
    host = creator.ok("POST", "/register", fetch_event_types=["realm"])["realm_bot_domain"]
    with bot_api(server.url, body, f"{name}-bot@{host}") as bot:
        assert_error(
            bot.post("/users/me/bots", full_name="Grandchild", short_name=short()),
            "This endpoint does not accept bot requests.",
        )


def test_bot_creation_policy_follows_the_realm_groups(start_server, make_user) -> None:  # type: ignore[no-untyped-def]
    proc = start_server()
    ids = dict(rawdb.query(proc.db, "SELECT name, id FROM user_group WHERE is_system_group = 1"))
    settings = {
        "can_create_bots_group": ids["role:administrators"],
        "can_create_write_only_bots_group": ids["role:members"],
    }
    rawdb.query(proc.db, "UPDATE realm SET settings_json = ?", (json.dumps(settings),))
    with Api(proc.url, proc.owner_email, proc.owner_key) as owner:
        owner.ok("POST", "/users", email="m@example.com", password="pw-123456", full_name="M")
        with Api(proc.url) as anonymous:
            key = anonymous.ok(
                "POST", "/fetch_api_key", username="m@example.com", password="pw-123456"
            )
        with Api(proc.url, "m@example.com", key["api_key"]) as member:
            assert_error(
                member.post("/users/me/bots", full_name="Generic", short_name="generic"),
                "Insufficient permission",
            )
            member.ok("POST", "/users/me/bots", full_name="Hook", short_name="hook", bot_type=2)
        owner.ok("POST", "/users/me/bots", full_name="Admin Bot", short_name="adminbot")


def test_patch_bot_name_owner_and_services(owner: Api, make_user) -> None:  # type: ignore[no-untyped-def]
    creator = make_user(full_name="First Owner")
    heir = make_user(full_name="Second Owner")
    admin = make_role_user(owner, make_user, 200, "Patch Admin")
    body = create_bot(
        creator, bot_type=3, payload_url="https://old.example.com/hook", full_name="Patchable"
    )
    bot_id = body["user_id"]
    renamed = verify(admin, lambda: creator.ok("PATCH", f"/bots/{bot_id}", full_name="Patched"))
    assert {k: renamed[0][k] for k in ("type", "op")} == {"type": "realm_user", "op": "update"}
    assert renamed[1]["bot"] == {"user_id": bot_id, "full_name": "Patched"}
    queues = {api: register(api) for api in (creator, heir, admin)}
    result = verify(
        admin, lambda: creator.ok("PATCH", f"/bots/{bot_id}", bot_owner_id=heir.user_id)
    )
    assert result[0]["person"] == {"user_id": bot_id, "bot_owner_id": heir.user_id}
    assert [e["op"] for e in events(creator, queues[creator], type="realm_bot")] == ["delete"]
    assert [e["op"] for e in events(heir, queues[heir], type="realm_bot")] == ["add"]
    assert [e["bot"] for e in events(admin, queues[admin], type="realm_bot")] == [
        {"user_id": bot_id, "owner_id": heir.user_id}
    ]
    # The old owner no longer administers it; the new one does.
    assert_error(creator.patch(f"/bots/{bot_id}", full_name="Mine"), "Insufficient permission")
    response = heir.ok(
        "PATCH", f"/bots/{bot_id}", service_payload_url=json.dumps("https://new.example.com/hook")
    )
    assert response["service_payload_url"] == "https://new.example.com/hook"
    assert response["bot_owner"] == heir.email
    state = heir.ok("POST", "/register", fetch_event_types=["realm_bot"])
    [mine] = [b for b in state["realm_bots"] if b["user_id"] == bot_id]
    assert mine["services"][0]["base_url"] == "https://new.example.com/hook"


def test_patch_bot_errors(owner: Api, make_user) -> None:  # type: ignore[no-untyped-def]
    creator = make_user(full_name="Patch Errors")
    other_bot = create_bot(creator)
    bot_id = create_bot(creator)["user_id"]
    cases = [
        ({"bot_owner_id": 999999}, "Failed to change owner, no such user"),
        (
            {"bot_owner_id": other_bot["user_id"]},
            "Failed to change owner, bots can't own other bots",
        ),
        (
            {"service_payload_url": "https://x.example.com"},
            "This bot has no outgoing webhook service.",
        ),
        ({"role": 200}, "Must be an organization administrator"),
        ({"role": 7}, "Invalid role"),
    ]
    for params, msg in cases:
        code = "UNAUTHORIZED_PRINCIPAL" if "organization" in msg else "BAD_REQUEST"
        assert_error(creator.patch(f"/bots/{bot_id}", **params), msg, code)
    gone = make_user(full_name="Gone Owner")
    owner.ok("DELETE", f"/users/{gone.user_id}")
    assert_error(
        creator.patch(f"/bots/{bot_id}", bot_owner_id=gone.user_id),
        "Failed to change owner, user is deactivated",
    )
    assert_error(creator.patch(f"/bots/{creator.user_id}", full_name="X"), "No such bot")
    assert_error(creator.patch("/bots/999999", full_name="X"), "No such bot")
    stranger = make_user(full_name="Stranger")
    assert_error(stranger.patch(f"/bots/{bot_id}", full_name="X"), "Insufficient permission")
    owner.ok("PATCH", f"/bots/{bot_id}", role=200)
    body = owner.ok("PATCH", f"/bots/{bot_id}", full_name="Ignored Extra", color="red")
    assert body["ignored_parameters_unsupported"] == ["color"]


def test_regenerate_bot_api_key(make_user, server: ServerProcess) -> None:  # type: ignore[no-untyped-def]
    creator = make_user(full_name="Key Keeper")
    name = short()
    body = create_bot(creator, short_name=name)
    host = creator.ok("POST", "/register", fetch_event_types=["realm"])["realm_bot_domain"]
    email = f"{name}-bot@{host}"
    keys: list[dict] = []  # type: ignore[type-arg]
    sent = verify(
        creator,
        lambda: keys.append(creator.ok("POST", f"/bots/{body['user_id']}/api_key/regenerate")),
    )
    new_key = keys[0]["api_key"]
    assert sent[0]["bot"] == {"user_id": body["user_id"], "api_key": new_key}
    with Api(server.url, email, body["api_key"]) as old:
        assert_error(old.get("/users/me"), "Invalid API key", "UNAUTHORIZED", 401)
    with Api(server.url, email, new_key) as new:
        assert new.ok("GET", "/users/me")["user_id"] == body["user_id"]
    stranger = make_user(full_name="Key Thief")
    assert_error(
        stranger.post(f"/bots/{body['user_id']}/api_key/regenerate"), "Insufficient permission"
    )


def test_deactivating_bots_and_their_owners(owner: Api, make_user, server: ServerProcess) -> None:  # type: ignore[no-untyped-def]
    creator = make_user(full_name="Bot Herder")
    name = short()
    body = create_bot(creator, short_name=name)
    host = creator.ok("POST", "/register", fetch_event_types=["realm"])["realm_bot_domain"]
    bot = bot_api(server.url, body, f"{name}-bot@{host}")
    sent = verify(creator, lambda: creator.ok("DELETE", f"/bots/{body['user_id']}"))
    assert {(e["type"], e["op"]) for e in sent} == {
        ("realm_user", "update"),
        ("realm_bot", "update"),
    }
    assert_error(bot.get("/users/me"), "Account is deactivated", "USER_DEACTIVATED", 401)
    assert creator.ok("GET", "/users/me/bots")["bots"] == []
    # The owner may reactivate their bot.
    creator.ok("POST", f"/users/{body['user_id']}/reactivate")
    assert bot.ok("GET", "/users/me")["is_active"]
    assert_error(owner.delete(f"/users/{body['user_id']}"), "No such user")
    # Deactivating the owner deactivates their bots too.
    observer = make_role_user(owner, make_user, 200, "Cascade Admin")
    sent = verify(observer, lambda: owner.ok("DELETE", f"/users/{creator.user_id}"))
    persons = [e["person"] for e in sent if e["type"] == "realm_user"]
    assert {"user_id": body["user_id"], "is_active": False} in persons
    assert_error(bot.get("/users/me"), "Account is deactivated", "USER_DEACTIVATED", 401)
    bot.close()
