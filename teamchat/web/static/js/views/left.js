// The left pane: the message views, subscribed channels with unread counts (the current
// channel expanded to its topics, most recent first), direct message conversations.

import { badge, el } from "../dom.js";
import { channelsFooter, channelsHeading } from "./channel_bar.js";
import { channelHash, dmHash, narrowToHash, sameNarrow } from "../narrow.js";
import { focusKey, restoreFocus } from "./keep_focus.js";
import { notice } from "./popup_menu.js";
import { topicMenuButton } from "./topic_menu.js";

function link(href, label, count, current, extraClass = "") {
  return el("li", { class: `${extraClass}${current ? " current" : ""}` }, [
    el("a", { href, "aria-current": current ? "page" : null }, [
      el("span", { class: "label", text: label }),
      badge(count, "unread"),
    ]),
  ]);
}

function topicList(state, streamId, narrow) {
  const topics = state.sortedTopics(streamId);
  if (topics === null) return el("p", { class: "loading", text: "Loading topics…" });
  const items = topics.map((topic) => {
    const current = sameNarrow(narrow, { kind: "channel", streamId, topic });
    const href = channelHash(streamId, state.streamName(streamId), topic);
    const item = link(href, topic || "(no topic)", state.unread.topicCount(streamId, topic), current, "topic");
    const messageId = state.topics.get(streamId).get(topic);
    const menu = topicMenuButton(state, { streamId, topic, messageId }, (text) => notice(text, true));
    if (menu) item.append(menu);
    return item;
  });
  return el("ul", { class: "topics", "aria-label": `Topics in ${state.streamName(streamId)}` }, items);
}

function channelItems(state, narrow) {
  return state.sortedChannels().map((sub) => {
    const streamId = sub.stream_id;
    const expanded = narrow.kind === "channel" && narrow.streamId === streamId;
    const current = expanded && narrow.topic === undefined;
    const item = link(
      channelHash(streamId, sub.name),
      `# ${sub.name}`,
      state.unread.channelCount(streamId),
      current,
      "channel",
    );
    item.firstChild.setAttribute("aria-expanded", String(expanded));
    if (expanded) item.append(topicList(state, streamId, narrow));
    return item;
  });
}

function dmItems(state, narrow) {
  const names = (id) => state.userName(id);
  return state.sortedDms().map(({ userIds }) => {
    const label = userIds.map(names).join(", ");
    const current = sameNarrow(narrow, { kind: "dm", userIds });
    return link(dmHash(userIds, names), label, state.unread.dmCount(userIds), current, "dm");
  });
}

export function renderLeft(container, state, narrow) {
  const lookup = { streamName: (id) => state.streamName(id), userName: (id) => state.userName(id) };
  const view = (kind, label, count) =>
    link(narrowToHash({ kind }, lookup), label, count, sameNarrow(narrow, { kind }), "view");
  const mentions = [...state.unread.mentions].filter((id) => state.unread.isUnread(id)).length;
  const focused = focusKey(container);
  container.replaceChildren(
    el("ul", { class: "views" }, [
      view("recent", "Recent conversations", 0),
      view("all", "All messages", state.unread.count()),
      view("starred", "Starred messages", 0),
      view("mentioned", "Mentions", mentions),
    ]),
    channelsHeading(),
    el("ul", { class: "channels" }, channelItems(state, narrow)),
    el("div", { class: "left-channels-more" }, [channelsFooter(state)]),
    el("h2", { text: "Direct messages" }),
    el("ul", { class: "dms" }, dmItems(state, narrow)),
  );
  restoreFocus(container, focused);
}
