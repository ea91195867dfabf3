"""The client-side oracle for message events: unread_msgs, starred_messages, user_topics,
muted_topics, recent_private_conversations and max_message_id (Zulip's apply_event).

Unread messages are kept raw (one record per message) and rendered back into Zulip's
`unread_msgs` shape when asked, so muting changes recompute `count` and `mentions`.
"""

from __future__ import annotations

from typing import Any

from tests.support.messaging_state import Oracle

JsonDict = dict[str, Any]
MUTED, UNMUTED, FOLLOWED = 1, 2, 3


class MessageOracle(Oracle):
    def __init__(self, state: JsonDict, user_id: int, *, include_subscribers: bool) -> None:
        super().__init__(state, user_id, include_subscribers=include_subscribers)
        self.unread: dict[int, JsonDict] = {}
        unread = self.state.get("unread_msgs")
        if unread is not None:
            self._load_unread(unread)

    def _load_unread(self, unread: JsonDict) -> None:
        mentions = set(unread["mentions"])
        for pm in unread["pms"]:
            for mid in pm["unread_message_ids"]:
                self.unread[mid] = {"kind": "pm", "key": pm["other_user_id"]}
        for huddle in unread["huddles"]:
            for mid in huddle["unread_message_ids"]:
                self.unread[mid] = {"kind": "huddle", "key": huddle["user_ids_string"]}
        for item in unread["streams"]:
            for mid in item["unread_message_ids"]:
                self.unread[mid] = {
                    "kind": "stream",
                    "stream_id": item["stream_id"],
                    "topic": item["topic"],
                }
        for mid in mentions:
            if mid in self.unread:
                self.unread[mid]["mentioned"] = True

    def apply(self, events: list[JsonDict]) -> JsonDict:
        super().apply(events)
        if "unread_msgs" in self.state:
            self.state["unread_msgs"] = self.render_unread()
        return self.state

    # -- muting -------------------------------------------------------------------------
    def _is_muted(self, stream_id: int, topic: str) -> bool:
        policy = next(
            (
                t["visibility_policy"]
                for t in self.state.get("user_topics", [])
                if t["stream_id"] == stream_id and t["topic_name"].lower() == topic.lower()
            ),
            0,
        )
        stream_muted = any(
            s["stream_id"] == stream_id and s["is_muted"]
            for s in self.state.get("subscriptions", [])
        )
        if stream_muted:
            return policy not in (UNMUTED, FOLLOWED)
        return policy == MUTED

    def render_unread(self) -> JsonDict:
        pms: dict[int, list[int]] = {}
        huddles: dict[str, list[int]] = {}
        streams: dict[tuple[int, str], list[int]] = {}
        mentions, count = [], 0
        for mid in sorted(self.unread):
            record = self.unread[mid]
            muted = False
            if record["kind"] == "stream":
                streams.setdefault((record["stream_id"], record["topic"]), []).append(mid)
                muted = self._is_muted(record["stream_id"], record["topic"])
            elif record["kind"] == "pm":
                pms.setdefault(record["key"], []).append(mid)
            else:
                huddles.setdefault(record["key"], []).append(mid)
            count += not muted
            if record.get("mentioned") or (record.get("wildcard") and not muted):
                mentions.append(mid)
        return {
            "pms": [
                {"other_user_id": k, "sender_id": k, "unread_message_ids": v}
                for k, v in sorted(pms.items())
            ],
            "streams": [
                {"stream_id": s, "topic": t, "unread_message_ids": v}
                for (s, t), v in sorted(streams.items())
            ],
            "huddles": [
                {"user_ids_string": k, "unread_message_ids": v} for k, v in sorted(huddles.items())
            ],
            "mentions": mentions,
            "count": count,
            "old_unreads_missing": False,
        }

    # -- messages -----------------------------------------------------------------------
    def _record(self, message: JsonDict, flags: list[str]) -> JsonDict:
        if message["type"] == "stream":
            record: JsonDict = {
                "kind": "stream",
                "stream_id": message["stream_id"],
                "topic": message["subject"],
            }
        else:
            ids = sorted(u["id"] for u in message["display_recipient"])
            others = [i for i in ids if i != self.user_id]
            if len(others) <= 1:
                record = {"kind": "pm", "key": others[0] if others else self.user_id}
            else:
                record = {"kind": "huddle", "key": ",".join(map(str, ids))}
        record["mentioned"] = "mentioned" in flags
        record["wildcard"] = "wildcard_mentioned" in flags
        return record

    def on_message(self, event: JsonDict) -> None:
        message, flags = event["message"], event["flags"]
        if "max_message_id" in self.state:
            self.state["max_message_id"] = max(self.state["max_message_id"], message["id"])
        if "read" not in flags:
            self.unread[message["id"]] = self._record(message, flags)
        if "starred" in flags and "starred_messages" in self.state:
            self.state["starred_messages"].append(message["id"])
        if message["type"] == "private" and "recent_private_conversations" in self.state:
            others = sorted(
                u["id"] for u in message["display_recipient"] if u["id"] != self.user_id
            )
            conversations = [
                c for c in self.state["recent_private_conversations"] if c["user_ids"] != others
            ]
            conversations.append({"user_ids": others, "max_message_id": message["id"]})
            conversations.sort(key=lambda c: -c["max_message_id"])
            self.state["recent_private_conversations"] = conversations

    def on_update_message_flags(self, event: JsonDict) -> None:
        flag, ids, add = event["flag"], event["messages"], event["op"] == "add"
        if flag == "read":
            if add and event["all"]:
                self.unread.clear()
            elif add:
                for mid in ids:
                    self.unread.pop(mid, None)
            else:
                for key, detail in event["message_details"].items():
                    self.unread[int(key)] = self._detail_record(detail)
        if flag == "starred" and "starred_messages" in self.state:
            starred = set(self.state["starred_messages"])
            starred = starred | set(ids) if add else starred - set(ids)
            self.state["starred_messages"] = sorted(starred)

    def _detail_record(self, detail: JsonDict) -> JsonDict:
        if detail["type"] == "stream":
            record = {"kind": "stream", "stream_id": detail["stream_id"], "topic": detail["topic"]}
        elif len(detail["user_ids"]) <= 1:
            record = {"kind": "pm", "key": (detail["user_ids"] or [self.user_id])[0]}
        else:
            ids = sorted([*detail["user_ids"], self.user_id])
            record = {"kind": "huddle", "key": ",".join(map(str, ids))}
        record["mentioned"] = detail.get("mentioned", False)
        return record

    def on_delete_message(self, event: JsonDict) -> None:
        ids = event.get("message_ids") or [event["message_id"]]
        for mid in ids:
            self.unread.pop(mid, None)
        if "starred_messages" in self.state:
            self.state["starred_messages"] = [
                m for m in self.state["starred_messages"] if m not in ids
            ]
        if event["message_type"] == "private" and "recent_private_conversations" in self.state:
            self.state["recent_private_conversations"] = [
                c
                for c in self.state["recent_private_conversations"]
                if c["max_message_id"] not in ids
            ]

    def on_update_message(self, event: JsonDict) -> None:
        new_stream = event.get("new_stream_id")
        new_topic = event.get("subject")
        for mid in event["message_ids"]:
            record = self.unread.get(mid)
            if record is None or record["kind"] != "stream":
                continue
            if new_stream is not None:
                record["stream_id"] = new_stream
            if new_topic is not None:
                record["topic"] = new_topic
        record = self.unread.get(event["message_id"])
        if record is not None and "rendered_content" in event:
            record["mentioned"] = "mentioned" in event["flags"]
            record["wildcard"] = "wildcard_mentioned" in event["flags"]

    # -- topics -------------------------------------------------------------------------
    def on_user_topic(self, event: JsonDict) -> None:
        if "user_topics" not in self.state:
            return
        topics = [
            t
            for t in self.state["user_topics"]
            if not (
                t["stream_id"] == event["stream_id"]
                and t["topic_name"].lower() == event["topic_name"].lower()
            )
        ]
        if event["visibility_policy"]:
            topics.append(
                {
                    k: event[k]
                    for k in ("stream_id", "topic_name", "last_updated", "visibility_policy")
                }
            )
        self.state["user_topics"] = topics

    def on_muted_topics(self, event: JsonDict) -> None:
        if "muted_topics" in self.state:
            self.state["muted_topics"] = event["muted_topics"]

    def _subscription_remove(self, event: JsonDict) -> None:
        super()._subscription_remove(event)
        gone = {s["stream_id"] for s in event["subscriptions"]}
        for mid in [m for m, r in self.unread.items() if r.get("stream_id") in gone]:
            del self.unread[mid]


def apply_message_events(
    state: JsonDict, events: list[JsonDict], user_id: int, *, include_subscribers: bool = False
) -> JsonDict:
    return MessageOracle(state, user_id, include_subscribers=include_subscribers).apply(events)
