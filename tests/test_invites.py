"""Invitations end to end: reusable links, email invitations, and joining through a link."""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import httpx
import pytest

from tests.support import rawdb, web
from tests.support.api import Api, assert_error, assert_success
from tests.support.org import Watcher, user_with_role
from tests.support.server import ServerProcess
from tests.support.smtp import SmtpRecorder
from tests.test_events import check_event_schema

DEFAULT_MINUTES = 14400


@pytest.fixture(scope="module")
def admin(server: ServerProcess) -> Api:
    return user_with_role(server, "admin")


def key_of(link: str) -> str:
    match = re.fullmatch(r".*/join/([a-z0-9]+)/", link)
    assert match, link
    return match.group(1)


def invite_id(api: Api, link: str) -> int:
    invites = api.ok("GET", "/invites")["invites"]
    return next(i["id"] for i in invites if i.get("link_url") == link)


def join(server: ServerProcess, link: str, **form: str) -> httpx.Response:
    return web.join(link, **form)


def test_admin_creates_a_link_with_the_default_expiry(
    admin: Api, server: ServerProcess, make_user: Callable[..., Api], owner: Api
) -> None:
    watcher = Watcher(owner, ["invites_changed"])
    before = int(time.time())
    body = admin.ok("POST", "/invites/multiuse", bogus=1)
    assert body["ignored_parameters_unsupported"] == ["bogus"]
    link = body["invite_link"]
    assert link.startswith(f"{server.url}/join/") and key_of(link)
    entry = next(i for i in admin.ok("GET", "/invites")["invites"] if i.get("link_url") == link)
    assert entry["is_multiuse"] is True and entry["invited_as"] == 400
    assert (
        before + DEFAULT_MINUTES * 60
        <= entry["expiry_date"]
        <= int(time.time()) + DEFAULT_MINUTES * 60
    )
    events = watcher.events()
    assert [e["type"] for e in events] == ["invites_changed"]
    check_event_schema(events[0])
    # Members do not see invitations that are not theirs.
    assert make_user().ok("GET", "/invites")["invites"] == []


def test_null_expiry_never_expires(admin: Api) -> None:
    link = admin.ok("POST", "/invites/multiuse", invite_expires_in_minutes=None)["invite_link"]
    # The python client drops None values: send JSON null explicitly.
    link = admin.ok("POST", "/invites/multiuse", invite_expires_in_minutes="null")["invite_link"]
    entry = next(i for i in admin.ok("GET", "/invites")["invites"] if i.get("link_url") == link)
    assert entry["expiry_date"] is None
    assert_error(
        admin.post("/invites/multiuse", invite_expires_in_minutes=0),
        "Invalid invite_expires_in_minutes",
    )


def test_permission_to_create_links(owner: Api, make_user: Callable[..., Api]) -> None:
    member = make_user()
    assert_error(member.post("/invites/multiuse"), "Insufficient permission")
    groups = owner.ok("GET", "/user_groups")["user_groups"]
    members_id = next(g["id"] for g in groups if g["name"] == "role:members")
    admins_id = next(g["id"] for g in groups if g["name"] == "role:administrators")
    owner.ok("PATCH", "/realm", create_multiuse_invite_group={"new": members_id})
    try:
        # Since feature level 209, non-administrators with permission may create links.
        assert member.ok("POST", "/invites/multiuse")["invite_link"]
        assert_error(
            member.post("/invites/multiuse", invite_as=300), "Must be an organization administrator"
        )
    finally:
        owner.ok("PATCH", "/realm", create_multiuse_invite_group={"new": admins_id})


def test_roles_no_higher_than_the_requesters(server: ServerProcess, admin: Api, owner: Api) -> None:
    assert_error(
        admin.post("/invites/multiuse", invite_as=100),
        "Must be an organization owner",
        "UNAUTHORIZED_PRINCIPAL",
    )
    for role in (200, 300, 400, 600):
        assert admin.ok("POST", "/invites/multiuse", invite_as=role)["invite_link"]
    assert owner.ok("POST", "/invites/multiuse", invite_as=100)["invite_link"]
    assert_error(admin.post("/invites/multiuse", invite_as=123), "Invalid invite_as")
    moderator = user_with_role(server, "moderator")
    groups = owner.ok("GET", "/user_groups")["user_groups"]
    moderators_id = next(g["id"] for g in groups if g["name"] == "role:moderators")
    admins_id = next(g["id"] for g in groups if g["name"] == "role:administrators")
    owner.ok("PATCH", "/realm", create_multiuse_invite_group={"new": moderators_id})
    try:
        # SPEC: a role equal to the requester's own is allowed.
        assert moderator.ok("POST", "/invites/multiuse", invite_as=300)["invite_link"]
        assert_error(
            moderator.post("/invites/multiuse", invite_as=200),
            "Must be an organization administrator",
        )
    finally:
        owner.ok("PATCH", "/realm", create_multiuse_invite_group={"new": admins_id})


def test_channels_groups_and_welcome_text(
    server: ServerProcess, admin: Api, make_user: Callable[..., Api]
) -> None:
    assert_error(
        admin.post("/invites/multiuse", stream_ids=[99999]),
        "Invalid channel ID 99999. No invites were sent.",
    )
    assert_error(admin.post("/invites/multiuse", group_ids=[99999]), "Invalid user group")
    stranger = make_user()
    theirs = stranger.ok(
        "POST", "/user_groups/create", name=f"theirs {time.time()}", description="", members=[]
    )["group_id"]
    assert_error(admin.post("/invites/multiuse", group_ids=[theirs]), "Insufficient permission")
    assert_error(
        admin.post("/invites/multiuse", welcome_message_custom_text="w" * 8001),
        "welcome_message_custom_text is too long (limit: 8000 characters)",
    )
    link = admin.ok("POST", "/invites/multiuse", welcome_message_custom_text="Hi!")["invite_link"]
    stored = rawdb.one(
        server.db,
        "SELECT welcome_message_custom_text FROM invitation WHERE key = ?",
        (key_of(link),),
    )
    assert stored == ("Hi!",)


def test_non_admins_welcome_text_is_always_null(server: ServerProcess, owner: Api) -> None:
    moderator = user_with_role(server, "moderator")
    groups = owner.ok("GET", "/user_groups")["user_groups"]
    moderators_id = next(g["id"] for g in groups if g["name"] == "role:moderators")
    admins_id = next(g["id"] for g in groups if g["name"] == "role:administrators")
    owner.ok("PATCH", "/realm", create_multiuse_invite_group={"new": moderators_id})
    try:
        link = moderator.ok("POST", "/invites/multiuse", welcome_message_custom_text="Hey")[
            "invite_link"
        ]
    finally:
        owner.ok("PATCH", "/realm", create_multiuse_invite_group={"new": admins_id})
    stored = rawdb.one(
        server.db,
        "SELECT welcome_message_custom_text FROM invitation WHERE key = ?",
        (key_of(link),),
    )
    assert stored == (None,)


def test_guests_and_bots_cannot_invite(server: ServerProcess) -> None:
    guest = user_with_role(server, "guest")
    assert_error(guest.post("/invites/multiuse"), "Not allowed for guest users")
    assert_error(guest.get("/invites"), "Not allowed for guest users")
    bot = user_with_role(server, "member", bot=True)
    assert_error(bot.post("/invites/multiuse"), "This endpoint does not accept bot requests.")


def test_signing_up_through_a_link_gives_a_working_api_key(
    server: ServerProcess, admin: Api, owner: Api
) -> None:
    group_id = admin.ok(
        "POST", "/user_groups/create", name=f"joiners {time.time()}", description="", members=[]
    )["group_id"]
    link = admin.ok("POST", "/invites/multiuse", invite_as=300, group_ids=[group_id])["invite_link"]
    page = httpx.get(link, timeout=30)
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert '<form method="post"' in page.text and 'name="password"' in page.text
    watcher = Watcher(owner, ["realm_user", "user_group", "realm_user_groups", "invites_changed"])
    email = f"joiner{int(time.time() * 1000)}@example.com"
    response = join(server, link, email=email, full_name="New Joiner", password="a-good-pass")
    assert response.status_code == 200, response.text
    api_key = re.search(r'<code id="api_key">([^<]+)</code>', response.text)
    assert api_key and f"site={server.url}" in response.text
    with Api(server.url, email, api_key.group(1)) as joined:
        me = joined.ok("GET", "/users/me")
        assert me["role"] == 300 and me["full_name"] == "New Joiner"
        members = joined.ok("GET", f"/user_groups/{group_id}/members")["members"]
        assert me["user_id"] in members
        welcome = joined.ok(
            "GET", "/messages", anchor="newest", num_before=5, num_after=0, narrow=[["is", "dm"]]
        )["messages"]
        assert [m["sender_full_name"] for m in welcome] == ["Welcome Bot"]
        assert "welcome to" in welcome[0]["content"]
    events = watcher.events()
    assert events[0]["type"] == "realm_user"
    assert {"type": "user_group", "group_id": group_id} in [
        {"type": e["type"], "group_id": e.get("group_id")}
        for e in events
        if e.get("op") == "add_members"
    ]
    for event in events:
        check_event_schema(event)
    watcher.check(events, ["realm_user_groups"])
    # The link stays valid for others; the same address cannot join twice.
    again = join(server, link, email=email, full_name="Again", password="a-good-pass")
    assert again.status_code == 400 and "already in use" in again.text
    weak = join(server, link, email="weak@example.com", full_name="Weak", password="123")
    assert weak.status_code == 400 and 'class="problem"' in weak.text


def test_revoked_and_expired_links_show_a_clear_page(server: ServerProcess, admin: Api) -> None:
    link = admin.ok("POST", "/invites/multiuse")["invite_link"]
    admin.ok("DELETE", f"/invites/multiuse/{invite_id(admin, link)}")
    page = httpx.get(link, timeout=30)
    assert page.status_code == 404 and "revoked" in page.text
    tried = join(server, link, email="late@example.com", full_name="Late", password="a-good-pass")
    assert tried.status_code == 404 and "revoked" in tried.text
    expiring = admin.ok("POST", "/invites/multiuse", invite_expires_in_minutes=5)["invite_link"]
    the_id = invite_id(admin, expiring)
    rawdb.query(  # let five minutes pass
        server.db,
        "UPDATE invitation SET expiry_date = ? WHERE id = ?",
        (int(time.time()) - 1, the_id),
    )
    page = httpx.get(expiring, timeout=30)
    assert page.status_code == 404 and "expired" in page.text
    assert the_id not in [i["id"] for i in admin.ok("GET", "/invites")["invites"]]
    assert httpx.get(f"{server.url}/join/nosuchkey/", timeout=30).status_code == 404


def test_revoking_links(admin: Api, make_user: Callable[..., Api], owner: Api) -> None:
    link = admin.ok("POST", "/invites/multiuse")["invite_link"]
    the_id = invite_id(admin, link)
    assert_error(
        make_user().delete(f"/invites/multiuse/{the_id}"), "Must be an organization administrator"
    )
    owner_link = owner.ok("POST", "/invites/multiuse", invite_as=100)["invite_link"]
    assert_error(
        admin.delete(f"/invites/multiuse/{invite_id(owner, owner_link)}"),
        "Must be an organization owner",
        "UNAUTHORIZED_PRINCIPAL",
    )
    admin.ok("DELETE", f"/invites/multiuse/{the_id}")
    assert_error(admin.delete(f"/invites/multiuse/{the_id}"), "Invitation has already been revoked")
    assert_error(admin.delete("/invites/multiuse/999999"), "No such invitation")


def test_email_invitations(admin: Api, make_user: Callable[..., Api]) -> None:
    stamp = int(time.time() * 1000)
    first, second = f"first{stamp}@example.com", f"second{stamp}@example.com"
    admin.ok("POST", "/invites", invitee_emails=f"{first}, Second <{second}>", stream_ids=[])
    mine = {i["email"]: i for i in admin.ok("GET", "/invites")["invites"] if not i["is_multiuse"]}
    assert mine[first]["notify_referrer_on_join"] is True and mine[first]["invited_as"] == 400
    assert second in mine
    assert_error(
        admin.post("/invites", invitee_emails=first),
        "Missing 'stream_ids' argument",
        "REQUEST_VARIABLE_MISSING",
    )
    assert_error(
        admin.post("/invites", invitee_emails="", stream_ids=[]),
        "You must specify at least one email address.",
    )
    body = assert_error(
        admin.post("/invites", invitee_emails="not-an-email", stream_ids=[]),
        "Some emails did not validate, so we didn't send any invitations.",
        "INVITATION_FAILED",
    )
    assert body["errors"] == [["not-an-email", "Invalid address.", False]]
    existing = make_user()
    body = assert_error(
        admin.post("/invites", invitee_emails=existing.email, stream_ids=[]),
        "We weren't able to invite anyone.",
        "INVITATION_FAILED",
    )
    assert body["errors"] == [[existing.email, "Already has an account.", False]]
    assert body["sent_invitations"] is False
    body = assert_error(
        admin.post(
            "/invites", invitee_emails=f"{existing.email}\nthird{stamp}@example.com", stream_ids=[]
        ),
        None,
        "INVITATION_FAILED",
    )
    assert body["sent_invitations"] is True
    # No mail server here: nothing is resent, and the answer says so and gives the link.
    body = assert_error(admin.post(f"/invites/{mine[first]['id']}/resend"), None)
    assert body["msg"].startswith("This server is not set up to send email")
    assert body["invite_link"] in body["msg"] and "/join/" in body["invite_link"]
    admin.ok("DELETE", f"/invites/{mine[first]['id']}")
    assert_error(admin.delete(f"/invites/{mine[first]['id']}"), "No such invitation")
    assert_error(admin.post(f"/invites/{mine[first]['id']}/resend"), "No such invitation")
    assert_error(
        make_user().delete(f"/invites/{mine[second]['id']}"),
        "Must be an organization administrator",
    )
    assert_error(
        make_user().post("/invites", invitee_emails="x@example.com", stream_ids=[], invite_as=200),
        "Must be an organization administrator",
    )


def test_email_invitation_sends_mail_and_joins_once(
    start_server: Callable[..., ServerProcess],
) -> None:
    with SmtpRecorder() as smtp:
        server = start_server(
            env={"TEAMCHAT_SMTP_HOST": "127.0.0.1", "TEAMCHAT_SMTP_PORT": str(smtp.port)}
        )
        with Api(server.url, server.owner_email, server.owner_key) as owner:
            owner.ok(
                "POST",
                "/invites",
                invitee_emails="mailed@example.com",
                stream_ids=[],
                invite_as=600,
            )
            assert len(smtp.messages) == 1
            message = smtp.messages[0]
            assert message["To"] == "mailed@example.com"
            link = re.search(r"(http://\S+/join/[a-z0-9]+/)", message.get_payload())  # type: ignore[arg-type]
            assert link
            invite = owner.ok("GET", "/invites")["invites"][0]
            owner.ok("POST", f"/invites/{invite['id']}/resend")
            assert len(smtp.messages) == 2
            page = httpx.get(link.group(1), timeout=30)
            assert 'value="mailed@example.com" readonly' in page.text
            joined = web.join(
                link.group(1), email="other@example.com", full_name="Mailed", password="a-good-pass"
            )
            assert joined.status_code == 200
            key = re.search(r'<code id="api_key">([^<]+)</code>', joined.text)
            assert key
            with Api(server.url, "mailed@example.com", key.group(1)) as guest:
                assert guest.ok("GET", "/users/me")["role"] == 600
            used = httpx.get(link.group(1), timeout=30)
            assert used.status_code == 404 and "already been used" in used.text
            assert owner.ok("GET", "/invites")["invites"] == []
            # notify_referrer_on_join (default true): the Notification Bot tells the owner.
            notes = owner.ok(
                "GET",
                "/messages",
                anchor="newest",
                num_before=5,
                num_after=0,
                narrow=[["is", "dm"]],
            )["messages"]
            # A fresh organization's owner also has the Welcome Bot's greeting.
            notes = [m for m in notes if m["sender_full_name"] != "Welcome Bot"]
            assert [m["sender_full_name"] for m in notes] == ["Notification Bot"]
            assert "accepted your invitation" in notes[0]["content"]
    assert_success(httpx.get(f"{server.url}/api/v1/server_settings"))


def make_channel(api: Api, name: str, **options: object) -> int:
    api.ok("POST", "/users/me/subscriptions", subscriptions=[{"name": name}], **options)
    return int(api.ok("GET", "/get_stream_id", stream=name)["stream_id"])


def test_invited_channels_and_default_channels(
    server: ServerProcess, admin: Api, owner: Api, make_user: Callable[..., Api]
) -> None:
    stamp = int(time.time() * 1000)
    invited = make_channel(admin, f"invited {stamp}")
    default = make_channel(admin, f"default {stamp}")
    admin.ok("POST", "/default_streams", stream_id=default)
    link = admin.ok(
        "POST", "/invites/multiuse", stream_ids=[invited], include_realm_default_subscriptions=True
    )["invite_link"]
    email = f"channels{stamp}@example.com"
    joined = join(server, link, email=email, full_name="Channel Joiner", password="a-good-pass")
    key = re.search(r'<code id="api_key">([^<]+)</code>', joined.text)
    assert key, joined.text
    with Api(server.url, email, key.group(1)) as newcomer:
        subscribed = {
            s["stream_id"] for s in newcomer.ok("GET", "/users/me/subscriptions")["subscriptions"]
        }
    assert {invited, default} <= subscribed
    # Without include_realm_default_subscriptions only the invited channels are joined.
    link = admin.ok("POST", "/invites/multiuse", stream_ids=[invited])["invite_link"]
    email = f"only{stamp}@example.com"
    joined = join(server, link, email=email, full_name="Only Invited", password="a-good-pass")
    key = re.search(r'<code id="api_key">([^<]+)</code>', joined.text)
    assert key
    with Api(server.url, email, key.group(1)) as newcomer:
        subscribed = {
            s["stream_id"] for s in newcomer.ok("GET", "/users/me/subscriptions")["subscriptions"]
        }
    assert invited in subscribed and default not in subscribed
    admin.ok("DELETE", "/default_streams", stream_id=default)


def test_channel_rules_for_invitations(admin: Api, owner: Api) -> None:
    stamp = int(time.time() * 1000)
    private = make_channel(owner, f"secret {stamp}", invite_only=True)
    assert_error(
        admin.post("/invites/multiuse", stream_ids=[private]),
        f"Invalid channel ID {private}. No invites were sent.",
    )
    public = make_channel(owner, f"public {stamp}")
    default = make_channel(owner, f"defaulted {stamp}")
    owner.ok("POST", "/default_streams", stream_id=default)
    groups = owner.ok("GET", "/user_groups")["user_groups"]
    ids = {g["name"]: g["id"] for g in groups if g["is_system_group"]}
    owner.ok("PATCH", "/realm", create_multiuse_invite_group={"new": ids["role:members"]})
    owner.ok("PATCH", "/realm", can_add_subscribers_group={"new": ids["role:administrators"]})
    try:
        member = user_with_role_for(owner)
        assert_error(
            member.post("/invites/multiuse", stream_ids=[public]),
            "You do not have permission to subscribe other users to channels.",
        )
        # Default channels are allowed, and so are the default subscriptions.
        assert member.ok(
            "POST",
            "/invites/multiuse",
            stream_ids=[default],
            include_realm_default_subscriptions=True,
        )["invite_link"]
    finally:
        owner.ok("PATCH", "/realm", can_add_subscribers_group={"new": ids["role:members"]})
        owner.ok(
            "PATCH", "/realm", create_multiuse_invite_group={"new": ids["role:administrators"]}
        )
        owner.ok("DELETE", "/default_streams", stream_id=default)


def user_with_role_for(owner: Api) -> Api:
    email = f"member{int(time.time() * 1000)}@example.com"
    owner.ok("POST", "/users", email=email, password="pw-123456", full_name="Plain Member")
    with Api(owner.base_url) as anonymous:
        body = assert_success(
            anonymous.post("/fetch_api_key", username=email, password="pw-123456")
        )
    return Api(owner.base_url, email, body["api_key"])


def test_custom_welcome_text(server: ServerProcess, admin: Api) -> None:
    stamp = int(time.time() * 1000)
    texts = {"custom": "Read the **handbook**.", "none": "", "org": None}
    seen = {}
    admin.ok("PATCH", "/realm", welcome_message_custom_text="Organization hello")
    for label, text in texts.items():
        # None is not sent: the organization's text applies.
        link = admin.ok("POST", "/invites/multiuse", welcome_message_custom_text=text)[
            "invite_link"
        ]
        email = f"{label}{stamp}@example.com"
        joined = join(server, link, email=email, full_name=f"Welcomed {label}", password="pw-12345")
        key = re.search(r'<code id="api_key">([^<]+)</code>', joined.text)
        assert key
        with Api(server.url, email, key.group(1)) as newcomer:
            messages = newcomer.ok(
                "GET",
                "/messages",
                anchor="newest",
                num_before=5,
                num_after=0,
                narrow=[["is", "dm"]],
            )["messages"]
        seen[label] = [m["content"] for m in messages]
    admin.ok("PATCH", "/realm", welcome_message_custom_text="")
    assert len(seen["custom"]) == 2 and "<strong>handbook</strong>" in seen["custom"][1]
    assert len(seen["none"]) == 1
    assert len(seen["org"]) == 2 and "Organization hello" in seen["org"][1]


def test_edit_a_reusable_link(
    server: ServerProcess, admin: Api, owner: Api, make_user: Callable[..., Api]
) -> None:
    link = admin.ok("POST", "/invites/multiuse")["invite_link"]
    link_id = invite_id(admin, link)
    owner.ok("POST", "/users/me/subscriptions", subscriptions='[{"name": "edited-invites"}]')
    channel = owner.ok("GET", "/get_stream_id", stream="edited-invites")["stream_id"]
    watcher = Watcher(owner, ["invites_changed"])
    admin.ok("PATCH", f"/invites/multiuse/{link_id}", invite_as=300, stream_ids=f"[{channel}]")
    assert [e["type"] for e in watcher.events()] == ["invites_changed"]
    entry = next(i for i in admin.ok("GET", "/invites")["invites"] if i["id"] == link_id)
    assert entry["invited_as"] == 300
    email = "edited-link@example.com"
    response = join(server, link, email=email, full_name="Edited Joiner", password="a-good-pass")
    api_key = re.search(r'<code id="api_key">([^<]+)</code>', response.text)
    assert api_key, response.text
    with Api(server.url, email, api_key.group(1)) as joined:
        assert joined.ok("GET", "/users/me")["role"] == 300
        names = {s["name"] for s in joined.ok("GET", "/users/me/subscriptions")["subscriptions"]}
        assert "edited-invites" in names
    path = f"/invites/multiuse/{link_id}"
    assert_error(admin.patch(path), "Nothing to change")
    assert_error(
        admin.patch(path, stream_ids="[999999]"), "Invalid channel ID 999999. No invites were sent."
    )
    assert_error(
        admin.patch(path, invite_as=100), "Must be an organization owner", "UNAUTHORIZED_PRINCIPAL"
    )
    member = make_user("Link Editor Member")
    assert_error(member.patch(path, invite_as=400), "Must be an organization administrator")
    assert_error(admin.patch("/invites/multiuse/999999", invite_as=400), "No such invitation")
    entry = next(i for i in admin.ok("GET", "/invites")["invites"] if i["id"] == link_id)
    assert entry["invited_as"] == 300
