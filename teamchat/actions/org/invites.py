"""Invitations: reusable links and email invitations; listing, revoking, resending.

The link a person follows is `{realm_url}/join/{key}/` (sign-up in `actions.signup`).
"""

from __future__ import annotations

import base64
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

import msgspec

from teamchat import store
from teamchat.actions.channels.channel_access import access_stream_by_id
from teamchat.actions.channels.subscriptions import may_add_subscribers
from teamchat.actions.org import permissions
from teamchat.actions.org.user_group_edit import access_group_for_update
from teamchat.actions.org.user_groups import require_member_or_admin
from teamchat.errors import OrganizationOwnerRequiredError, ZulipError
from teamchat.events.types_org import InvitesChangedEvent
from teamchat.lib.realm_properties import MAX_WELCOME_MESSAGE_CUSTOM_TEXT_CHARS
from teamchat.lib.text import check_text
from teamchat.records import InvitationRow, RealmRow, Role, UserRow
from teamchat.runtime import Runtime
from teamchat.store import default_streams as default_store
from teamchat.store import invites as invite_store
from teamchat.store.db import Conn, Tx

SECS_PER_MINUTE = 60
# Sentinel for "invite_expires_in_minutes was not sent": use the server's default. Outside the
# range every integer parser accepts, so no client value (such as -1) can mean "default".
DEFAULT_EXPIRY: int = -(2**63)


class InvitationError(ZulipError):
    code = "INVITATION_FAILED"

    def __init__(
        self, msg: str, errors: list[tuple[str, str, bool]], *, sent_invitations: bool
    ) -> None:
        super().__init__(
            msg,
            errors=[list(error) for error in errors],
            sent_invitations=sent_invitations,
            license_limit_reached=False,
            daily_limit_reached=False,
        )


def new_key() -> str:
    """A confirmation key like Zulip's: 24 lowercase base32 characters."""
    return base64.b32encode(secrets.token_bytes(15)).decode().lower()


def invite_link(realm_url: str, key: str) -> str:
    """The sign-up link of an invitation key."""
    return f"{realm_url}/join/{key}/"


def is_expired(invitation: InvitationRow, now: int) -> bool:
    """Whether the invitation's expiry time has passed (null never expires)."""
    return invitation.expiry_date is not None and invitation.expiry_date <= now


def check_role(user: UserRow, invite_as: int) -> None:
    """SPEC: a role may be invited only if equal to or more restricted than the requester's."""
    if invite_as not in {int(role) for role in Role}:
        raise ZulipError("Invalid invite_as")
    if invite_as < user.role:
        if invite_as == Role.OWNER:
            raise OrganizationOwnerRequiredError()
        raise ZulipError("Must be an organization administrator")


async def _check_streams(conn: Conn, user: UserRow, stream_ids: Sequence[int]) -> None:
    """Zulip's access_streams_for_invite: visible channels, and permission to subscribe
    others to each one that is not a default channel."""
    streams = []
    for stream_id in stream_ids:
        try:
            stream, _ = await access_stream_by_id(conn, user, stream_id)
        except ZulipError:
            stream = None
        if stream is None or stream.is_archived:
            raise ZulipError(f"Invalid channel ID {stream_id}. No invites were sent.")
        streams.append(stream)
    defaults = set(await default_store.list_default_stream_ids(conn))
    for stream in streams:
        if stream.id not in defaults and not await may_add_subscribers(conn, user, stream):
            raise ZulipError("You do not have permission to subscribe other users to channels.")


async def _check_groups(conn: Conn, user: UserRow, group_ids: Sequence[int], now: int) -> None:
    for group_id in group_ids:
        await access_group_for_update(
            conn, user, group_id, "can_add_members_group", now, allow_deactivated=False
        )


def _expiry(rt: Runtime, minutes: int | None) -> int | None:
    if minutes == DEFAULT_EXPIRY:
        minutes = rt.settings.invitation_link_validity_minutes
    if minutes is None:
        return None
    if minutes <= 0:
        raise ZulipError("Invalid invite_expires_in_minutes")
    return rt.now() + minutes * SECS_PER_MINUTE


@dataclass(frozen=True)
class InviteOptions:
    """What an invitation grants: role, channels, groups, welcome text, expiry."""

    invite_as: int = int(Role.MEMBER)
    expires_in_minutes: int | None = DEFAULT_EXPIRY
    stream_ids: Sequence[int] = ()
    group_ids: Sequence[int] = ()
    include_realm_default_subscriptions: bool = False
    welcome_message_custom_text: str | None = None
    notify_referrer_on_join: bool = True


@dataclass(frozen=True)
class InviteEdit:
    """PATCH /invites/multiuse/{id}: what changes (None: unchanged)."""

    invite_as: int | None = None
    stream_ids: Sequence[int] | None = None
    group_ids: Sequence[int] | None = None
    include_realm_default_subscriptions: bool | None = None

    def is_empty(self) -> bool:
        values = (self.invite_as, self.stream_ids, self.group_ids)
        return all(v is None for v in values) and self.include_realm_default_subscriptions is None

    def applied_to(self, invitation: InvitationRow) -> InvitationRow:
        return msgspec.structs.replace(
            invitation,
            invited_as=invitation.invited_as if self.invite_as is None else self.invite_as,
            stream_ids=invitation.stream_ids if self.stream_ids is None else list(self.stream_ids),
            group_ids=invitation.group_ids if self.group_ids is None else list(self.group_ids),
            include_realm_default_subscriptions=(
                invitation.include_realm_default_subscriptions
                if self.include_realm_default_subscriptions is None
                else self.include_realm_default_subscriptions
            ),
        )


async def check_options(
    rt: Runtime, conn: Conn, user: UserRow, options: InviteOptions
) -> tuple[int | None, str | None]:
    """Validate channels, groups and role; return (expiry, welcome text to store)."""
    check_role(user, options.invite_as)
    text = options.welcome_message_custom_text
    if text is not None:
        check_text(
            "welcome_message_custom_text",
            text,
            max_chars=MAX_WELCOME_MESSAGE_CUSTOM_TEXT_CHARS,
            multiline=True,
        )
    expiry = _expiry(rt, options.expires_in_minutes)
    await _check_streams(conn, user, options.stream_ids)
    await _check_groups(conn, user, options.group_ids, rt.now())
    # SPEC: only administrators may set a custom welcome message; for others it is null.
    return expiry, text if user.is_admin else None


async def notify_invites_changed(rt: Runtime, tx: Tx, referrer_id: int | None) -> None:
    """invites_changed to administrators and the invitation's referrer."""
    admins = [u.id for u in await store.users.list_users(tx, is_active=True) if u.is_admin]
    audience = admins + ([referrer_id] if referrer_id and referrer_id not in admins else [])
    tx.after_commit(lambda: rt.broker.publish(InvitesChangedEvent(), audience))


async def do_create_multiuse_invite(
    rt: Runtime, user: UserRow, options: InviteOptions, *, realm_url: str
) -> str:
    """POST /invites/multiuse: returns the invite link."""
    require_member_or_admin(user)
    key = new_key()
    async with rt.db.write() as tx:
        realm = await _realm(tx)
        if not await permissions.has_realm_permission(
            tx, realm, user, "create_multiuse_invite_group", now=rt.now()
        ):
            raise ZulipError("Insufficient permission")
        expiry, text = await check_options(rt, tx, user, options)
        await insert_invitation(
            rt, tx, user, options, key=key, email=None, expiry=expiry, welcome_text=text
        )
        await notify_invites_changed(rt, tx, user.id)
    return invite_link(realm_url, key)


async def insert_invitation(
    rt: Runtime,
    tx: Tx,
    user: UserRow,
    options: InviteOptions,
    *,
    key: str,
    email: str | None,
    expiry: int | None,
    welcome_text: str | None,
) -> None:
    """Store one invitation (a reusable link when `email` is None) made by `user`."""
    await invite_store.insert(
        tx,
        email=email,
        key=key,
        referred_by=user.id,
        invited_as=options.invite_as,
        date_created=rt.now(),
        expiry_date=expiry,
        stream_ids=list(options.stream_ids),
        group_ids=list(options.group_ids),
        include_realm_default_subscriptions=options.include_realm_default_subscriptions,
        # Reusable links have no single joiner to report on.
        notify_referrer_on_join=email is not None and options.notify_referrer_on_join,
        welcome_message_custom_text=welcome_text,
    )


async def _realm(conn: Conn) -> RealmRow:
    realm = await store.realm.get_realm(conn)
    assert realm is not None
    return realm
