"""Finding a user by an address the API accepts: a read with no other actions below it, so
that the modules which look people up need not import the account actions."""

from __future__ import annotations

import re

from teamchat import store
from teamchat.records import UserRow
from teamchat.store.db import Conn

_DUMMY_LOCAL_RE = re.compile(r"user([1-9][0-9]*)", re.ASCII | re.IGNORECASE)


async def find_user_by_email(conn: Conn, email: str) -> UserRow | None:
    """A user by real email or by the API's dummy `user{id}@{realm host}` address."""
    user = await store.users.get_user_by_delivery_email(conn, email)
    if user is not None:
        return user
    local, _, domain = email.partition("@")
    # Only the canonical form: `user05@` or Unicode digits must not name user 5 a second way.
    alias = _DUMMY_LOCAL_RE.fullmatch(local)
    if alias is not None:
        realm = await store.realm.get_realm(conn)
        if realm is not None and domain.lower() == realm.host.lower():
            return await store.users.get_user_by_id(conn, int(alias[1]))
    return None
