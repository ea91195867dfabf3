"""User mentions (`@**Name**`, `@**Name|id**`, `@_**Name**`, wildcards) and group mentions.

Lookups use only the RenderContext; what was mentioned is recorded in the RenderState.
"""

from __future__ import annotations

import re
from typing import Any
from xml.etree.ElementTree import Element

from teamchat.render.context import CurrentRender, MentionTarget, RenderContext
from teamchat.render.links import BEFORE_ALLOWED_RE
from teamchat.render.md import AtomicString, CompiledInlineProcessor, MatchResult

MENTIONS_RE = re.compile(BEFORE_ALLOWED_RE + r"@(?P<silent>_?)\*\*(?P<match>[^*]+)\*\*")
USER_GROUP_MENTIONS_RE = re.compile(BEFORE_ALLOWED_RE + r"@(?P<silent>_?)\*(?P<match>[^*]+)\*")
_ID_SYNTAX_RE = re.compile(r"(?P<full_name>.+)?\|(?P<user_id>[0-9]+)$")

# zulip-compat: a mention of a role-based system group shows the group's display name.
SYSTEM_GROUP_DISPLAY_NAMES = {
    "role:owners": "Owners",
    "role:administrators": "Administrators",
    "role:moderators": "Moderators",
    "role:fullmembers": "Full members",
    "role:members": "Members",
    "role:everyone": "Everyone",
    "role:internet": "Everyone on the internet",
    "role:nobody": "Nobody",
}

# zulip-compat: "channel" and "stream" are synonyms; both stand for everyone in the channel.
STREAM_WILDCARDS = frozenset({"all", "everyone", "stream", "channel"})
TOPIC_WILDCARDS = frozenset({"topic"})


def _find_user(name: str, ctx: RenderContext) -> MentionTarget | None:
    """Resolve `Full Name` or `Full Name|id` or `|id`; None if unknown or ambiguous."""
    id_syntax = _ID_SYNTAX_RE.match(name)
    if id_syntax:
        user = ctx.users_by_id.get(int(id_syntax.group("user_id")))
        full_name = id_syntax.group("full_name")
        # zulip-compat: @**Name|id** must name the user with that id, exactly.
        if user is not None and full_name and user.full_name != full_name:
            return None
        return user
    candidates = ctx.users_by_name.get(name.casefold(), [])
    # Several users share this name: only @**Name|id** can tell which one is meant.
    return candidates[0] if len(candidates) == 1 else None


class UserMentionProcessor(CurrentRender, CompiledInlineProcessor):
    """`@**Full Name**` and friends become `<span class="user-mention" data-user-id=...>`."""

    def __init__(self) -> None:
        super().__init__(MENTIONS_RE)

    def handleMatch(self, m: Any, data: str) -> MatchResult:
        name: str = m.group("match")
        silent = m.group("silent") == "_"
        element = Element("span")
        if name in STREAM_WILDCARDS:
            self.state.stream_wildcard |= not silent
            element.set("class", "user-mention channel-wildcard-mention")
            element.set("data-user-id", "*")
        elif name in TOPIC_WILDCARDS:
            self.state.topic_wildcard |= not silent
            element.set("class", "topic-mention")
        else:
            user = _find_user(name, self.ctx)
            if user is None:
                # zulip-compat: no mention; the bold pattern then renders @<strong>name</strong>.
                return None, None, None
            if not silent:
                self.state.mentioned_user_ids.add(user.user_id)
            name = user.full_name
            element.set("class", "user-mention")
            element.set("data-user-id", str(user.user_id))
        if silent:
            element.set("class", element.get("class", "") + " silent")
        element.text = AtomicString(name if silent else "@" + name)
        return element, m.start(), m.end()


class UserGroupMentionProcessor(CurrentRender, CompiledInlineProcessor):
    """`@*group name*` becomes `<span class="user-group-mention" data-user-group-id=...>`."""

    def __init__(self) -> None:
        super().__init__(USER_GROUP_MENTIONS_RE)

    def handleMatch(self, m: Any, data: str) -> MatchResult:
        # zulip-compat: group names match case-insensitively; the display keeps the real name.
        wanted = m.group("match").casefold()
        found = next(
            (
                (name, group_id)
                for name, group_id in self.ctx.groups_by_name.items()
                if name.casefold() == wanted
            ),
            None,
        )
        if found is None:
            return None, None, None
        name, group_id = found
        name = SYSTEM_GROUP_DISPLAY_NAMES.get(name, name)
        silent = m.group("silent") == "_"
        if not silent:
            self.state.mentioned_group_ids.add(group_id)
        element = Element("span")
        element.set("class", "user-group-mention silent" if silent else "user-group-mention")
        element.set("data-user-group-id", str(group_id))
        element.text = AtomicString(name if silent else "@" + name)
        return element, m.start(), m.end()


def silence_mentions(line: str) -> str:
    """Make every user and group mention in `line` silent (used inside quotes)."""
    line = MENTIONS_RE.sub(lambda m: "@_**{}**".format(m.group("match")), line)
    return USER_GROUP_MENTIONS_RE.sub(lambda m: "@_*{}*".format(m.group("match")), line)
