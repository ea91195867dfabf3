"""How much one request may ask for, so that no request holds the single writer for long.

Every write runs under the one writer lock: a request that creates thousands of rows makes
every other sender wait. These caps keep each request to well under a second of writing on a
small machine; the README's configuration section lists them.
"""

from __future__ import annotations

from teamchat.errors import ZulipError

# POST/PATCH/DELETE /users/me/subscriptions: channels named in one request.
MAX_CHANNELS_PER_REQUEST = 100
# Users named in `principals`, and users or subgroups added/removed in one group change.
MAX_USERS_PER_REQUEST = 1000
# Subscription rows one request may create or remove: channels x users.
MAX_SUBSCRIPTIONS_PER_REQUEST = 10000
# Message ids in one POST /messages/flags (Zulip's web app sends at most 1,000 at a time).
MAX_MESSAGE_IDS_PER_REQUEST = 5000


class TooManyItemsError(ZulipError):
    def __init__(self, name: str, limit: int) -> None:
        super().__init__(f"{name} has too many items (at most {limit})")


def check_count(name: str, count: int, limit: int) -> None:
    """Refuse a request that names more than `limit` items in parameter `name`."""
    if count > limit:
        raise TooManyItemsError(name, limit)


def check_subscription_count(channels: int, users: int) -> None:
    """Refuse a subscription change of more than MAX_SUBSCRIPTIONS_PER_REQUEST rows."""
    if channels * users > MAX_SUBSCRIPTIONS_PER_REQUEST:
        raise ZulipError(
            f"Too many subscriptions in one request: {channels} channels for {users} users "
            f"(at most {MAX_SUBSCRIPTIONS_PER_REQUEST} in all)"
        )


def check_int_range(name: str, value: int, limit: int) -> int:
    """`value` if -limit <= value <= limit, else "`name` is too large/small"."""
    if value > limit:
        raise ZulipError(f"{name} is too large")
    if value < -limit:
        raise ZulipError(f"{name} is too small")
    return value
