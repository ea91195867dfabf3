// Narrows (what the message list shows) and their URLs, written as Zulip's web app writes them
// (#narrow/channel/12-design/topic/logo, #narrow/dm/3-Iago, #narrow/is/starred, #feed).
// Pure: no DOM, so `node --test` can check it.
//
// A narrow is one of:
//   {kind: "all"} | {kind: "starred"} | {kind: "mentioned"} | {kind: "search", text}
//   {kind: "recent"} (the recent conversations view, #recent: not a message list)
//   {kind: "channel", streamId, topic?}  |  {kind: "dm", userIds: [sorted ids of the others]}

const HASH_REPLACEMENTS = new Map([["%", "."], ["(", ".28"], [")", ".29"], [".", ".2E"]]);

export function encodeHashComponent(text) {
  return encodeURIComponent(text).replace(/[%().]/g, (found) => HASH_REPLACEMENTS.get(found));
}

export function decodeHashComponent(text) {
  try {
    return decodeURIComponent(text.replace(/\./g, "%"));
  } catch {
    return null;
  }
}

const slug = (name) => encodeHashComponent(name.replace(/ /g, "-"));

export function channelHash(streamId, name, topic) {
  let hash = `#narrow/channel/${streamId}-${slug(name)}`;
  if (topic !== undefined) hash += `/topic/${encodeHashComponent(topic)}`;
  return hash;
}

export function dmHash(userIds, names) {
  const ids = [...userIds].sort((a, b) => a - b);
  const label = ids.length === 1 ? slug(names(ids[0])) : "group";
  return `#narrow/dm/${ids.join(",")}-${label}`;
}

export function narrowToHash(narrow, lookup) {
  switch (narrow.kind) {
    case "channel":
      return channelHash(narrow.streamId, lookup.streamName(narrow.streamId), narrow.topic);
    case "dm":
      return dmHash(narrow.userIds, lookup.userName);
    case "starred":
    case "mentioned":
      return `#narrow/is/${narrow.kind}`;
    case "search":
      return `#narrow/search/${encodeHashComponent(narrow.text)}`;
    case "recent":
      return "#recent";
    default:
      return "#feed";
  }
}

function leadingId(operand) {
  const match = /^(\d+)/.exec(operand || "");
  return match ? Number(match[1]) : null;
}

// The narrow of a URL hash; anything unknown is the combined feed.
export function hashToNarrow(hash) {
  const parts = hash.replace(/^#/, "").split("/");
  if (parts[0] === "recent") return { kind: "recent" };
  if (parts[0] !== "narrow") return { kind: "all" };
  const [, operator, operand, subOperator, subOperand] = parts;
  if ((operator === "channel" || operator === "stream") && leadingId(operand) !== null) {
    const narrow = { kind: "channel", streamId: leadingId(operand) };
    if (subOperator === "topic" && subOperand !== undefined) {
      const topic = decodeHashComponent(subOperand);
      if (topic !== null) narrow.topic = topic;
    }
    return narrow;
  }
  if (operator === "dm" || operator === "pm-with") {
    const ids = (operand || "").split("-")[0].split(",").map(Number);
    if (ids.length && ids.every((id) => Number.isInteger(id) && id > 0)) {
      return { kind: "dm", userIds: ids.sort((a, b) => a - b) };
    }
  }
  if (operator === "is" && (operand === "starred" || operand === "mentioned")) {
    return { kind: operand };
  }
  if (operator === "search" && operand) {
    const text = decodeHashComponent(operand);
    if (text) return { kind: "search", text };
  }
  return { kind: "all" };
}

// The narrow as the API's `narrow` parameter of GET /messages.
export function apiNarrow(narrow) {
  switch (narrow.kind) {
    case "channel": {
      const terms = [{ operator: "channel", operand: narrow.streamId }];
      if (narrow.topic !== undefined) terms.push({ operator: "topic", operand: narrow.topic });
      return terms;
    }
    case "dm":
      return [{ operator: "dm", operand: narrow.userIds }];
    case "starred":
    case "mentioned":
      return [{ operator: "is", operand: narrow.kind }];
    case "search":
      return parseSearch(narrow.text);
    default:
      return [];
  }
}

const SEARCH_OPERATORS = new Set(["channel", "stream", "topic", "sender", "is", "has", "dm", "id"]);

// Zulip's search syntax: `operator:operand` terms (a leading "-" negates; quotes keep spaces
// in an operand, as in topic:"weekly sync"), and the remaining words as free text.
export function parseSearch(text) {
  const terms = [];
  const words = [];
  for (const match of text.matchAll(/(-?)(\w+):(?:"([^"]*)"|(\S+))|(\S+)/g)) {
    const [, negated, operator, quoted, plain, word] = match;
    if (word === undefined && SEARCH_OPERATORS.has(operator.toLowerCase())) {
      const name = operator.toLowerCase() === "stream" ? "channel" : operator.toLowerCase();
      const term = { operator: name, operand: quoted ?? plain };
      if (negated) term.negated = true;
      terms.push(term);
    } else {
      words.push(match[0]);
    }
  }
  if (words.length) terms.push({ operator: "search", operand: words.join(" ") });
  return terms;
}

// The other participants of a direct message ([me] for one to oneself), sorted.
export function dmUserIds(message, myId) {
  const ids = message.display_recipient.map((user) => user.id);
  const others = ids.filter((id) => id !== myId);
  return (others.length ? others : [myId]).sort((a, b) => a - b);
}

export const sameIds = (a, b) => a.length === b.length && a.every((id, i) => id === b[i]);

// Whether a live message belongs in the narrow (search is left to the server: no live adds).
export function messageMatches(narrow, message, flags, myId) {
  switch (narrow.kind) {
    case "all":
      return true;
    case "channel":
      return (
        message.type === "stream" &&
        message.stream_id === narrow.streamId &&
        (narrow.topic === undefined || message.subject.toLowerCase() === narrow.topic.toLowerCase())
      );
    case "dm":
      return message.type === "private" && sameIds(dmUserIds(message, myId), narrow.userIds);
    case "starred":
      return flags.includes("starred");
    case "mentioned":
      return flags.some((flag) => flag === "mentioned" || flag === "wildcard_mentioned");
    default:
      return false;
  }
}

export function sameNarrow(a, b) {
  if (a.kind !== b.kind) return false;
  if (a.kind === "channel") return a.streamId === b.streamId && a.topic === b.topic;
  if (a.kind === "dm") return sameIds(a.userIds, b.userIds);
  if (a.kind === "search") return a.text === b.text;
  return true;
}
