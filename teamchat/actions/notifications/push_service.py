"""The push notification service (`push_service_url`), spoken as Zulip servers speak to the
mobile push bouncer: each payload is encrypted with each device's push key (secretbox,
`lib.push_crypto`) and POSTed as JSON to `/api/v1/remotes/push/e2ee/notify`; the service
hands the ciphertext to FCM or APNs and names devices it can no longer reach, which we
forget. Owns the wire protocol, timeouts and retries; decides nothing about who is notified.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging

import msgspec

from teamchat.errors import (
    FailedToConnectBouncerError,
    InternalBouncerServerError,
    InvalidRemotePushDeviceTokenError,
    PushAdminActionRequiredError,
    PushServiceError,
    ZulipError,
)
from teamchat.lib import push_crypto
from teamchat.lib.api_types import JsonDict
from teamchat.lib.outbound import OutboundError
from teamchat.records import ClientDeviceRow
from teamchat.runtime import Runtime
from teamchat.store import push as push_store

log = logging.getLogger("teamchat.push")
E2EE_NOTIFY_PATH = "/api/v1/remotes/push/e2ee/notify"
LEGACY_TEST_PATH = "/api/v1/remotes/push/test_notification"
TIMEOUT_SECS = 15.0  # Zulip's PushBouncerSession
MAX_TRIES = 4
RETRY_DELAY_SECS = 1.0
MAX_RESPONSE_BYTES = 1024 * 1024
USER_AGENT = "teamchat-push"
# zulip-compat: what APNs shows before the app decrypts the payload (mutable-content).
APNS_ALERT = {"mutable-content": 1, "alert": {"title": "New notification"}, "sound": "default"}
APNS_BACKGROUND = {"content-available": 1}


class PushTarget(msgspec.Struct, frozen=True, kw_only=True):
    """A device with a complete E2EE push registration."""

    device_id: int
    push_key_id: int
    push_key: bytes
    token_kind: str
    token_id: bytes
    bouncer_public_key: str
    encrypted_push_registration: str


def push_target(device: ClientDeviceRow) -> PushTarget | None:
    """The device as a push target; None until both its key and its token are registered."""
    if (
        device.push_key is None
        or device.push_key_id is None
        or device.token_kind is None
        or device.token_id is None
        or device.bouncer_public_key is None
        or device.encrypted_push_registration is None
    ):
        return None
    return PushTarget(
        device_id=device.id,
        push_key_id=device.push_key_id,
        push_key=device.push_key,
        token_kind=device.token_kind,
        token_id=device.token_id,
        bouncer_public_key=device.bouncer_public_key,
        encrypted_push_registration=device.encrypted_push_registration,
    )


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def push_request(target: PushTarget, payload: JsonDict, *, removal: bool) -> JsonDict:
    """One device's entry of `push_requests`: the registration the service decrypts to find
    the token, and the payload encrypted for the device."""
    encrypted: JsonDict = {
        "push_key_id": target.push_key_id,
        "encrypted_data": _b64(push_crypto.encrypt_payload(target.push_key, payload)),
    }
    request: JsonDict = {
        "device_id": target.device_id,
        "token_kind": target.token_kind,
        "token_id": _b64(target.token_id),
        "bouncer_public_key": target.bouncer_public_key,
        "encrypted_push_registration": target.encrypted_push_registration,
    }
    if target.token_kind == "fcm":
        # zulip-compat: removals are not urgent; new messages wake the device.
        request["fcm_priority"] = "normal" if removal else "high"
        request["payload"] = encrypted
    else:
        request["http_headers"] = {
            "apns_priority": 5 if removal else 10,
            "apns_push_type": "background" if removal else "alert",
        }
        request["payload"] = {**encrypted, "aps": APNS_BACKGROUND if removal else APNS_ALERT}
    return request


async def call_service(rt: Runtime, path: str, body: JsonDict) -> JsonDict:
    """POST `body` to the push service once; its JSON answer, or the error Zulip reports."""
    settings = rt.settings
    assert settings.push_service_url is not None
    authorization = None
    if settings.push_service_org_id and settings.push_service_org_key:
        pair = f"{settings.push_service_org_id}:{settings.push_service_org_key}"
        authorization = "Basic " + _b64(pair.encode())
    url = settings.push_service_url.rstrip("/") + path
    headers = {"Content-Type": "application/json", "User-Agent": USER_AGENT}
    if authorization is not None:
        headers["Authorization"] = authorization
    try:
        # The operator configured this URL (as Zulip's PUSH_NOTIFICATION_BOUNCER_URL): it may
        # be on their own network. The protocol has no redirects.
        response = await rt.outbound.fetch(
            url, method="POST", body=json.dumps(body).encode(), headers=headers,
            max_bytes=MAX_RESPONSE_BYTES,
            deadline_secs=min(TIMEOUT_SECS, rt.settings.outbound_deadline_secs),
            purpose="push", max_redirects=0, check_target=False,
        )  # fmt: skip
    except OutboundError:
        raise FailedToConnectBouncerError() from None
    status, reply = response.status, response.body
    if status >= 500:
        raise InternalBouncerServerError()
    try:
        answer = json.loads(reply)
    except ValueError:
        answer = None
    if not isinstance(answer, dict):
        raise InternalBouncerServerError()
    if status >= 400:
        if answer.get("code") == "INVALID_REMOTE_PUSH_DEVICE_TOKEN":
            raise InvalidRemotePushDeviceTokenError()
        # Bad credentials, an unregistered organization, a refused request: the server's
        # administrator has to act (Zulip's ADMIN_ACTION_REQUIRED).
        raise PushAdminActionRequiredError()
    return answer


async def notify(
    rt: Runtime, targets: list[PushTarget], payload: JsonDict, *, removal: bool = False
) -> JsonDict:
    """Send `payload` to the devices once (errors raised); forget devices the service names."""
    requests = [push_request(t, payload, removal=removal) for t in targets]
    answer = await call_service(rt, E2EE_NOTIFY_PATH, {"push_requests": requests})
    gone = answer.get("delete_device_ids")
    known = {t.device_id for t in targets}
    if isinstance(gone, list):
        forget = sorted({d for d in gone if isinstance(d, int) and d in known})
        if forget:
            await do_forget_push_devices(rt, forget)
    return answer


async def notify_in_background(
    rt: Runtime, targets: list[PushTarget], payload: JsonDict, *, removal: bool = False
) -> None:
    """`notify`, retrying connection failures and 5xx answers; failures are logged."""
    for attempt in range(MAX_TRIES):
        if attempt:
            await asyncio.sleep(RETRY_DELAY_SECS * attempt)
        try:
            await notify(rt, targets, payload, removal=removal)
            return
        except PushServiceError as error:
            failure: ZulipError = error
        except ZulipError as error:
            log.warning("push service refused a notification: %s", error.msg)
            return
    log.warning("push notification not delivered after %d tries: %s", MAX_TRIES, failure.msg)


async def do_forget_push_devices(rt: Runtime, device_ids: list[int]) -> None:
    """Clear the push registration of devices the push service says are gone."""
    async with rt.db.write() as tx:
        await push_store.clear_push_registrations(tx, device_ids)
