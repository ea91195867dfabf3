"""Joining through an invitation: what a link allows, and creating the invited account.

One transaction creates the user with the invited role, adds them to the invited groups
and channels (and the default channels when asked), and spends an email invitation; then
the Welcome Bot greets them. The page
shows problems instead of raising them, so this module returns them as values.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from enum import Enum

from teamchat import store
from teamchat.actions.org import invites
from teamchat.actions.org.user_group_edit import publish_to_active
from teamchat.actions.org.welcome import notify_referrer, send_welcome_messages
from teamchat.actions.people.users import insert_user, join_first_channels, publish_user_added
from teamchat.errors import ZulipError
from teamchat.events.types_org import UserGroupAddMembersEvent
from teamchat.lib.passwords import hash_password, password_problem_explained
from teamchat.lib.validation import full_name_problem, is_valid_email
from teamchat.records import InvitationRow, RealmRow, Role, UserRow
from teamchat.runtime import Runtime
from teamchat.store import default_streams as default_store
from teamchat.store import invites as invite_store
from teamchat.store import user_groups as group_store
from teamchat.store.db import Tx


class LinkState(Enum):
    VALID = "valid"
    UNKNOWN = "unknown"
    REVOKED = "revoked"
    USED = "used"
    EXPIRED = "expired"


# What the sign-up page says about a link that cannot be used.
LINK_PROBLEMS = {
    LinkState.UNKNOWN: "This invitation link is not valid. Check that you copied all of it.",
    LinkState.REVOKED: "This invitation link has been revoked. Ask for a new one.",
    LinkState.USED: "This invitation has already been used to create an account.",
    LinkState.EXPIRED: "This invitation link has expired. Ask for a new one.",
}


@dataclass(frozen=True)
class LinkInfo:
    state: LinkState
    invitation: InvitationRow | None
    realm: RealmRow


def link_state(invitation: InvitationRow | None, now: int) -> LinkState:
    """The Reusable invitation state machine: valid until revoked, used, or expired."""
    if invitation is None:
        return LinkState.UNKNOWN
    if invitation.status == invite_store.REVOKED:
        return LinkState.REVOKED
    if invitation.status == invite_store.USED:
        return LinkState.USED
    if invites.is_expired(invitation, now):
        return LinkState.EXPIRED
    return LinkState.VALID


async def get_link(rt: Runtime, key: str) -> LinkInfo:
    """What the invitation with `key` allows right now."""
    async with rt.db.read() as conn:
        invitation = await invite_store.get_invitation_by_key(conn, key)
        realm = await store.realm.get_realm(conn)
    assert realm is not None
    return LinkInfo(state=link_state(invitation, rt.now()), invitation=invitation, realm=realm)


@dataclass(frozen=True)
class SignupResult:
    """The new account, or the problem to show on the form."""

    user: UserRow | None = None
    problem: str | None = None


async def accept_invitation(
    rt: Runtime, key: str, *, email: str, full_name: str, password: str, realm_url: str
) -> SignupResult:
    """Validate the form and create the invited account; problems come back as text."""
    link = await get_link(rt, key)
    if link.state is not LinkState.VALID or link.invitation is None:
        return SignupResult(problem=LINK_PROBLEMS.get(link.state, "Invalid invitation."))
    email = (link.invitation.email or email).strip()
    if not is_valid_email(email):
        return SignupResult(problem=f"Invalid email '{email}'")
    problem = full_name_problem(full_name) or password_problem_explained(password)
    if problem:
        return SignupResult(problem=problem)
    password_hash = await asyncio.to_thread(hash_password, password)
    result = await do_accept_invitation(
        rt, key, email=email, full_name=full_name.strip(), password_hash=password_hash
    )
    if result.user is not None:
        text = link.invitation.welcome_message_custom_text
        await send_welcome_messages(rt, result.user, text, realm_url=realm_url)
        if link.invitation.notify_referrer_on_join:
            async with rt.db.read() as conn:
                referrer = await store.users.get_user_by_id(conn, link.invitation.referred_by)
            if referrer is not None:
                await notify_referrer(rt, referrer, result.user, realm_url=realm_url)
    return result


async def do_accept_invitation(
    rt: Runtime, key: str, *, email: str, full_name: str, password_hash: str
) -> SignupResult:
    """Create the account (role, groups, channels) and spend an email invitation."""
    async with rt.db.write() as tx:
        invitation = await invite_store.get_invitation_by_key(tx, key)
        state = link_state(invitation, rt.now())
        if state is not LinkState.VALID or invitation is None:
            return SignupResult(problem=LINK_PROBLEMS[state])
        realm = await store.realm.get_realm(tx)
        assert realm is not None
        try:
            user = await insert_user(
                rt,
                tx,
                realm,
                email=email,
                full_name=full_name,
                password_hash=password_hash,
                role=Role(invitation.invited_as),
            )
        except ZulipError as exc:
            return SignupResult(problem=exc.msg)
        await publish_user_added(rt, tx, user, realm.host)
        await _join_groups(rt, tx, user, invitation.group_ids)
        await _join_streams(rt, tx, user, invitation)
        await invite_store.revoke_email_invitations_for(tx, email)
        await invites.notify_invites_changed(rt, tx, invitation.referred_by)
    return SignupResult(user=user)


async def _join_streams(rt: Runtime, tx: Tx, user: UserRow, invitation: InvitationRow) -> None:
    """The invited channels, plus the default channels if the invitation includes them."""
    stream_ids = list(invitation.stream_ids)
    if invitation.include_realm_default_subscriptions:
        stream_ids += await default_store.list_default_stream_ids(tx)
    await join_first_channels(rt, tx, user, stream_ids)


async def _join_groups(rt: Runtime, tx: Tx, user: UserRow, group_ids: list[int]) -> None:
    events = []
    for group_id in group_ids:
        group = await group_store.get_group(tx, group_id)
        if group is None or group.deactivated or group.is_system_group:
            continue  # removed or deactivated since the invitation was made
        await group_store.insert_members(tx, group_id, [user.id])
        events.append(UserGroupAddMembersEvent(group_id=group_id, user_ids=[user.id]))
    await publish_to_active(rt, tx, events)
