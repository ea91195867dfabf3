"""Events about a user's navigation views (`navigation_view` add/update/remove)."""

from __future__ import annotations

from typing import Literal

import msgspec

from teamchat.events.types import Event, register_event_types


class NavigationViewObject(msgspec.Struct, kw_only=True):
    fragment: str
    is_pinned: bool
    name: str | None


class NavigationViewData(msgspec.Struct, kw_only=True, omit_defaults=True):
    """Only the changed properties."""

    is_pinned: bool | msgspec.UnsetType = msgspec.UNSET
    name: str | msgspec.UnsetType = msgspec.UNSET


class NavigationViewAddEvent(Event, tag="navigation_view", kw_only=True):
    op: Literal["add"] = "add"
    navigation_view: NavigationViewObject


class NavigationViewUpdateEvent(Event, tag="navigation_view", kw_only=True):
    op: Literal["update"] = "update"
    fragment: str
    data: NavigationViewData


class NavigationViewRemoveEvent(Event, tag="navigation_view", kw_only=True):
    op: Literal["remove"] = "remove"
    fragment: str


register_event_types(NavigationViewAddEvent, NavigationViewUpdateEvent, NavigationViewRemoveEvent)
