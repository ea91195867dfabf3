"""Browser sessions of the web client, over HTTP against a real server: the log-in form and its
limits, the session and CSRF cookies, /json/... served by the API's handlers with the session and
a CSRF token, the app shell with its Content-Security-Policy, static assets, log-out, and what
ends a session (password change, deactivation)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import httpx
import pytest

from tests.conftest import TEST_PASSWORD, unique_email
from tests.support.api import Api, assert_error, assert_success
from tests.support.server import ServerProcess
from tests.support.web import browser, join, log_in


@pytest.fixture
def person(server: ServerProcess, make_user: Callable[..., Api]) -> Api:
    return make_user("Web Person")


@pytest.fixture
def session(server: ServerProcess, person: Api) -> Iterator[httpx.Client]:
    """A browser logged in as `person`."""
    with browser(server.url) as client:
        response = log_in(client, str(person.email), TEST_PASSWORD)
        assert response.status_code == 303 and response.headers["location"] == "/"
        yield client


def set_cookies(response: httpx.Response) -> dict[str, str]:
    """Set-Cookie headers by cookie name (the whole header, attributes included)."""
    return {h.split("=", 1)[0]: h for h in response.headers.get_list("set-cookie")}


def csrf(client: httpx.Client) -> dict[str, str]:
    return {"X-CSRFToken": client.cookies["csrftoken"]}


def test_root_redirects_to_the_login_page_without_a_session(server: ServerProcess) -> None:
    with browser(server.url) as client:
        response = client.get("/")
        assert response.status_code == 302 and response.headers["location"] == "/login/"
        page = client.get("/login/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert 'action="/login/"' in page.text and 'name="password"' in page.text
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert "<style" not in page.text and "<script" not in page.text


def test_login_sets_an_httponly_lax_session_cookie(server: ServerProcess, person: Api) -> None:
    with browser(server.url) as client:
        response = log_in(client, str(person.email), TEST_PASSWORD)
        assert response.status_code == 303 and response.headers["location"] == "/"
        cookies = set_cookies(response)
        session, token = cookies["sessionid"].lower(), cookies["csrftoken"].lower()
        assert "httponly" in session and "samesite=lax" in session and "path=/" in session
        assert "secure" not in session  # plain http on loopback
        assert "httponly" not in token and "samesite=lax" in token
        # Logged in: / is the app, and /login/ sends back to it.
        assert client.get("/login/").headers["location"] == "/"
        assert client.get("/").status_code == 200


def test_login_behind_https_sets_secure_cookies(server: ServerProcess, person: Api) -> None:
    with browser(server.url) as client:
        client.headers["X-Forwarded-Proto"] = "https"
        response = log_in(client, str(person.email), TEST_PASSWORD)
    assert response.status_code == 303
    for header in set_cookies(response).values():
        assert "; secure" in header.lower(), header


def test_wrong_password_shows_the_form_again_and_creates_no_session(
    server: ServerProcess, person: Api
) -> None:
    with browser(server.url) as client:
        response = log_in(client, str(person.email), "not-the-password")
        assert response.status_code == 401
        assert "Your username or password is incorrect" in response.text
        assert f'value="{person.email}"' in response.text
        assert "sessionid" not in client.cookies
        assert client.get("/").status_code == 302


def test_login_form_counts_against_the_fetch_api_key_limits(start_server) -> None:  # type: ignore[no-untyped-def]
    proc = start_server(env={"TEAMCHAT_AUTH_RATE_LIMIT": "2/600"})
    with browser(proc.url) as client:
        for _ in range(2):
            assert log_in(client, proc.owner_email, "wrong-guess").status_code == 401
        limited = log_in(client, proc.owner_email, "wrong-guess")
        assert limited.status_code == 429 and "Too many failed attempts" in limited.text
        # The same counter as POST /fetch_api_key: locked there too, right password or not.
        with Api(proc.url) as anonymous:
            assert_error(
                anonymous.post("/fetch_api_key", username=proc.owner_email, password="x"),
                "API usage exceeded rate limit",
                "RATE_LIMIT_HIT",
                429,
            )
        assert "sessionid" not in client.cookies


def test_login_posted_from_another_site_is_refused(server: ServerProcess, person: Api) -> None:
    with browser(server.url) as client:
        client.headers["Origin"] = "https://evil.example"
        response = log_in(client, str(person.email), TEST_PASSWORD)
    assert_error(response, "CSRF error: Origin checking failed.", "CSRF_FAILED", 403)
    assert "sessionid" not in set_cookies(response)


def test_json_serves_the_api_with_the_session(session: httpx.Client, person: Api) -> None:
    me = assert_success(session.get("/json/users/me"))
    assert me["email"] == person.ok("GET", "/users/me")["email"]
    # /api/v1 stays HTTP Basic only: the cookie is not credentials there.
    assert_error(
        session.get("/api/v1/users/me"),
        "Not logged in: API authentication or user session required",
        "UNAUTHORIZED",
        401,
    )


def test_json_without_a_session_is_unauthorized_without_a_basic_challenge(
    server: ServerProcess, person: Api
) -> None:
    response = httpx.get(
        f"{server.url}/json/users/me", auth=(str(person.email), str(person.api_key)), timeout=30
    )
    assert_error(
        response, "Not logged in: API authentication or user session required", "UNAUTHORIZED", 401
    )
    assert response.headers["www-authenticate"] == "Session"
    with browser(server.url) as client:
        client.cookies.set("sessionid", "forged")
        assert client.get("/json/users/me").status_code == 401


def _stream_id(api: Api) -> int:
    subs = api.ok("GET", "/users/me/subscriptions")["subscriptions"]
    if not subs:
        api.ok("POST", "/users/me/subscriptions", subscriptions=[{"name": "web tests"}])
        subs = api.ok("GET", "/users/me/subscriptions")["subscriptions"]
    return int(subs[0]["stream_id"])


def test_json_writes_need_the_csrf_token(session: httpx.Client, person: Api) -> None:
    stream_id = _stream_id(person)
    message = {"type": "stream", "to": str(stream_id), "topic": "csrf", "content": "forged?"}
    before = person.ok("GET", "/messages", anchor="newest", num_before=1, num_after=0)
    missing = session.post("/json/messages", data=message)
    body = assert_error(missing, "CSRF error: CSRF token missing.", "CSRF_FAILED", 403)
    assert body["reason"] == "CSRF token missing."
    wrong = session.post("/json/messages", data=message, headers={"X-CSRFToken": "x" * 43})
    assert_error(wrong, "CSRF error: CSRF token incorrect.", "CSRF_FAILED", 403)
    after = person.ok("GET", "/messages", anchor="newest", num_before=1, num_after=0)
    assert after["messages"] == before["messages"]  # nothing was sent
    sent = assert_success(session.post("/json/messages", data=message, headers=csrf(session)))
    latest = person.ok("GET", "/messages", anchor="newest", num_before=1, num_after=0)
    assert latest["messages"][-1]["id"] == sent["id"]


BROWSER_UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0"


def test_json_requests_are_zulips_web_app_for_client_rules(
    session: httpx.Client, person: Api
) -> None:
    """Sent from the web client to a conversation it is not viewing, a message is read for its
    sender at once (Zulip's read_by_sender for `website`), whatever the browser calls itself;
    an API client's message with the same User-Agent stays unread."""
    stream_id = _stream_id(person)
    message = {"type": "stream", "to": str(stream_id), "topic": "web", "content": "from a tab"}
    headers = {**csrf(session), "User-Agent": BROWSER_UA}
    sent = assert_success(session.post("/json/messages", data=message, headers=headers))
    stored = person.ok("GET", f"/messages/{sent['id']}")
    assert stored["message"]["client"] == "website"
    assert "read" in stored["message"]["flags"]
    # The same browser name over HTTP Basic is an API client named after its User-Agent.
    with httpx.Client(
        base_url=f"{str(session.base_url).rstrip('/')}/api/v1",
        auth=(str(person.email), str(person.api_key)),
        headers={"User-Agent": BROWSER_UA},
    ) as api:
        by_api = assert_success(api.post("/messages", data={**message, "content": "by api"}))
    stored = person.ok("GET", f"/messages/{by_api['id']}")
    assert stored["message"]["client"] == "Mozilla"
    assert "read" not in stored["message"]["flags"]
    # Zulip's desktop apps keep their own name (and are read by sender by their own rule).
    desktop = {**csrf(session), "User-Agent": "ZulipElectron/5.11.1 Chrome/120.0"}
    by_app = assert_success(session.post("/json/messages", data=message, headers=desktop))
    assert person.ok("GET", f"/messages/{by_app['id']}")["message"]["client"] == "ZulipElectron"


def test_json_register_and_events_deliver_live_messages(session: httpx.Client, person: Api) -> None:
    stream_id = _stream_id(person)
    queue = assert_success(
        session.post("/json/register", data={"event_types": '["message"]'}, headers=csrf(session))
    )
    sent = person.ok("POST", "/messages", type="stream", to=stream_id, topic="live", content="hi")
    events = assert_success(
        session.get(
            "/json/events",
            params={"queue_id": queue["queue_id"], "last_event_id": "-1", "dont_block": "true"},
        )
    )["events"]
    assert [e["message"]["id"] for e in events if e["type"] == "message"] == [sent["id"]]


def test_app_shell_has_a_strict_csp_and_cache_busted_assets(session: httpx.Client) -> None:
    page = session.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    policy = page.headers["content-security-policy"]
    assert "script-src 'self';" in policy and "style-src 'self';" in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["cache-control"] == "no-store"
    script = re.search(r'<script type="module" src="(/static/([0-9a-f]+)/js/main\.js)">', page.text)
    assert script, page.text
    assert "<script>" not in page.text and " style=" not in page.text
    asset = session.get(script.group(1))
    assert asset.status_code == 200 and asset.headers["content-encoding"] == "gzip"
    assert asset.headers["content-type"].startswith("text/javascript")
    assert "import " in asset.text  # httpx decoded the gzip
    plain = session.get(script.group(1), headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and plain.content == asset.content
    assert "immutable" in asset.headers["cache-control"]
    assert "max-age=31536000" in asset.headers["cache-control"]
    # Another version or an unknown file is not served (a stale page must not mix versions).
    assert session.get("/static/0000000000000000/js/main.js").status_code == 404
    assert session.get(f"/static/{script.group(2)}/js/nope.js").status_code == 404
    assert session.get(f"/static/{script.group(2)}/../../pyproject.toml").status_code == 404


def test_logout_needs_the_csrf_token_and_ends_the_session(session: httpx.Client) -> None:
    assert_error(
        session.post("/accounts/logout/"), "CSRF error: CSRF token missing.", "CSRF_FAILED", 403
    )
    assert_success(session.get("/json/users/me"))  # still logged in
    token = session.cookies["sessionid"]
    response = session.post("/accounts/logout/", headers=csrf(session))
    assert response.status_code == 303 and response.headers["location"] == "/login/"
    assert "sessionid" not in session.cookies
    session.cookies.set("sessionid", token)  # a kept copy of the cookie is dead too
    assert session.get("/json/users/me").status_code == 401
    assert session.get("/").headers["location"] == "/login/"


def test_password_change_ends_the_session(session: httpx.Client, person: Api) -> None:
    person.ok("PATCH", "/settings", old_password=TEST_PASSWORD, new_password="a-new-password-1")
    assert_error(
        session.get("/json/users/me"),
        "Not logged in: API authentication or user session required",
        "UNAUTHORIZED",
        401,
    )


def test_password_change_in_the_browser_keeps_that_session_only(
    server: ServerProcess, session: httpx.Client, person: Api
) -> None:
    with browser(server.url) as other_tab:
        assert log_in(other_tab, str(person.email), TEST_PASSWORD).status_code == 303
        wrong = session.patch(
            "/json/settings",
            data={"old_password": "not-it", "new_password": "a-new-password-2"},
            headers=csrf(session),
        )
        assert_error(wrong, "Wrong password!")
        assert_success(other_tab.get("/json/users/me"))  # nothing changed
        changed = session.patch(
            "/json/settings",
            data={"old_password": TEST_PASSWORD, "new_password": "a-new-password-2"},
            headers=csrf(session),
        )
        assert_success(changed)
        assert_success(session.get("/json/users/me"))  # Zulip's update_session_auth_hash
        assert other_tab.get("/json/users/me").status_code == 401  # every other session ended
    anonymous = Api(server.url)
    assert_error(
        anonymous.post("/fetch_api_key", username=person.email, password=TEST_PASSWORD),
        "Your username or password is incorrect",
        "AUTHENTICATION_FAILED",
        401,
    )
    assert_success(
        anonymous.post("/fetch_api_key", username=person.email, password="a-new-password-2")
    )
    anonymous.close()


def test_deactivation_ends_the_session(session: httpx.Client, person: Api, owner: Api) -> None:
    user_id = person.ok("GET", "/users/me")["user_id"]
    owner.ok("DELETE", f"/users/{user_id}")
    answer = session.get("/json/users/me")
    assert_error(answer, "Account is deactivated", "USER_DEACTIVATED", 401)
    # No Basic challenge: a browser would pop up a password dialog over the web client and
    # hold its request, instead of letting the client go to the log-in page.
    assert answer.headers["www-authenticate"] == "Session"
    assert session.get("/").headers["location"] == "/login/"
    # Logging in again: the form says the account is deactivated and who can undo it.
    refused = log_in(session, str(person.email), TEST_PASSWORD)
    assert refused.status_code == 401
    assert (
        f"Your account {person.email} has been deactivated. Ask an administrator of the"
        " organization to reactivate it." in refused.text
    )


def test_signing_up_through_a_link_ends_logged_in_in_the_client(
    server: ServerProcess, owner: Api
) -> None:
    link = owner.ok("POST", "/invites/multiuse")["invite_link"]
    email = unique_email("joiner")
    with httpx.Client(timeout=30) as client:
        response = client.post(
            link, data={"email": email, "full_name": "Web Joiner", "password": TEST_PASSWORD}
        )
        assert response.status_code == 303 and response.headers["location"] == "/"
        assert "httponly" in set_cookies(response)["sessionid"].lower()
        assert client.get(f"{server.url}/").status_code == 200
        me = assert_success(client.get(f"{server.url}/json/users/me"))
        assert me["full_name"] == "Web Joiner"
    # The API key page (linked from the client's settings) shows a working key.
    page = join(
        owner.ok("POST", "/invites/multiuse")["invite_link"],
        email=unique_email(),
        full_name="Key Reader",
        password=TEST_PASSWORD,
    )
    key = re.search(r'<code id="api_key">([^<]+)</code>', page.text)
    assert key and "site=" in page.text
    assert httpx.get(f"{server.url}/accounts/api_key/", timeout=30).headers["location"] == "/login/"


def test_uploads_in_message_html_load_with_the_session(
    server: ServerProcess, session: httpx.Client, person: Api
) -> None:
    from tests.test_uploads import PNG, upload

    url = upload(person, "pic.png", PNG)["url"]
    shown = session.get(url)
    assert shown.status_code == 200 and shown.content == PNG
    assert shown.headers["x-content-type-options"] == "nosniff"
    # Without a session (or with a dead one) it stays private.
    anonymous = httpx.get(f"{server.url}{url}", timeout=30)
    assert_error(
        anonymous, "Not logged in: API authentication or user session required", "UNAUTHORIZED", 401
    )
    with browser(server.url) as other:
        other.cookies.set("sessionid", "forged")
        assert other.get(url).status_code == 401


def test_favicon_and_zulips_unversioned_images_are_served(server: ServerProcess) -> None:
    with browser(server.url) as client:
        icon = client.get("/favicon.ico")
        assert icon.status_code == 200 and icon.headers["content-type"] == "image/png"
        assert icon.content.startswith(b"\x89PNG\r\n\x1a\n")
        page = client.get("/login/")
        assert '<link rel="icon" href="/favicon.ico"' in page.text
        svg = client.get("/static/images/favicon.svg")
        assert svg.status_code == 200 and svg.headers["content-type"] == "image/svg+xml"
        # The placeholder Zulip's message HTML shows while a thumbnail is being made.
        loader = client.get("/static/images/loading/loader-black.svg")
        assert loader.status_code == 200 and b"<svg" in loader.content
        assert client.get("/static/images/../app.css").status_code == 404
        assert client.get("/static/images/nothing.png").status_code == 404
