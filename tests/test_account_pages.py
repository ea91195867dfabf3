"""The pages outside the app, over HTTP: security headers on every HTML response (walked from
the app's route table), the browser's 404 page, the styled sign-up page and its password
strength endpoint, the API key page behind a second password entry, and what a password
change ends (other sessions, failed attempts) and keeps (the API key)."""

from __future__ import annotations

import re
from collections.abc import Callable

import httpx
import pytest

from teamchat import http
from teamchat.lib.web_pages import PAGE_HEADERS
from tests.conftest import TEST_PASSWORD, unique_email
from tests.support.api import Api, assert_error, assert_success
from tests.support.server import ServerProcess
from tests.support.web import browser, log_in, show_api_key

HTML_ACCEPT = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
# A value for each path parameter of a root route (enough to reach the handler).
_PARAM_RE = re.compile(r"\{([a-z_]+)(:[a-z]+)?\}")


def assert_page_headers(response: httpx.Response) -> None:
    for name, value in PAGE_HEADERS.items():
        if name in ("Cache-Control", "Referrer-Policy"):
            assert response.headers.get(name), (response.url, name)
        else:
            assert response.headers.get(name) == value, (response.url, name)
    assert "<style" not in response.text and "<script>" not in response.text
    assert " style=" not in response.text


@pytest.fixture
def person(make_user: Callable[..., Api]) -> Api:
    return make_user("Page Person")


def test_every_html_route_sends_the_security_headers(server: ServerProcess, person: Api) -> None:
    paths = sorted(
        {path for handler in http.root_handlers() if "GET" in handler.http_methods
         for path in handler.paths}
    )  # fmt: skip
    html_paths = []
    with browser(server.url) as anonymous, browser(server.url) as logged_in:
        assert log_in(logged_in, str(person.email), TEST_PASSWORD).status_code == 303
        for path in [*paths, "/no/such/page"]:
            url = _PARAM_RE.sub("x", path) + ("/" if "static" not in path else "")
            for client in (anonymous, logged_in):
                response = client.get(url, headers=HTML_ACCEPT)
                if response.headers.get("content-type", "").startswith("text/html"):
                    html_paths.append(path)
                    assert_page_headers(response)
    for expected in ("/", "/login", "/join/{key:str}", "/accounts/api_key",
                     "/accounts/password/reset", "/accounts/password/reset/{token:str}",
                     "/no/such/page"):  # fmt: skip
        assert expected in html_paths, (expected, sorted(set(html_paths)))


def test_unknown_pages_are_html_for_browsers_and_json_for_the_api(server: ServerProcess) -> None:
    page = httpx.get(f"{server.url}/no/such/page", headers=HTML_ACCEPT, timeout=30)
    assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")
    assert "Page not found" in page.text and "/no/such/page" in page.text
    assert 'href="/static/' in page.text  # the app's stylesheet
    for path in ("/api/v1/no/such", "/json/no/such"):
        response = httpx.get(f"{server.url}{path}", headers=HTML_ACCEPT, timeout=30)
        assert response.status_code == 404 and response.json()["result"] == "error"
        assert response.headers["content-type"].startswith("application/json")
    # A script or a tool that does not ask for HTML keeps the JSON answer.
    plain = httpx.get(f"{server.url}/no/such/page", timeout=30)
    assert plain.status_code == 404 and plain.json()["result"] == "error"


def test_signup_page_uses_the_app_styles_and_the_strength_module(
    server: ServerProcess, owner: Api
) -> None:
    link = owner.ok("POST", "/invites/multiuse")["invite_link"]
    page = httpx.get(link, timeout=30)
    assert page.status_code == 200
    css = re.search(r'<link rel="stylesheet" href="(/static/[^"]+/login\.css)"', page.text)
    script = re.search(
        r'<script type="module" src="(/static/[^"]+/password_strength\.js)"', page.text
    )
    assert css and script, page.text
    assert 'data-strength="password-strength"' in page.text and "<meter" in page.text
    module = httpx.get(f"{server.url}{script.group(1)}", timeout=30)
    assert module.status_code == 200 and "javascript" in module.headers["content-type"]
    # A weak password is refused with the reason, and the form keeps what was typed.
    weak = httpx.post(
        link, data={"email": unique_email(), "full_name": "W", "password": "password"}
    )
    assert weak.status_code == 400 and "The password is too weak." in weak.text
    assert "This is a top-10 common password." in weak.text  # zxcvbn's advice, after submit
    assert 'value="W"' in weak.text


def test_password_strength_endpoint_gives_zxcvbn_feedback(server: ServerProcess) -> None:
    url = f"{server.url}/accounts/password/strength/"
    weak = assert_success(httpx.post(url, data={"password": "password"}, timeout=30))
    assert weak["score"] == 0 and weak["acceptable"] is False
    assert weak["warning"] and weak["suggestions"] and weak["problem"]
    strong = assert_success(
        httpx.post(url, data={"password": "violet-kettle-harbor-91"}, timeout=30)
    )
    assert strong["score"] >= 3 and strong["acceptable"] is True and strong["problem"] == ""
    # Longer than zxcvbn takes (72) but within our limit (100): judged, no error.
    long = assert_success(httpx.post(url, data={"password": "a" * 90}, timeout=30))
    assert long["acceptable"] is False and long["warning"]
    too_long = assert_success(httpx.post(url, data={"password": "x" * 101}, timeout=30))
    assert too_long["acceptable"] is False and "at most 100" in too_long["problem"]
    assert_error(
        httpx.post(url, data={}, timeout=30), "Missing 'password' argument",
        "REQUEST_VARIABLE_MISSING",
    )  # fmt: skip


def test_api_key_page_asks_for_the_password_again(server: ServerProcess, person: Api) -> None:
    with browser(server.url) as client:
        assert log_in(client, str(person.email), TEST_PASSWORD).status_code == 303
        first = client.get("/accounts/api_key/")
        assert first.status_code == 200 and str(person.api_key) not in first.text
        assert 'type="password"' in first.text
        # The form is CSRF-checked: a post from elsewhere is refused.
        forged = client.post("/accounts/api_key/", data={"password": TEST_PASSWORD})
        assert forged.status_code == 403 and str(person.api_key) not in forged.text
        wrong = show_api_key(client, server.url, "not-my-password")
        assert wrong.status_code == 400 and "Wrong password!" in wrong.text
        assert str(person.api_key) not in wrong.text
        shown = show_api_key(client, server.url, TEST_PASSWORD)
        assert (
            shown.status_code == 200 and f'<code id="api_key">{person.api_key}</code>' in shown.text
        )
        assert (
            "Generate a new API key" in shown.text and "no-store" in shown.headers["cache-control"]
        )
        renewed = show_api_key(client, server.url, TEST_PASSWORD, action="regenerate")
        key = re.search(r'<code id="api_key">([^<]+)</code>', renewed.text)
        assert key and key.group(1) != person.api_key and "old one no longer works" in renewed.text
    assert_error(person.get("/users/me"), "Invalid API key", "UNAUTHORIZED", 401)
    with Api(server.url, str(person.email), key.group(1)) as renewed_api:
        renewed_api.ok("GET", "/users/me")
    with browser(server.url) as anonymous:
        assert anonymous.get("/accounts/api_key/").headers["location"] == "/login/"


def test_password_change_ends_other_sessions_clears_failures_and_keeps_the_key(
    start_server: Callable[..., ServerProcess],
) -> None:
    proc = start_server(env={"TEAMCHAT_AUTH_RATE_LIMIT": "3/600"})
    email = unique_email("changer")
    with Api(proc.url, proc.owner_email, proc.owner_key) as owner:
        owner.ok("POST", "/users", email=email, password=TEST_PASSWORD, full_name="Changer")
    with Api(proc.url) as anonymous:
        api_key = anonymous.ok("POST", "/fetch_api_key", username=email, password=TEST_PASSWORD)[
            "api_key"
        ]
    with browser(proc.url) as here, browser(proc.url) as elsewhere:
        assert log_in(here, email, TEST_PASSWORD).status_code == 303
        assert log_in(elsewhere, email, TEST_PASSWORD).status_code == 303
        for _ in range(2):
            assert log_in(browser(proc.url), email, "wrong-guess").status_code == 401
        changed = here.patch(
            "/json/settings",
            data={"old_password": TEST_PASSWORD, "new_password": "Fresh-secret-4821"},
            headers={"X-CSRFToken": here.cookies["csrftoken"]},
        )
        assert_success(changed)
        assert_success(here.get("/json/users/me"))
        assert elsewhere.get("/json/users/me").status_code == 401
        # The failures before the change are forgiven: two more wrong guesses still leave one.
        for _ in range(2):
            assert log_in(browser(proc.url), email, "wrong-guess").status_code == 401
        assert log_in(browser(proc.url), email, "Fresh-secret-4821").status_code == 303
    with Api(proc.url, email, api_key) as me:
        me.ok("GET", "/users/me")  # the API key stays
