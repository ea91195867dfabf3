"""Rows to Zulip's JSON shapes: users, emails, avatars, dates. Pure functions, no I/O."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable
from datetime import UTC, datetime

from teamchat.lib.api_types import ProfileValue, UserObject
from teamchat.records import EmailVisibility, ProfileValueRow, Role, UserRow


def iso_datetime(timestamp: int) -> str:
    """ISO 8601 with offset, as Zulip's `date_joined`."""
    return datetime.fromtimestamp(timestamp, UTC).isoformat()


def dummy_email(user_id: int, realm_host: str) -> str:
    return f"user{user_id}@{realm_host}"


def api_email(user: UserRow, realm_host: str) -> str:
    """The email the API shows for `user`: the real one only when everyone may see it."""
    if user.is_bot or user.email_address_visibility == EmailVisibility.EVERYONE:
        return user.delivery_email
    return dummy_email(user.id, realm_host)


def can_see_delivery_email(viewer: UserRow | None, target: UserRow) -> bool:
    """Whether `viewer` (None: anonymous) may see `target`'s real email address."""
    if target.is_bot:
        return True
    if viewer is not None and viewer.id == target.id:
        return True
    visibility = target.email_address_visibility
    if visibility == EmailVisibility.EVERYONE:
        return True
    if viewer is None or visibility == EmailVisibility.NOBODY:
        return False
    if visibility == EmailVisibility.MEMBERS:
        return not viewer.is_guest
    if visibility == EmailVisibility.MODERATORS:
        return viewer.is_moderator
    return viewer.is_admin


@functools.lru_cache(maxsize=4096)
def gravatar_url(email: str, avatar_version: int) -> str:
    digest = hashlib.md5(email.lower().encode(), usedforsecurity=False).hexdigest()
    return f"https://secure.gravatar.com/avatar/{digest}?d=identicon&version={avatar_version}"


def avatar_url(user: UserRow, *, client_gravatar: bool, email_visible: bool) -> str | None:
    """`avatar_url` for `user`; None when the client computes the Gravatar itself."""
    if user.avatar_source == "G":
        if client_gravatar and email_visible:
            return None
        return gravatar_url(user.delivery_email, user.avatar_version)
    return f"/user_avatars/{user.id}?version={user.avatar_version}"


def user_object(
    user: UserRow,
    *,
    viewer: UserRow | None,
    realm_host: str,
    client_gravatar: bool = False,
    profile_data: dict[str, ProfileValue] | None = None,
) -> UserObject:
    """The member object of GET /users as `viewer` sees `user`."""
    visible = can_see_delivery_email(viewer, user)
    obj = UserObject(
        user_id=user.id,
        email=api_email(user, realm_host),
        delivery_email=user.delivery_email if visible else None,
        full_name=user.full_name,
        avatar_url=avatar_url(user, client_gravatar=client_gravatar, email_visible=visible),
        avatar_version=user.avatar_version,
        date_joined=iso_datetime(user.date_joined),
        is_active=user.is_active,
        is_admin=user.is_admin,
        is_owner=user.is_owner,
        is_guest=user.is_guest,
        is_bot=user.is_bot,
        role=int(user.role),
        timezone=user.timezone,
    )
    # zulip-compat: format_user_row gives bots their owner (maybe null), people their profile.
    if user.is_bot:
        obj.bot_type = user.bot_type
        obj.bot_owner_id = user.bot_owner_id
    elif profile_data is not None:
        obj.profile_data = profile_data
    return obj


# zulip-compat: UserProfile.INACCESSIBLE_USER_NAME and get_avatar_for_inaccessible_user.
INACCESSIBLE_USER_NAME = "Unknown user"
INACCESSIBLE_USER_AVATAR_URL = "/static/images/unknown-user-avatar.png"


def inaccessible_user_object(user_id: int, realm_host: str) -> UserObject:
    """Zulip's "Unknown user" placeholder (get_data_for_inaccessible_user): only the id varies."""
    return UserObject(
        user_id=user_id,
        email=dummy_email(user_id, realm_host),
        delivery_email=None,
        full_name=INACCESSIBLE_USER_NAME,
        avatar_url=INACCESSIBLE_USER_AVATAR_URL,
        avatar_version=1,
        date_joined=iso_datetime(0),
        is_active=True,
        is_admin=False,
        is_owner=False,
        is_guest=False,
        is_bot=False,
        role=int(Role.MEMBER),
        timezone="",
        profile_data={},
    )


def inaccessible_sender_fields(user_id: int, realm_host: str) -> dict[str, str]:
    """A message's sender fields when the viewer may not access the sender."""
    return {
        "sender_full_name": INACCESSIBLE_USER_NAME,
        "sender_email": dummy_email(user_id, realm_host),
        "avatar_url": INACCESSIBLE_USER_AVATAR_URL,
    }


def profile_data_by_user(values: Iterable[ProfileValueRow]) -> dict[int, dict[str, ProfileValue]]:
    """`profile_data` objects keyed by user id (users without values are absent)."""
    result: dict[int, dict[str, ProfileValue]] = {}
    for row in values:
        value = ProfileValue(value=row.value)
        if row.rendered_value is not None:
            value.rendered_value = row.rendered_value
        result.setdefault(row.user_id, {})[str(row.field_id)] = value
    return result
