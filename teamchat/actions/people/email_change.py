"""A user changing their own email address (PATCH /settings `email`): a confirmation link is
mailed to the new address; opening it (GET /accounts/confirm_new_email/{key}/) makes the
change, with the `realm_user` events for the new delivery email (and API email, avatar).
"""

from __future__ import annotations

import secrets

from teamchat import store
from teamchat.actions.org.mail import mail_configured, send_email
from teamchat.actions.people.user_admin import check_email_available, publish_email_changes
from teamchat.errors import ZulipError
from teamchat.lib import realm_settings
from teamchat.records import UserRow
from teamchat.runtime import Runtime
from teamchat.store import email_changes as change_store
from teamchat.store.conn import IntegrityError

# zulip-compat: Zulip's confirmation link for an email change is valid for a day.
LINK_VALIDITY_SECS = 86400
CHECK_YOUR_EMAIL = "Check your email for a confirmation link. "


async def check_start_email_change(rt: Runtime, user: UserRow, raw: str, realm_url: str) -> str:
    """Mail a confirmation link to the new address; return Zulip's `account_email` text."""
    email = raw.strip()
    async with rt.db.read() as conn:
        realm = await store.realm.get_realm(conn)
        assert realm is not None
        if realm_settings.load(realm.settings_json).email_changes_disabled and not user.is_admin:
            raise ZulipError("Email address changes are disabled in this organization.")
        if email.casefold() == user.delivery_email.casefold():
            raise ZulipError("New email is the same as your current email.")
        await check_email_available(conn, email)
    if not mail_configured(rt.settings):
        raise ZulipError(
            "This server sends no email, so it cannot confirm a new address; "
            "ask an organization owner to change it."
        )
    key = secrets.token_urlsafe(24)
    async with rt.db.write() as tx:
        await change_store.replace_pending(tx, user.id, key, email, rt.now())
    link = f"{realm_url}/accounts/confirm_new_email/{key}/"
    body = (
        f"Hi {user.full_name},\n\nSomeone (hopefully you) asked to change the email address of "
        f"your account in {realm.name} from {user.delivery_email} to {email}.\n\n"
        f"To confirm, open this link within a day:\n{link}\n\n"
        "If you did not ask for this, ignore this email.\n"
    )
    if not await send_email(
        rt.settings, to=email, subject=f"Confirm your new email for {realm.name}", body=body
    ):
        raise ZulipError("The confirmation email could not be sent; try again later.")
    return CHECK_YOUR_EMAIL


async def do_confirm_email_change(rt: Runtime, key: str) -> tuple[str, str]:
    """Make the change a link confirms; return (old email, new email)."""
    async with rt.db.write() as tx:
        pending = await change_store.get(tx, key)
        if pending is None or rt.now() - pending[2] > LINK_VALIDITY_SECS:
            raise ZulipError("This confirmation link has expired or been used.")
        user_id, email, _ = pending
        user = await store.users.get_user_by_id(tx, user_id)
        if user is None or not user.is_active:
            raise ZulipError("This account is deactivated.")
        await check_email_available(tx, email)
        try:
            await store.users.update_delivery_email(tx, user.id, email)
        except IntegrityError:
            raise ZulipError(f"Email '{email}' already in use") from None
        await change_store.delete(tx, key)
        fresh = await store.users.get_user_by_id(tx, user.id)
        assert fresh is not None
        await publish_email_changes(rt, tx, user, fresh)
    return user.delivery_email, email
