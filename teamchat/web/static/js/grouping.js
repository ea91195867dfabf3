// How a list of messages is laid out: a day separator when the day changes, a recipient header
// (channel › topic, or the DM's people) when the conversation changes, the sender's name when
// the sender changes. Pure: no DOM.

const SAME_SENDER_GAP_SECS = 10 * 60;

export function dayKey(timestamp) {
  const date = new Date(timestamp * 1000);
  return `${date.getFullYear()}-${date.getMonth() + 1}-${date.getDate()}`;
}

export function recipientKey(message) {
  if (message.type === "stream") return `s:${message.stream_id}:${message.subject.toLowerCase()}`;
  return `d:${message.display_recipient.map((user) => user.id).sort((a, b) => a - b).join(",")}`;
}

// [{kind: "day", timestamp} | {kind: "recipient", message} | {kind: "message", message, showSender}]
export function layoutRows(messages) {
  const rows = [];
  let previous = null;
  for (const message of messages) {
    const newDay = !previous || dayKey(previous.timestamp) !== dayKey(message.timestamp);
    const newRecipient = newDay || recipientKey(previous) !== recipientKey(message);
    if (newDay) rows.push({ kind: "day", timestamp: message.timestamp });
    if (newRecipient) rows.push({ kind: "recipient", message });
    const showSender =
      newRecipient ||
      previous.sender_id !== message.sender_id ||
      message.timestamp - previous.timestamp > SAME_SENDER_GAP_SECS;
    rows.push({ kind: "message", message, showSender });
    previous = message;
  }
  return rows;
}
