"""Mobile push registration: client devices, E2EE push registrations, legacy tokens.

Nothing is registered unless the server names a push service (`push_service_url`);
otherwise every registration answers PUSH_SERVICE_NOT_CONFIGURED.
"""

from __future__ import annotations

import contextlib
import hashlib
from dataclasses import dataclass

from teamchat.errors import PushServiceNotConfiguredError, ZulipError
from teamchat.lib import push_crypto
from teamchat.records import LegacyPushTokenRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import push as push_store

TOKEN_KINDS = ("fcm", "apns")
MAX_TOKEN_CHARS = 4096


def require_push_service(rt: Runtime) -> None:
    """PUSH_SERVICE_NOT_CONFIGURED unless a push service is configured."""
    if rt.settings.push_service_url is None:
        raise PushServiceNotConfiguredError()


async def do_register_client_device(rt: Runtime, user: UserRow) -> int:
    """POST /register_client_device: a new device id for this user's client."""
    async with rt.db.write() as tx:
        return await push_store.insert_device(tx, user.id, rt.now())


@dataclass(frozen=True)
class PushRegistration:
    """The parameters of POST /mobile_push/register, as sent (None: not sent)."""

    device_id: int
    push_key_id: int | None = None
    push_key: str | None = None
    token_kind: str | None = None
    token_id: str | None = None
    bouncer_public_key: str | None = None
    encrypted_push_registration: str | None = None

    @property
    def key_fields(self) -> tuple[object, ...]:
        return (self.push_key_id, self.push_key)

    @property
    def token_fields(self) -> tuple[object, ...]:
        return (
            self.token_kind,
            self.token_id,
            self.bouncer_public_key,
            self.encrypted_push_registration,
        )


def _check_groups(reg: PushRegistration) -> tuple[bool, bool]:
    """(sends the push key, sends the token); each group is all-or-nothing (SPEC rules 1-3)."""
    key = [v is not None for v in reg.key_fields]
    token = [v is not None for v in reg.token_fields]
    if any(key) and not all(key):
        raise ZulipError("push_key_id and push_key must be sent together.")
    if any(token) and not all(token):
        raise ZulipError(
            "token_kind, token_id, bouncer_public_key and encrypted_push_registration "
            "must be sent together."
        )
    if not any(key) and not any(token):
        raise ZulipError("Send the push key fields, the token fields, or both.")
    return all(key), all(token)


def _b64(name: str, value: str) -> bytes:
    try:
        return push_crypto.decode_b64(value)
    except ValueError:
        raise ZulipError(f"Invalid `{name}`") from None


def _check_key(reg: PushRegistration) -> tuple[int, bytes]:
    assert reg.push_key_id is not None and reg.push_key is not None
    if not 0 <= reg.push_key_id <= push_crypto.MAX_PUSH_KEY_ID:
        raise ZulipError("Invalid `push_key_id`")
    key = _b64("push_key", reg.push_key)
    try:
        push_crypto.check_push_key(key)
    except push_crypto.BadPushKeyError:
        raise ZulipError("Invalid `push_key`") from None
    return reg.push_key_id, key


def _check_token(reg: PushRegistration) -> bytes:
    assert reg.token_id is not None and reg.bouncer_public_key is not None
    assert reg.encrypted_push_registration is not None
    if reg.token_kind not in TOKEN_KINDS:
        raise ZulipError("Invalid token_kind")
    token_id = _b64("token_id", reg.token_id)
    if len(token_id) != push_crypto.TOKEN_ID_BYTES:
        raise ZulipError("Invalid `token_id`")
    _b64("bouncer_public_key", reg.bouncer_public_key)
    _b64("encrypted_push_registration", reg.encrypted_push_registration)
    return token_id


async def check_register_push_device(rt: Runtime, user: UserRow, reg: PushRegistration) -> None:
    """POST /mobile_push/register: new registration, key rotation or token rotation."""
    require_push_service(rt)
    sends_key, sends_token = _check_groups(reg)
    key = _check_key(reg) if sends_key else None
    token_id = _check_token(reg) if sends_token else None
    async with rt.db.write() as tx:
        device = await push_store.get_device(tx, user.id, reg.device_id)
        if device is None:
            raise ZulipError("Invalid device ID")
        registered = device.push_key is not None or device.token_id is not None
        if not registered and not (sends_key and sends_token):
            raise ZulipError(
                "A new push registration needs both the push key fields and the token fields."
            )
        if key is not None:
            await push_store.update_push_key(
                tx, device.id, push_key_id=key[0], push_key=key[1], now=rt.now()
            )
        if token_id is not None:
            assert reg.token_kind and reg.bouncer_public_key and reg.encrypted_push_registration
            await push_store.update_token(
                tx,
                device.id,
                token_kind=reg.token_kind,
                token_id=token_id,
                bouncer_public_key=reg.bouncer_public_key,
                encrypted_push_registration=reg.encrypted_push_registration,
                now=rt.now(),
            )
            legacy = await push_store.list_legacy_tokens(tx, user.id)
            matching = [t.id for t in legacy if token_id in legacy_token_ids(t)]
            await push_store.delete_legacy_tokens_by_id(tx, matching)


def legacy_token_ids(token: LegacyPushTokenRow) -> set[bytes]:
    """The token ids (SHA-256, first 8 bytes) a legacy token may have been registered as."""
    candidates = [token.token.encode()]
    if token.kind == "apns":
        with contextlib.suppress(ValueError):
            candidates.append(bytes.fromhex(token.token))
    return {hashlib.sha256(raw).digest()[: push_crypto.TOKEN_ID_BYTES] for raw in candidates}


def _check_legacy_token(kind: str, token: str) -> None:
    if not token or len(token) > MAX_TOKEN_CHARS:
        raise ZulipError("Empty or invalid length token")
    if kind == "apns":
        try:
            bytes.fromhex(token)
        except ValueError:
            raise ZulipError("Invalid APNS token") from None


async def do_add_legacy_token(
    rt: Runtime, user: UserRow, kind: str, token: str, ios_app_id: str | None = None
) -> None:
    """POST /users/me/android_gcm_reg_id and /users/me/apns_device_token."""
    require_push_service(rt)
    _check_legacy_token(kind, token)
    async with rt.db.write() as tx:
        await push_store.upsert_legacy_token(tx, user.id, kind, token, ios_app_id, rt.now())


async def do_remove_legacy_token(rt: Runtime, user: UserRow, kind: str, token: str) -> None:
    """DELETE of the same endpoints."""
    require_push_service(rt)
    _check_legacy_token(kind, token)
    async with rt.db.write() as tx:
        if not await push_store.delete_legacy_token(tx, user.id, kind, token):
            raise ZulipError("Token does not exist")
