"""The modules that react to every sent or edited message (embedded bots, outgoing webhooks,
link previews, thumbnails, mobile push, missed-message emails) register send and edit hooks
when imported. The server imports them on its first send or edit, not at start: together
with what they import (the send path, Markdown, rendering) they were a tenth of the start's
CPU. Processes that do not serve (the CLI) never load them, as before.

Hooks run in the order of HOOK_MODULES (each module's in its registration order), whichever
of them something else happened to import first.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TypeVar

HOOK_MODULES = (
    "teamchat.actions.integrations.embedded_bots",
    "teamchat.actions.integrations.outgoing_webhooks",
    "teamchat.actions.integrations.url_previews",
    "teamchat.actions.messages.thumbnail_hook",
    "teamchat.actions.notifications.mobile_push",
    "teamchat.actions.notifications.missed_emails",
)
_RANK = {name: rank for rank, name in enumerate(HOOK_MODULES)}
_state = {"serving": False}
_ready: set[int] = set()  # ids of the registries loaded and put in order

Hook = TypeVar("Hook", bound=Callable[..., object])


def serve() -> None:
    """This process serves: its sends and edits reach the hooks (loaded on first use)."""
    _state["serving"] = True


def load_into(hooks: list[Hook]) -> list[Hook]:
    """`hooks` (a registry the hook modules append to), after importing every hook module
    once if this process serves, in HOOK_MODULES order."""
    if _state["serving"] and id(hooks) not in _ready:
        for name in HOOK_MODULES:
            importlib.import_module(name)
        hooks.sort(key=lambda hook: _RANK.get(hook.__module__, len(_RANK)))
        _ready.add(id(hooks))
    return hooks
