"""Reading people as a given user sees them (GET /users and friends)."""

from __future__ import annotations

from teamchat import store
from teamchat.actions.users import find_user_by_email
from teamchat.errors import ZulipError
from teamchat.lib import wire
from teamchat.lib.api_types import UserObject
from teamchat.records import UserRow
from teamchat.runtime import Runtime


async def get_members(
    rt: Runtime, viewer: UserRow, *, user_ids: list[int] | None, client_gravatar: bool
) -> list[UserObject]:
    """Every user (or those of `user_ids`) as `viewer` sees them."""
    async with rt.db.read() as conn:
        realm = await store.realm.get_realm(conn)
        users = await store.users.list_users(conn, user_ids=user_ids)
    assert realm is not None
    return [
        wire.user_object(u, viewer=viewer, realm_host=realm.host, client_gravatar=client_gravatar)
        for u in users
    ]


async def get_member(
    rt: Runtime,
    viewer: UserRow,
    *,
    user_id: int | None = None,
    email: str | None = None,
    client_gravatar: bool = False,
) -> UserObject:
    """One user by id or email, as `viewer` sees them; 'No such user' otherwise."""
    async with rt.db.read() as conn:
        realm = await store.realm.get_realm(conn)
        if user_id is not None:
            target = await store.users.get_user_by_id(conn, user_id)
        else:
            target = await find_user_by_email(conn, email or "")
            # The real address only finds users whose address this viewer may see.
            if (
                target is not None
                and email is not None
                and email.lower() == target.delivery_email.lower()
                and not wire.can_see_delivery_email(viewer, target)
            ):
                target = None
    assert realm is not None
    if target is None:
        raise ZulipError("No such user")
    return wire.user_object(
        target, viewer=viewer, realm_host=realm.host, client_gravatar=client_gravatar
    )
