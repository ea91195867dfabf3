"""GET /server_settings: no credentials needed, wrong ones ignored, every documented field."""

from __future__ import annotations

import httpx
import msgspec

from teamchat.lib.api_types import ServerSettings
from teamchat.lib.version import FEATURE_LEVEL
from tests.support.api import Api, assert_success
from tests.support.server import ServerProcess


def test_server_settings_without_credentials_has_every_field(server: ServerProcess) -> None:
    api = Api(server.url)
    body = api.ok("GET", "/server_settings")
    settings = msgspec.convert(body, ServerSettings, strict=True)
    assert settings.zulip_feature_level == settings.service_feature_level == FEATURE_LEVEL
    assert settings.zulip_version == settings.service_version
    assert settings.zulip_merge_base == settings.service_merge_base
    assert settings.realm_url == settings.realm_uri == server.url
    assert body["authentication_methods"]["password"] is True
    assert set(body["authentication_methods"]) >= {
        "password",
        "dev",
        "email",
        "ldap",
        "remoteuser",
        "saml",
        "openid connect",
    }
    assert FEATURE_LEVEL >= 277  # the mobile app refuses anything lower


def test_server_settings_ignores_a_wrong_authorization_header(server: ServerProcess) -> None:
    api = Api(server.url, "nobody@example.com", "wrong-key")
    assert_success(api.get("/server_settings"))
    garbage = httpx.get(
        f"{server.url}/api/v1/server_settings", headers={"Authorization": "Bearer x"}
    )
    assert garbage.status_code == 200


def test_realm_url_is_the_pinned_url_whatever_host_the_client_used(server: ServerProcess) -> None:
    # zulip-compat: the organization's URL, as Zulip's realm.url, not the request's Host.
    response = httpx.get(
        f"{server.url}/api/v1/server_settings",
        headers={"Host": "evil.example", "X-Forwarded-Proto": "https"},
    )
    assert response.json()["realm_url"] == server.url


def test_external_url_setting_wins(start_server) -> None:  # type: ignore[no-untyped-def]
    proc = start_server(env={"TEAMCHAT_EXTERNAL_URL": "https://chat.example.org"})
    body = httpx.get(f"{proc.url}/api/v1/server_settings").json()
    assert body["realm_url"] == body["realm_uri"] == "https://chat.example.org"
    assert "site=https://chat.example.org" in (proc.directory / "zuliprc").read_text()
