"""Unauthenticated endpoints: GET /server_settings and POST /fetch_api_key."""

from __future__ import annotations

from typing import Any

from litestar import Request

from teamchat.actions.org import realm
from teamchat.actions.people import auth
from teamchat.actions.state import realm_icon_url
from teamchat.http.params import Params, as_str
from teamchat.http.routing import get, post
from teamchat.http.urls import realm_url
from teamchat.lib.api_types import AuthenticationMethods, JsonDict, ServerSettings, fields_of
from teamchat.lib.version import FEATURE_LEVEL, MERGE_BASE, ZULIP_VERSION
from teamchat.runtime import Runtime


@get("/server_settings", opt={"public": True})
async def get_server_settings(
    request: Request[Any, Any, Any], params: Params, rt: Runtime
) -> JsonDict:
    # zulip-compat: the official client always sends Authorization; it is ignored here.
    org = await realm.get_realm(rt)
    url = realm_url(request, rt)
    settings = ServerSettings(
        authentication_methods=AuthenticationMethods(
            password=True,
            dev=rt.settings.dev_auth,
            email=True,
            ldap=False,
            remoteuser=False,
            github=False,
            azuread=False,
            gitlab=False,
            apple=False,
            google=False,
            saml=False,
            openid_connect=False,
        ),
        external_authentication_methods=[],
        zulip_feature_level=FEATURE_LEVEL,
        zulip_version=ZULIP_VERSION,
        zulip_merge_base=MERGE_BASE,
        service_feature_level=FEATURE_LEVEL,
        service_version=ZULIP_VERSION,
        service_merge_base=MERGE_BASE,
        push_notifications_enabled=rt.settings.push_service_url is not None,
        is_incompatible=False,
        email_auth_enabled=True,
        require_email_format_usernames=True,
        realm_uri=url,
        realm_url=url,
        realm_name=org.name,
        realm_icon=realm_icon_url(org),
        realm_description=org.rendered_description,
        realm_web_public_access_enabled=False,
    )
    return params.success(**fields_of(settings))


@post("/dev_fetch_api_key", opt={"public": True})
async def dev_fetch_api_key(params: Params, rt: Runtime) -> JsonDict:
    user = await auth.dev_fetch_api_key(rt, params.required("username", as_str))
    return params.success(api_key=user.api_key, email=user.delivery_email, user_id=user.id)


@get("/dev_list_users", opt={"public": True})
async def dev_list_users(request: Request[Any, Any, Any], params: Params, rt: Runtime) -> JsonDict:
    url = realm_url(request, rt)
    users = await auth.dev_list_users(rt)
    listed = [
        ("direct_admins" if u.is_admin else "direct_users", {"email": u.delivery_email,
         "realm_uri": url, "realm_url": url}) for u in users
    ]  # fmt: skip
    return params.success(
        direct_admins=[entry for kind, entry in listed if kind == "direct_admins"],
        direct_users=[entry for kind, entry in listed if kind == "direct_users"],
    )


@post("/fetch_api_key", opt={"public": True})
async def fetch_api_key(request: Request[Any, Any, Any], params: Params, rt: Runtime) -> JsonDict:
    username = params.required("username", as_str)
    password = params.required("password", as_str)
    client_ip = request.client.host if request.client is not None else ""
    user = await auth.fetch_api_key(rt, username, password, client_ip)
    return params.success(api_key=user.api_key, email=user.delivery_email, user_id=user.id)
