// Zulip's compose banner for mentions: when the message being written to a channel mentions
// (`@**Name**`) someone who is not subscribed to it, say that they will not be notified, and
// offer "Subscribe them" to those who may add subscribers. Silent mentions (`@_**Name**`)
// notify nobody and are not warned about. Its own module so the compose box stays as it is.

import { el } from "../dom.js";
import { mentionedUserIds } from "../channels.js";
import { extras } from "../realm_extras.js";
import { addSubscribers } from "./channel_settings.js";

export class ComposeBanner {
  constructor(getState) {
    this.getState = getState;
    this.compose = null;
    this.dismissed = new Set(); // "streamId:userId"
    this.node = el("div", { class: "compose-banners", "aria-live": "polite" });
    this.timer = null;
  }

  get state() {
    return this.getState();
  }

  // A (re)drawn compose box: put the banners above its fields and watch what is written.
  attach(compose) {
    this.compose = compose;
    compose.form.prepend(this.node);
    const later = () => {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.check(), 250);
    };
    compose.textarea.addEventListener("input", later);
    compose.select.addEventListener("change", () => this.check());
    this.check();
  }

  // The people to warn about: mentioned, active, not subscribed to the channel written to.
  unsubscribedMentions() {
    const compose = this.compose;
    if (!compose?.select?.value?.startsWith("s:")) return { streamId: null, userIds: [] };
    const streamId = Number(compose.select.value.slice(2));
    const directory = this.state.directory;
    if (!directory.subscribers.has(streamId)) return { streamId, userIds: [] };
    const userIds = mentionedUserIds(compose.textarea.value, this.state.users).filter(
      (id) =>
        this.state.users.get(id)?.is_active !== false &&
        !directory.hasSubscriber(streamId, id) &&
        !this.dismissed.has(`${streamId}:${id}`),
    );
    return { streamId, userIds };
  }

  check() {
    if (!this.compose) return;
    const { streamId, userIds } = this.unsubscribedMentions();
    this.node.replaceChildren(...userIds.map((userId) => this.banner(streamId, userId)));
  }

  banner(streamId, userId) {
    const stream = this.state.directory.get(streamId);
    const me = this.state.users.get(this.state.myId) ?? { role: 400 };
    const canAdd = Boolean(stream) && extras.permissions.canAddSubscribers(me, stream, true);
    const name = this.state.userName(userId);
    const result = el("span", { class: "channel-result", role: "status" });
    return el("div", { class: "compose-banner warning", dataset: { userId } }, [
      el("p", {}, [
        el("strong", { text: name }),
        el("span", {
          text: canAdd
            ? ` is not subscribed to #${stream.name}, so they will not be notified unless you subscribe them.`
            : ` is not subscribed to #${stream?.name ?? "this channel"}, so they will not be notified of this mention.`,
        }),
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
