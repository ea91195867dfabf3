"""Applier for `navigation_view` events (loaded by apply_events)."""

from __future__ import annotations

from tests.support.apply_events import JsonDict, applier


@applier("navigation_view")
def _navigation_view(state: JsonDict, event: JsonDict) -> None:
    if "navigation_views" not in state:
        return
    views: list[JsonDict] = state["navigation_views"]
    if event["op"] == "add":
        views.append(event["navigation_view"])
    elif event["op"] == "update":
        for view in views:
            if view["fragment"] == event["fragment"]:
                view.update(event["data"])
    else:
        state["navigation_views"] = [v for v in views if v["fragment"] != event["fragment"]]
