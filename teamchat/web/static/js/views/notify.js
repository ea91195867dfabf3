// Desktop notifications for direct messages and mentions that arrive while the page is not
// in front, once the person has allowed them (Settings asks the browser).

import { channelHash, dmHash, dmUserIds } from "../narrow.js";

const MAX_BODY_CHARS = 200;

export const notificationsSupported = () => "Notification" in window;
export const notificationsAllowed = () =>
  notificationsSupported() && Notification.permission === "granted";

export function askForNotifications() {
  return notificationsSupported() ? Notification.requestPermission() : Promise.resolve("denied");
}

// The message's text: parsed in an inert document (nothing runs or loads), never inserted.
function plainText(html) {
  return new DOMParser().parseFromString(html, "text/html").body.textContent.trim();
}

export function notifyMessage(event, state) {
  const message = event.message;
  const flags = event.flags || [];
  if (message.sender_id === state.myId || !notificationsAllowed()) return;
  const mentioned = flags.includes("mentioned") || flags.includes("wildcard_mentioned");
  if (message.type !== "private" && !mentioned) return;
  if (document.visibilityState === "visible" && document.hasFocus()) return;
  const name = (id) => state.userName(id);
  const title =
    message.type === "private"
      ? message.sender_full_name
      : `${message.sender_full_name} (#${state.streamName(message.stream_id)} › ${message.subject})`;
  const notification = new Notification(title, {
    body: plainText(message.content).slice(0, MAX_BODY_CHARS),
    tag: `teamchat-${message.id}`,
  });
  notification.onclick = () => {
    window.focus();
    location.hash =
      message.type === "private"
        ? dmHash(dmUserIds(message, state.myId), name)
        : channelHash(message.stream_id, state.streamName(message.stream_id), message.subject);
  };
}
