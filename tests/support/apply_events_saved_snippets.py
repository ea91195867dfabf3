"""Appliers for `saved_snippets` and `drafts` events (loaded by apply_events)."""

from __future__ import annotations

from tests.support.apply_events import JsonDict, applier


@applier("saved_snippets")
def _saved_snippets(state: JsonDict, event: JsonDict) -> None:
    if "saved_snippets" not in state:
        return
    snippets: list[JsonDict] = state["saved_snippets"]
    if event["op"] == "add":
        snippets.append(event["saved_snippet"])
    elif event["op"] == "update":
        for index, snippet in enumerate(snippets):
            if snippet["id"] == event["saved_snippet"]["id"]:
                snippets[index] = event["saved_snippet"]
    else:
        state["saved_snippets"] = [s for s in snippets if s["id"] != event["saved_snippet_id"]]


@applier("drafts")
def _drafts(state: JsonDict, event: JsonDict) -> None:
    if "drafts" not in state:
        return
    drafts: list[JsonDict] = state["drafts"]
    if event["op"] == "add":
        drafts.extend(event["drafts"])
    elif event["op"] == "update":
        drafts[:] = [event["draft"] if d["id"] == event["draft"]["id"] else d for d in drafts]
    else:
        drafts[:] = [d for d in drafts if d["id"] != event["draft_id"]]
    drafts.sort(key=lambda d: (d["timestamp"], d["id"]))
