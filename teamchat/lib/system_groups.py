"""Zulip's role-based system groups: names, the roles they hold, and how they nest.

Membership of a system group is derived from roles, never stored: `role:moderators` holds
moderators directly and `role:administrators` (which holds owners) as a subgroup, and so on.
`role:fullmembers` holds the members whose account is older than the realm's
`waiting_period_threshold` (in days); `role:members` holds every member directly and
`role:fullmembers` as its subgroup, as in Zulip.
"""

from __future__ import annotations

from collections.abc import Mapping

from teamchat.records import Role

OWNERS = "role:owners"
ADMINISTRATORS = "role:administrators"
MODERATORS = "role:moderators"
FULL_MEMBERS = "role:fullmembers"
MEMBERS = "role:members"
EVERYONE = "role:everyone"
INTERNET = "role:internet"
NOBODY = "role:nobody"

# name -> (description, roles that are direct members, direct subgroups), in creation order.
SYSTEM_GROUPS: Mapping[str, tuple[str, frozenset[Role], tuple[str, ...]]] = {
    OWNERS: ("Owners of this organization", frozenset({Role.OWNER}), ()),
    ADMINISTRATORS: (
        "Administrators of this organization, including owners",
        frozenset({Role.ADMINISTRATOR}),
        (OWNERS,),
    ),
    MODERATORS: (
        "Moderators of this organization, including administrators",
        frozenset({Role.MODERATOR}),
        (ADMINISTRATORS,),
    ),
    FULL_MEMBERS: (
        "Members of this organization, not including new accounts and guests",
        frozenset({Role.MEMBER}),
        (MODERATORS,),
    ),
    MEMBERS: (
        "Members of this organization, not including guests",
        frozenset({Role.MEMBER}),
        (FULL_MEMBERS,),
    ),
    EVERYONE: (
        "Everyone in this organization, including guests",
        frozenset({Role.GUEST}),
        (MEMBERS,),
    ),
    INTERNET: ("Everyone on the Internet", frozenset(), (EVERYONE,)),
    NOBODY: ("Nobody", frozenset(), ()),
}


def roles_in(name: str) -> frozenset[Role]:
    """Every role whose users belong to system group `name`, through subgroups too."""
    _, roles, subgroups = SYSTEM_GROUPS[name]
    result = set(roles)
    for subgroup in subgroups:
        result |= roles_in(subgroup)
    return frozenset(result)


def direct_group_for_role(role: Role, *, is_full_member: bool = True) -> list[str]:
    """The system groups a user of `role` is a direct member of.

    A member still within the waiting period (`is_full_member` false) is not in
    `role:fullmembers`.
    """
    return [
        name
        for name, (_, roles, _) in SYSTEM_GROUPS.items()
        if role in roles and (is_full_member or name != FULL_MEMBERS)
    ]


SECS_PER_DAY = 86400


def is_full_member(role: Role, date_joined: int, now: int, waiting_period_days: int) -> bool:
    """Zulip's "full member": any role but member, or a member past the waiting period."""
    if role != Role.MEMBER:
        return True
    return (now - date_joined) // SECS_PER_DAY >= waiting_period_days
