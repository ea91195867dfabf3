"""Browser-like helpers for the web client's pages: log in with a form, sign up through a link."""

from __future__ import annotations

import httpx


def browser(base_url: str) -> httpx.Client:
    """A client with a cookie jar that does not follow redirects (tests look at them)."""
    return httpx.Client(base_url=base_url, timeout=30)


def log_in(client: httpx.Client, username: str, password: str) -> httpx.Response:
    return client.post("/login/", data={"username": username, "password": password})


def join(link: str, **form: str) -> httpx.Response:
    """Sign up through invitation `link`; on success, the API key page the new session shows
    once the password is entered again.

    The failure pages (a form with a problem, a bad link) are returned as they are."""
    with httpx.Client(timeout=30) as client:
        response = client.post(link, data=form)
        if response.status_code != 303:
            return response
        assert response.headers["location"] == "/", response.headers
        return show_api_key(client, link.split("/join/")[0], form["password"])


def show_api_key(
    client: httpx.Client, base_url: str, password: str, action: str = "show"
) -> httpx.Response:
    """Enter the password on the API key page of a logged-in `client` (a CSRF-checked form)."""
    form = {
        "password": password,
        "action": action,
        "csrfmiddlewaretoken": client.cookies["csrftoken"],
    }
    return client.post(f"{base_url}/accounts/api_key/", data=form)
