"""Email invitations (POST /invites, resend) and the invitation list and revocation.

Each address gets its own single-use link; the email is sent only when SMTP is configured,
after the invitations are recorded.
"""

from __future__ import annotations

import re

from teamchat import store
from teamchat.actions.org import invites, permissions
from teamchat.actions.org.invites import InvitationError, InviteOptions
from teamchat.actions.org.mail import NO_MAIL_TEXT, mail_configured, send_email
from teamchat.actions.org.user_groups import require_member_or_admin
from teamchat.config import Settings
from teamchat.errors import OrganizationOwnerRequiredError, ZulipError
from teamchat.lib.api_types import JsonDict
from teamchat.lib.validation import is_valid_email
from teamchat.records import InvitationRow, Role, UserRow
from teamchat.runtime import Runtime
from teamchat.store import invites as invite_store
from teamchat.store.db import Conn

_NAMED_ADDRESS_RE = re.compile(r"<(?P<email>.*)>")
# (address, problem, whether the address belongs to a deactivated account)
InviteErrors = list[tuple[str, str, bool]]


def parse_invitee_emails(raw: str) -> list[str]:
    """Zulip's get_invitee_emails_set: comma or newline separated, "Name <addr>" allowed."""
    emails: list[str] = []
    for part in re.split(r"[,\n]", raw):
        named = _NAMED_ADDRESS_RE.search(part)
        email = (named.group("email") if named else part).strip()
        if email and email not in emails:
            emails.append(email)
    return emails


async def _existing_user_errors(conn: Conn, emails: list[str]) -> InviteErrors:
    errors = []
    for email in emails:
        user = await store.users.get_user_by_delivery_email(conn, email)
        if user is not None and user.is_active:
            errors.append((email, "Already has an account.", False))
        elif user is not None:
            errors.append((email, "Account has been deactivated.", True))
    return errors


async def _check_emails(
    conn: Conn, raw_emails: str
) -> tuple[list[str], list[tuple[str, str, bool]]]:
    """The addresses to invite and those skipped as existing users (Zulip's messages)."""
    if not raw_emails:
        raise ZulipError("You must specify at least one email address.")
    emails = parse_invitee_emails(raw_emails)
    invalid = [(e, "Invalid address.", False) for e in emails if not is_valid_email(e)]
    if invalid:
        raise InvitationError(
            "Some emails did not validate, so we didn't send any invitations.",
            invalid,
            sent_invitations=False,
        )
    skipped = await _existing_user_errors(conn, emails)
    if skipped and len(skipped) == len(emails):
        raise InvitationError("We weren't able to invite anyone.", skipped, sent_invitations=False)
    skipped_emails = {email for email, _, _ in skipped}
    return [e for e in emails if e not in skipped_emails], skipped


async def do_invite_users(
    rt: Runtime, user: UserRow, raw_emails: str, options: InviteOptions, *, realm_url: str
) -> list[tuple[str, str]]:
    """POST /invites: record one invitation per new address, then email the links.

    Returns (address, link) for each email that could not be sent (no SMTP server, or it
    refused): the inviter shares those links another way."""
    require_member_or_admin(user)
    links: list[tuple[str, str]] = []
    async with rt.db.write() as tx:
        realm = await store.realm.get_realm(tx)
        assert realm is not None
        if not await permissions.has_realm_permission(
            tx, realm, user, "can_invite_users_group", now=rt.now()
        ):
            raise ZulipError("Insufficient permission")
        invites.check_role(user, options.invite_as)
        emails, skipped = await _check_emails(tx, raw_emails)
        expiry, text = await invites.check_options(rt, tx, user, options)
        for email in emails:
            key = invites.new_key()
            await invites.insert_invitation(
                rt, tx, user, options, key=key, email=email, expiry=expiry, welcome_text=text
            )
            links.append((email, invites.invite_link(realm_url, key)))
        await invites.notify_invites_changed(rt, tx, user.id)
    unsent = [
        (email, link)
        for email, link in links
        if not await _send_invitation(rt, user, realm.name, email, link)
    ]
    if skipped:
        error = InvitationError(
            "Some of those addresses are already using Zulip, so we didn't send them an "
            "invitation. We did send invitations to everyone else!",
            skipped,
            sent_invitations=True,
        )
        if unsent:
            error.data["email_problem"] = unsent_message(rt.settings)
            error.data["invite_links"] = unsent_links(unsent)
        raise error
    return unsent


def unsent_message(settings: Settings) -> str:
    """Why an invitation email was not sent (the links then go to the inviter)."""
    if not mail_configured(settings):
        return NO_MAIL_TEXT
    return "The email server refused or could not be reached, so some emails were not sent."


def unsent_links(unsent: list[tuple[str, str]]) -> list[JsonDict]:
    """The wire form of invitations whose email was not sent: [{"email", "link"}]."""
    return [{"email": email, "link": link} for email, link in unsent]


async def _send_invitation(
    rt: Runtime, referrer: UserRow, realm_name: str, email: str, link: str
) -> bool:
    body = (
        f"{referrer.full_name} has invited you to join {realm_name}.\n\n"
        f"Click the link below to create your account:\n\n{link}\n"
    )
    return await send_email(
        rt.settings, to=email, subject=f"Invitation to join {realm_name}", body=body
    )


def invite_object(invitation: InvitationRow, realm_url: str) -> JsonDict:
    """One entry of GET /invites."""
    data: JsonDict = {
        "id": invitation.id,
        "invited_by_user_id": invitation.referred_by,
        "invited": invitation.date_created,
        "expiry_date": invitation.expiry_date,
        "invited_as": invitation.invited_as,
        "is_multiuse": invitation.is_multiuse,
    }
    if invitation.is_multiuse:
        data["link_url"] = invites.invite_link(realm_url, invitation.key)
    else:
        data["email"] = invitation.email
        data["notify_referrer_on_join"] = invitation.notify_referrer_on_join
    return data


async def get_invites(rt: Runtime, user: UserRow, *, realm_url: str) -> list[JsonDict]:
    """GET /invites: every active invitation for administrators, one's own otherwise."""
    require_member_or_admin(user)
    async with rt.db.read() as conn:
        rows = await invite_store.list_active_invitations(
            conn, rt.now(), referred_by=None if user.is_admin else user.id
        )
    return [invite_object(row, realm_url) for row in rows]


async def _access_invitation(
    conn: Conn, user: UserRow, invite_id: int, *, multiuse: bool
) -> InvitationRow:
    invitation = await invite_store.get_invitation(conn, invite_id, multiuse=multiuse)
    if invitation is None or (not multiuse and invitation.status != invite_store.ACTIVE):
        raise ZulipError("No such invitation")
    if invitation.referred_by != user.id:
        if invitation.invited_as == Role.OWNER and not user.is_owner:
            raise OrganizationOwnerRequiredError()
        if not user.is_admin:
            raise ZulipError("Must be an organization administrator")
    if invitation.status == invite_store.REVOKED:
        raise ZulipError("Invitation has already been revoked")
    return invitation


async def do_revoke_user_invite(rt: Runtime, user: UserRow, invite_id: int) -> None:
    """DELETE /invites/{id}: the email invitation is deleted."""
    require_member_or_admin(user)
    async with rt.db.write() as tx:
        invitation = await _access_invitation(tx, user, invite_id, multiuse=False)
        await invite_store.delete(tx, invitation.id)
        await invites.notify_invites_changed(rt, tx, invitation.referred_by)


async def do_revoke_multiuse_invite(rt: Runtime, user: UserRow, invite_id: int) -> None:
    """DELETE /invites/multiuse/{id}: the link stops working (revoked)."""
    require_member_or_admin(user)
    async with rt.db.write() as tx:
        invitation = await _access_invitation(tx, user, invite_id, multiuse=True)
        await invite_store.set_status(tx, invitation.id, invite_store.REVOKED)
        await invites.notify_invites_changed(rt, tx, invitation.referred_by)


async def do_edit_multiuse_invite(
    rt: Runtime, user: UserRow, invite_id: int, edit: invites.InviteEdit
) -> None:
    """PATCH /invites/multiuse/{id}: change the role, channels and groups a live link grants,
    checked as when creating one; invites_changed to who manages it."""
    require_member_or_admin(user)
    if edit.is_empty():
        raise ZulipError("Nothing to change")
    async with rt.db.write() as tx:
        invitation = await _access_invitation(tx, user, invite_id, multiuse=True)
        if invites.is_expired(invitation, rt.now()):
            raise ZulipError("The invitation has expired.")
        changed = edit.applied_to(invitation)
        options = invites.InviteOptions(
            invite_as=changed.invited_as, expires_in_minutes=None,
            stream_ids=changed.stream_ids, group_ids=changed.group_ids,
            include_realm_default_subscriptions=changed.include_realm_default_subscriptions,
        )  # fmt: skip
        await invites.check_options(rt, tx, user, options)
        await invite_store.update_grants(tx, changed)
        await invites.notify_invites_changed(rt, tx, invitation.referred_by)


async def do_resend_user_invite(
    rt: Runtime, user: UserRow, invite_id: int, *, realm_url: str
) -> None:
    """POST /invites/{id}/resend: email the same link again (when mail is configured)."""
    require_member_or_admin(user)
    async with rt.db.read() as conn:
        invitation = await _access_invitation(conn, user, invite_id, multiuse=False)
        realm = await store.realm.get_realm(conn)
        referrer = await store.users.get_user_by_id(conn, invitation.referred_by)
    assert realm is not None and referrer is not None and invitation.email is not None
    if invites.is_expired(invitation, rt.now()):
        raise ZulipError("The invitation has expired.")
    link = invites.invite_link(realm_url, invitation.key)
    if not await _send_invitation(rt, referrer, realm.name, invitation.email, link):
        raise ZulipError(
            f"{unsent_message(rt.settings)} Share this invitation link with "
            f"{invitation.email} instead: {link}",
            invite_link=link,
        )
