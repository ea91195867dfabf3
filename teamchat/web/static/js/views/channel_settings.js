// One channel's settings page in the channel browser: what it is, Subscribe/Unsubscribe, its
// subscribers, and adding or removing subscribers where this person may (Zulip's
// can_add_subscribers_group, can_remove_subscribers_group, channel and organization
// administrators; permissions.js mirrors the server, which decides). Lists follow events.

import { del, post } from "../api.js";
import { el } from "../dom.js";
import { extras } from "../realm_extras.js";

export function privacyLabel(stream) {
  if (stream.is_web_public) return "Web-public";
  if (stream.invite_only) return "Private";
  return "Public";
}

async function act(result, action, done) {
  result.className = result.className.replace(/ ?failed/, "");
  result.textContent = "…";
  try {
    await action();
    result.textContent = done;
    return true;
  } catch (error) {
    result.className += " failed";
    result.textContent = error.message;
    return false;
  }
}

export const subscribeSelf = (stream, result) =>
  act(result, () => post("/users/me/subscriptions", { subscriptions: [{ name: stream.name }] }), "Subscribed.");

export const leaveChannel = (stream, result) =>
  act(result, () => del("/users/me/subscriptions", { subscriptions: [stream.name] }), "Unsubscribed.");

export const addSubscribers = (stream, userIds, result) =>
  act(
    result,
    () => post("/users/me/subscriptions", { subscriptions: [{ name: stream.name }], principals: userIds }),
    "Subscribed.",
  );

export class ChannelSettings {
  constructor(getState, actions) {
    this.getState = getState;
    this.actions = actions; // {back(), narrowTo(streamId)}
    this.streamId = null;
    this.holder = el("div", { class: "channel-settings" });
  }

  get state() {
    return this.getState();
  }

  get me() {
    return this.state.users.get(this.state.myId) ?? { role: 400 };
  }

  node(streamId) {
    this.streamId = streamId;
    this.result = el("p", { class: "channels-result", role: "status", "aria-live": "polite" });
    this.refresh();
    return this.holder;
  }

  refresh() {
    const directory = this.state.directory;
    const stream = directory.get(this.streamId);
    if (!stream) {
      this.holder.replaceChildren(el("p", { text: "This channel no longer exists." }));
      return;
    }
    const subscribed = directory.isSubscribed(this.streamId);
    const perms = extras.permissions;
    const description = el("div", { class: "channel-description rendered" });
    // The server's sanitized rendering of the description.
    description.innerHTML = stream.rendered_description || "<p>No description.</p>";
    let own = null;
    if (subscribed) {
      own = el("button", { type: "button", text: "Unsubscribe", onclick: () => leaveChannel(stream, this.result) });
    } else if (perms.canSubscribe(this.me, stream, false)) {
      const join = () => subscribeSelf(stream, this.result);
      own = el("button", { type: "button", class: "primary", text: "Subscribe", onclick: join });
    }
    const focused = document.activeElement?.id;
    this.holder.replaceChildren(
      el("div", { class: "channel-facts" }, [
        el("span", { class: "channel-privacy", text: privacyLabel(stream) }),
        description,
      ]),
      el("div", { class: "channels-row" }, [
        own,
        el("button", {
          type: "button",
          text: "View channel",
          onclick: () => this.actions.narrowTo(this.streamId),
        }),
      ]),
      this.result,
      this.subscribersSection(stream, subscribed),
    );
    if (focused) document.getElementById(focused)?.focus();
  }

  subscribersSection(stream, subscribed) {
    const directory = this.state.directory;
    const perms = extras.permissions;
    const canAdd = perms.canAddSubscribers(this.me, stream, subscribed);
    const canRemove = perms.canRemoveSubscribers(this.me, stream);
    const ids = directory.subscriberIds(this.streamId);
    const people = ids
      .map((id) => ({ id, name: this.state.userName(id), email: this.state.users.get(id)?.email ?? "" }))
      .sort((a, b) => a.name.localeCompare(b.name));
    const rows = people.map((person) => {
      const result = el("span", { class: "channel-result", role: "status" });
      const remove =
        person.id === this.state.myId
          ? null
          : canRemove
            ? el("button", {
                type: "button",
                text: "Remove",
                "aria-label": `Remove ${person.name}`,
                onclick: () => {
                  const params = { subscriptions: [stream.name], principals: [person.id] };
                  act(result, () => del("/users/me/subscriptions", params), "Removed.");
                },
              })
            : null;
      return el("li", { class: "channel-subscriber", dataset: { userId: person.id } }, [
        el("span", { class: "name", text: person.id === this.state.myId ? `${person.name} (you)` : person.name }),
        el("span", { class: "email", text: person.email }),
        remove,
        result,
      ]);
    });
    const known = directory.subscribers.has(this.streamId);
    const nobody = el("li", { class: "channel-none", text: "Nobody is subscribed." });
    const count = directory.count(this.streamId);
    return el("section", { class: "channel-subscribers", "aria-labelledby": "channel-subscribers-title" }, [
      el("h3", { id: "channel-subscribers-title", text: `Subscribers (${count})` }),
      canAdd ? this.addForm(stream, new Set(ids)) : null,
      known
        ? el("ul", { class: "channel-subscriber-list" }, rows.length ? rows : [nobody])
        : el("p", { class: "channel-none", text: "Only subscribers can see who is subscribed to this channel." }),
    ]);
  }

  addForm(stream, subscribed) {
    const candidates = [...this.state.users.values()]
      .filter((user) => user.is_active !== false && !user.is_bot && !subscribed.has(user.user_id))
      .sort((a, b) => a.full_name.localeCompare(b.full_name));
    const choose = el("select", { id: "channel-add-person", "aria-label": "Person to subscribe" }, [
      el("option", { value: "", text: candidates.length ? "Choose a person…" : "Everyone is subscribed" }),
      ...candidates.map((user) =>
        el("option", { value: String(user.user_id), text: `${user.full_name} (${user.email})` }),
      ),
    ]);
    const result = el("span", { class: "channel-result", role: "status" });
    const add = async (event) => {
      event.preventDefault();
      if (!choose.value) return;
      await addSubscribers(stream, [Number(choose.value)], result);
    };
    return el("form", { class: "channels-row channel-add", onsubmit: add }, [
      choose,
      el("button", { type: "submit", class: "primary", text: "Add subscriber", disabled: !candidates.length }),
      result,
    ]);
  }
}
