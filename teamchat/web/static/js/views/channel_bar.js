// Above a channel's messages when this person is not subscribed to it: the channel's name,
// what it is about, and "Subscribe" (where they may), as Zulip's web app offers it; above
// All messages when they are subscribed to no channel at all: "Browse channels". Also the
// left pane's ways into the channel browser, and its empty state.

import { el } from "../dom.js";
import { extras } from "../realm_extras.js";
import { privacyLabel, subscribeSelf } from "./channel_settings.js";

// main.js opens the channel browser for any click on [data-action=browse-channels].
const browseButton = () =>
  el("button", { type: "button", class: "primary", dataset: { action: "browse-channels" }, text: "Browse channels" });

export function renderChannelBar(node, state, narrow) {
  if ((narrow.kind === "all" || narrow.kind === "recent") && !state.channels.size) {
    // Nothing will arrive here until this person joins a channel: say how.
    node.hidden = false;
    node.replaceChildren(
      el("p", { text: "You are not subscribed to any channels. Browse them to find your team's conversations." }),
      browseButton(),
    );
    return;
  }
  if (narrow.kind !== "channel" || state.directory.isSubscribed(narrow.streamId)) {
    node.hidden = true;
    node.replaceChildren();
    return;
  }
  node.hidden = false;
  const stream = state.directory.get(narrow.streamId);
  if (!stream) {
    node.replaceChildren(
      el("p", { text: "This channel does not exist, or you do not have access to it." }),
      browseButton(),
    );
    return;
  }
  const me = state.users.get(state.myId) ?? { role: 400 };
  const result = el("span", { class: "channel-result", role: "status" });
  const canJoin = extras.permissions.canSubscribe(me, stream, false);
  node.replaceChildren(
    el("p", {}, [
      el("span", { text: "You are not subscribed to " }),
      el("strong", { text: `#${stream.name}` }),
      el("span", { text: `, a ${privacyLabel(stream).toLowerCase()} channel. ` }),
      el("span", {
        text: canJoin
          ? "Subscribe to get its new messages and to write in it."
          : "Ask someone who may add subscribers to add you.",
      }),
    ]),
    canJoin
      ? el("button", {
          type: "button",
          class: "primary",
          id: "channel-bar-subscribe",
          text: "Subscribe",
          onclick: () => subscribeSelf(stream, result),
        })
      : null,
    result,
  );
}

// The left pane's "Channels" heading with its browse button, and what to do when there are
// no channels in the list below it.
export function channelsHeading() {
  return el("div", { class: "left-heading" }, [
    el("h2", { text: "Channels" }),
    el("button", {
      type: "button",
      class: "left-browse",
      dataset: { action: "browse-channels" },
      "aria-label": "Browse channels",
      title: "Browse channels",
      text: "Browse",
    }),
  ]);
}

export function channelsFooter(state) {
  const others = state.directory
    .list()
    .filter((stream) => !state.directory.isSubscribed(stream.stream_id)).length;
  if (!state.channels.size) {
    return el("div", { class: "left-empty" }, [
      el("p", { text: "You are not subscribed to any channels." }),
      browseButton(),
    ]);
  }
  if (!others) return null;
  return el("button", {
    type: "button",
    class: "left-more",
    dataset: { action: "browse-channels" },
    text: `Browse ${others} more ${others === 1 ? "channel" : "channels"}`,
  });
}
