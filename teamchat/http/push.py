"""Push: /register_client_device, /mobile_push/register, legacy token endpoints, test
notifications."""

from __future__ import annotations

from typing import Any

from litestar import Request

from teamchat.actions.notifications import mobile_push
from teamchat.actions.people import push
from teamchat.http.params import Params, as_int, as_str
from teamchat.http.routing import delete, post
from teamchat.http.urls import realm_url
from teamchat.lib.api_types import JsonDict
from teamchat.records import UserRow
from teamchat.runtime import Runtime


@post("/register_client_device")
async def register_client_device(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    device_id = await push.do_register_client_device(rt, user)
    return params.success(device_id=device_id)


@post("/mobile_push/register")
async def register_push_device(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    registration = push.PushRegistration(
        device_id=params.required("device_id", as_int),
        push_key_id=params.optional("push_key_id", as_int, None),
        push_key=params.optional("push_key", as_str, None),
        token_kind=params.optional("token_kind", as_str, None),
        token_id=params.optional("token_id", as_str, None),
        bouncer_public_key=params.optional("bouncer_public_key", as_str, None),
        encrypted_push_registration=params.optional("encrypted_push_registration", as_str, None),
    )
    await push.check_register_push_device(rt, user, registration)
    return params.success()


@post("/users/me/android_gcm_reg_id")
async def add_android_reg_id(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    await push.do_add_legacy_token(rt, user, "fcm", params.required("token", as_str))
    return params.success()


@delete("/users/me/android_gcm_reg_id")
async def remove_android_reg_id(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    await push.do_remove_legacy_token(rt, user, "fcm", params.required("token", as_str))
    return params.success()


@post("/users/me/apns_device_token")
async def add_apns_device_token(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    token = params.required("token", as_str)
    app_id = params.required("appid", as_str)
    await push.do_add_legacy_token(rt, user, "apns", token, app_id)
    return params.success()


@delete("/users/me/apns_device_token")
async def remove_apns_device_token(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    await push.do_remove_legacy_token(rt, user, "apns", params.required("token", as_str))
    return params.success()


@post("/mobile_push/test_notification")
async def test_notify(
    request: Request[Any, Any, Any], params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    token = params.optional("token", as_str, None)
    await mobile_push.send_legacy_test_notification(rt, user, realm_url(request, rt), token)
    return params.success()


@post("/mobile_push/e2ee/test_notification")
async def e2ee_test_notify(
    request: Request[Any, Any, Any], params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    await mobile_push.send_e2ee_test_notification(
        rt,
        user,
        realm_url(request, rt),
        push_account_id=params.optional("push_account_id", as_int, None),
        device_id=params.optional("device_id", as_int, None),
    )
    return params.success()
