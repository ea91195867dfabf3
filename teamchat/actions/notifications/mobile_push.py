"""Mobile push notifications: a message that should notify someone (the rules missed-message
emails use, `rules.to_notify`, but at once) goes to each of their E2EE-registered devices
through the push service; reading it sends the `remove` payload. Also the test
notifications of POST /mobile_push/test_notification and /mobile_push/e2ee/test_notification.

Payloads are Zulip's (api/mobile-notifications): the fields the mobile app decodes.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Sequence

import msgspec

from teamchat.actions.messages.message_deliver import Delivered, send_hook
from teamchat.actions.messages.message_update import Edited, edit_hook
from teamchat.actions.notifications import push_service, rules
from teamchat.actions.people.push import require_push_service
from teamchat.actions.people.user_access import access_restricted, user_ids_who_can_access
from teamchat.errors import (
    InvalidPushDeviceTokenError,
    NoActivePushDeviceError,
)
from teamchat.lib import wire
from teamchat.lib.api_types import JsonDict
from teamchat.lib.push_content import mobile_push_content
from teamchat.records import StreamRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import push as push_store
from teamchat.store import realm as realm_store
from teamchat.store import users as user_store
from teamchat.store.db import Conn, Tx

PushTarget = push_service.PushTarget
# zulip-compat: the legacy bouncer protocol numbers token kinds (APNS 1, GCM/FCM 2).
LEGACY_TOKEN_KINDS = {"apns": 1, "fcm": 2}


async def push_targets(conn: Conn, user_id: int) -> list[PushTarget]:
    """The user's devices with a complete E2EE push registration."""
    devices = await push_store.list_devices(conn, user_id)
    return [t for d in devices if (t := push_service.push_target(d)) is not None]


def _absolute(realm_url: str, url: str) -> str:
    return url if url.startswith(("http://", "https://")) else realm_url + url


class About(msgspec.Struct, frozen=True, kw_only=True):
    """The message a notification is about, as its payload describes it."""

    realm_name: str
    realm_url: str
    sender: UserRow
    message_id: int
    time: int
    rendered_html: str
    stream: StreamRow | None
    topic: str
    participant_ids: list[int]  # direct messages: everyone in the conversation


def message_payload(about: About, user_id: int, *, hide_sender: bool = False) -> JsonDict:
    """The `message` payload telling `user_id` about the message (`hide_sender`: the
    "Unknown user" placeholder's name and avatar, for a guest who may not access the sender)."""
    sender = about.sender
    avatar = wire.avatar_url(sender, client_gravatar=False, email_visible=True) or ""
    full_name = sender.full_name
    if hide_sender:
        full_name, avatar = wire.INACCESSIBLE_USER_NAME, wire.INACCESSIBLE_USER_AVATAR_URL
    payload: JsonDict = {
        "type": "message",
        "realm_url": about.realm_url,
        "realm_name": about.realm_name,
        "user_id": user_id,
        "message_id": about.message_id,
        "sender_id": sender.id,
        "sender_full_name": full_name,
        "sender_avatar_url": _absolute(about.realm_url, avatar),
        "time": about.time,
        "content": mobile_push_content(about.rendered_html),
    }
    if about.stream is not None:
        payload.update(
            recipient_type="channel",
            channel_id=about.stream.id,
            channel_name=about.stream.name,
            topic=about.topic,
        )
        return payload
    participants = sorted(set(about.participant_ids) | {sender.id})
    payload["recipient_type"] = "direct"
    # zulip-compat: the app reads `recipient_user_ids` (every participant, sorted); Zulip
    # 11's documented `pm_users` string is kept for group conversations.
    payload["recipient_user_ids"] = participants
    if len(participants) > 2:
        payload["pm_users"] = ",".join(str(uid) for uid in participants)
    return payload


async def _push(rt: Runtime, tx: Tx, notice: rules.Notice, about: About) -> None:
    """Push to every recipient the notice should notify who has a registered device."""
    # Most recipients have no registered device: skip them before loading anyone's settings.
    with_devices = await push_store.users_with_push_devices(tx, notice.flags)
    if not with_devices:
        return
    pushes: list[tuple[list[PushTarget], JsonDict]] = []
    active = []
    hidden = await _without_access_to_sender(tx, about)
    for user, _why in await rules.to_notify(rt, tx, notice, "push", among=with_devices):
        targets = await push_targets(tx, user.id)
        if targets:
            payload = message_payload(about, user.id, hide_sender=user.id in hidden)
            pushes.append((targets, payload))
            active.append((user.id, about.message_id, about.realm_url))
    if pushes:
        await push_store.add_active_notifications(tx, active)
        tx.after_commit(lambda: _start(rt, pushes))


async def _without_access_to_sender(tx: Tx, about: About) -> set[int]:
    """Limited guests who may not access the sender of a channel message (Zulip's
    get_message_payload with can_access_sender false)."""
    if about.stream is None or about.sender.is_bot or not await access_restricted(tx):
        return set()
    informed = set(await user_ids_who_can_access(tx, about.sender))
    return set(await user_store.list_active_user_ids(tx)) - informed


@send_hook
async def _on_send(rt: Runtime, tx: Tx, sent: Delivered) -> None:
    if rt.settings.push_service_url is None:
        return
    message, draft = sent.message, sent.draft
    about = About(
        realm_name=sent.realm.name, realm_url=rt.external_url, sender=sent.sender,
        message_id=int(str(message["id"])), time=int(str(message["timestamp"])),
        rendered_html=draft.rendered.html, stream=draft.stream, topic=draft.topic,
        participant_ids=draft.participant_ids,
    )  # fmt: skip
    await _push(rt, tx, rules.notice_of(sent), about)


@edit_hook
async def _on_edit(rt: Runtime, tx: Tx, edited: Edited) -> None:
    """An edit that newly mentions people notifies them as a new message would."""
    message = edited.message
    sender = await user_store.get_user_by_id(tx, message.sender_id)
    if rt.settings.push_service_url is None or sender is None:
        return
    about = About(
        realm_name=edited.realm.name, realm_url=rt.external_url, sender=sender,
        message_id=message.id, time=message.date_sent, rendered_html=edited.rendered_html,
        stream=edited.stream, topic=edited.topic, participant_ids=[],
    )  # fmt: skip
    notice = rules.Notice(
        sender_id=sender.id, stream=edited.stream, topic=edited.topic, flags=edited.flags,
        mentions_only=True,
    )  # fmt: skip
    await _push(rt, tx, notice, about)


def _start(rt: Runtime, pushes: Sequence[tuple[list[PushTarget], JsonDict]]) -> None:
    for targets, payload in pushes:
        rt.spawn(push_service.notify_in_background(rt, targets, payload))


async def remove_notifications(rt: Runtime, tx: Tx, user: UserRow, read_ids: list[int]) -> None:
    """Inside the transaction marking `read_ids` read: after commit, send the `remove`
    payload for those of them showing on the user's devices."""
    if read_ids:
        await _remove(rt, tx, await push_store.pop_active_notifications(tx, read_ids, user.id))


async def remove_deleted_notifications(rt: Runtime, tx: Tx, message_ids: list[int]) -> None:
    """Inside the transaction deleting messages: after commit, remove their notifications
    from every device showing one."""
    await _remove(rt, tx, await push_store.pop_active_notifications(tx, message_ids))


async def _remove(rt: Runtime, tx: Tx, showing: dict[tuple[int, str], list[int]]) -> None:
    if not showing or rt.settings.push_service_url is None:
        return
    realm_name = await _realm_name(tx)
    pushes = []
    for (user_id, _stored_url), ids in showing.items():
        targets = await push_targets(tx, user_id)
        payload: JsonDict = {
            "type": "remove",
            "realm_url": rt.external_url,
            "realm_name": realm_name,
            "user_id": user_id,
            "message_ids": ids,
        }
        if targets:
            pushes.append((targets, payload))
    if pushes:
        tx.after_commit(lambda: _start_removals(rt, pushes))


def _start_removals(rt: Runtime, pushes: Sequence[tuple[list[PushTarget], JsonDict]]) -> None:
    for targets, payload in pushes:
        rt.spawn(push_service.notify_in_background(rt, targets, payload, removal=True))


async def _realm_name(conn: Conn) -> str:
    realm = await realm_store.get_realm(conn)
    return realm.name if realm else ""


async def send_e2ee_test_notification(
    rt: Runtime,
    user: UserRow,
    realm_url: str,
    *,
    push_account_id: int | None = None,
    device_id: int | None = None,
) -> None:
    """POST /mobile_push/e2ee/test_notification: a `test` payload to the user's registered
    devices (or the one named), sent now; the push service's errors are the answer."""
    require_push_service(rt)
    async with rt.db.read() as conn:
        targets = await push_targets(conn, user.id)
        realm_name = await _realm_name(conn)
    if push_account_id is not None:
        targets = [t for t in targets if t.push_key_id == push_account_id]
    if device_id is not None:
        targets = [t for t in targets if t.device_id == device_id]
    if not targets:
        raise NoActivePushDeviceError()
    payload: JsonDict = {
        "type": "test",
        "realm_url": realm_url,
        "realm_name": realm_name,
        "user_id": user.id,
        "time": rt.now(),
    }
    await push_service.notify(rt, targets, payload)


async def send_legacy_test_notification(
    rt: Runtime, user: UserRow, realm_url: str, token: str | None
) -> None:
    """POST /mobile_push/test_notification: ask the push service to send its test
    notification to the user's legacy (non-E2EE) token, or to all of them."""
    require_push_service(rt)
    async with rt.db.read() as conn:
        tokens = await push_store.list_legacy_tokens(conn, user.id)
        realm_name = await _realm_name(conn)
    if token is not None:
        tokens = [t for t in tokens if t.token == token]
        if not tokens:
            raise InvalidPushDeviceTokenError()
    base_payload: JsonDict = {
        "server": urllib.parse.urlsplit(realm_url).netloc,
        "realm_name": realm_name,
        "realm_url": realm_url,
        "realm_uri": realm_url,
        "user_id": user.id,
    }
    for legacy in tokens:
        body: JsonDict = {
            "token": legacy.token,
            "token_kind": LEGACY_TOKEN_KINDS[legacy.kind],
            "user_id": user.id,
            "base_payload": base_payload,
        }
        await push_service.call_service(rt, push_service.LEGACY_TEST_PATH, body)
