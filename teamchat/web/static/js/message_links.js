// Links to a message and Zulip's quote-and-reply text. Pure: `node --test` checks them.

import { channelHash, dmHash, dmUserIds } from "./narrow.js";

// The conversation a message belongs to, as a narrow.
export function conversationOf(message, myId) {
  if (message.type === "stream") return { kind: "channel", streamId: message.stream_id, topic: message.subject };
  return { kind: "dm", userIds: dmUserIds(message, myId) };
}

// Zulip's permalink: #narrow/channel/ID-name/topic/T/near/ID or #narrow/dm/IDS-x/near/ID.
export function nearHash(message, lookup, myId) {
  const base =
    message.type === "stream"
      ? channelHash(message.stream_id, lookup.streamName(message.stream_id), message.subject)
      : dmHash(dmUserIds(message, myId), lookup.userName);
  return `${base}/near/${message.id}`;
}

export function messageUrl(origin, message, lookup, myId) {
  return `${origin}/${nearHash(message, lookup, myId)}`;
}

// A fence longer than any run of backticks in the text, as Zulip's quote_message does.
function fenceFor(text) {
  const longest = Math.max(0, ...[...text.matchAll(/`{3,}/g)].map((match) => match[0].length));
  return "`".repeat(Math.max(3, longest + 1));
}

// Zulip's quote form: "@_**Name|id** [said](link):" then the raw Markdown in a quote block.
export function quoteText(message, rawContent, url) {
  const fence = fenceFor(rawContent);
  const name = message.sender_full_name.replace(/[*|]/g, "");
  return `@_**${name}|${message.sender_id}** [said](${url}):\n${fence}quote\n${rawContent}\n${fence}\n`;
}
