// Zulip's compose banner for mentions: when the message being written to a channel mentions
// (`@**Name**`) someone who is not subscribed to it, say that they will not be notified, and
// offer "Subscribe them" to those who may add subscribers. Silent mentions (`@_**Name**`)
// notify nobody and are not warned about. Its own module so the compose box stays as it is.

import { el } from "../dom.js";
import { mentionedUserIds } from "../channels.js";
import { extras } from "../realm_extras.js";
import { addSubscribers } from "./channel_settings.js";

// The channel the compose box is set to write to, or null (a direct message, or nothing chosen).
export function composeStreamId(compose) {
  try {
    const target = compose?.target();
    return target?.type === "stream" && Number.isInteger(target.streamId) ? target.streamId : null;
  } catch {
    return null; // no recipient chosen
  }
}

export class ComposeBanner {
  constructor(getState) {
    this.getState = getState;
    this.compose = null;
    this.dismissed = new Set(); // "streamId:userId"
    this.node = el("div", { class: "compose-banners", "aria-live": "polite" });
    this.timer = null;
    this.watched = new WeakSet();
  }

  get state() {
    return this.getState();
  }

  // A (re)drawn compose box: put the banners above its fields and watch what is written.
  // Listeners sit on the form, which stays while its fields are drawn again.
  attach(compose) {
    this.compose = compose;
    compose.form.prepend(this.node);
    if (!this.watched.has(compose.form)) {
      this.watched.add(compose.form);
      compose.form.addEventListener("input", () => {
        clearTimeout(this.timer);
        this.timer = setTimeout(() => this.check(), 250);
      });
      compose.form.addEventListener("change", () => this.check());
    }
    this.check();
  }

  // The people to warn about: mentioned, active, not subscribed to the channel written to.
  unsubscribedMentions() {
    const streamId = composeStreamId(this.compose);
    if (streamId === null) return { streamId, userIds: [] };
    const directory = this.state.directory;
    if (!directory.subscribers.has(streamId)) return { streamId, userIds: [] };
    const userIds = mentionedUserIds(this.compose.textarea?.value ?? "", this.state.users).filter(
      (id) =>
        this.state.users.get(id)?.is_active !== false &&
        !directory.hasSubscriber(streamId, id) &&
        !this.dismissed.has(`${streamId}:${id}`),
    );
    return { streamId, userIds };
  }

  // Drawn again only when who is warned about changes: a banner replaced under the pointer
  // (the textarea's change event comes on mousedown, as focus leaves it) loses the click.
  check() {
    if (!this.compose) return;
    const { streamId, userIds } = this.unsubscribedMentions();
    const shown = `${streamId}:${userIds.join(",")}:${this.canAdd(streamId)}`;
    if (shown === this.shown && this.node.childElementCount === userIds.length) return;
    this.shown = shown;
    this.node.replaceChildren(...userIds.map((userId) => this.banner(streamId, userId)));
  }

  canAdd(streamId) {
    const stream = this.state.directory.get(streamId);
    const me = this.state.users.get(this.state.myId) ?? { role: 400 };
    return Boolean(stream) && extras.permissions.canAddSubscribers(me, stream, true);
  }

  banner(streamId, userId) {
    const stream = this.state.directory.get(streamId);
    const canAdd = this.canAdd(streamId);
    const name = this.state.userName(userId);
    const result = el("span", { class: "channel-result", role: "status" });
    return el("div", { class: "compose-banner warning", dataset: { userId } }, [
      el("p", {}, [
        el("strong", { text: name }),
        el("span", { text: ` is not subscribed to #${stream?.name ?? "this channel"}, so they will not be notified` }),
        el("span", { text: canAdd ? " unless you subscribe them." : " of this mention." }),
      ]),
      canAdd
        ? el("button", {
            type: "button",
            class: "primary",
            text: "Subscribe them",
            onclick: async () => {
              if (await addSubscribers(stream, [userId], result)) {
                // peer_add will arrive; until then, take this person as subscribed.
                this.state.directory.subscribers.get(streamId)?.add(userId);
                this.check();
              }
            },
          })
        : null,
      result,
      el("button", {
        type: "button",
        class: "compose-banner-close",
        "aria-label": `Dismiss the warning about ${name}`,
        text: "×",
        onclick: () => {
          this.dismissed.add(`${streamId}:${userId}`);
          this.check();
        },
      }),
    ]);
  }
}
