"""Zulip's role-based system groups: names, the roles they hold, and how they nest.

Membership of a system group is derived from roles, never stored: `role:moderators` holds
moderators directly and `role:administrators` (which holds owners) as a subgroup, and so on.
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
        (MODERATORS,),
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


def direct_group_for_role(role: Role) -> list[str]:
    """The system groups a user of `role` is a direct member of."""
    return [name for name, (_, roles, _) in SYSTEM_GROUPS.items() if role in roles]
