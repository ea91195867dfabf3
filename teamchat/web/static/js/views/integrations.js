// The Integrations page (Zulip's "Add a bot" and integration URL generator): pick one of the
// integrations the server serves (register's realm_incoming_webhook_bots), where its messages
// go (a channel and topic, or a direct message to me) and the incoming-webhook bot that posts
// them (one of mine, or a new one), and get the URL to paste into the tool, with a Copy
// button and the tool's setup steps. Below, my incoming-webhook bots and the notices
// Notification Bot sent me about them (views/integrations_notices.js).

import { post } from "../api.js";
import { el } from "../dom.js";
import { BotNotices, INCOMING_WEBHOOK_BOT, notificationBot } from "./integrations_notices.js";

const DOCS = "https://zulip.com/integrations/doc/";
const NEW_BOT = "new";
const DM_TO_ME = "dm";

// The URL an integration posts to (Zulip's integration URL: stream by id; the topic, the
// events wanted and the integration's own options such as `branches` optional).
export function integrationUrl(origin, name, apiKey, streamId, topic, onlyEvents = [], options = {}) {
  const params = new URLSearchParams({ api_key: apiKey });
  if (streamId !== null) params.set("stream", String(streamId));
  if (streamId !== null && topic) params.set("topic", topic);
  if (onlyEvents.length) params.set("only_events", JSON.stringify(onlyEvents));
  for (const [key, value] of Object.entries(options)) params.set(key, value);
  return `${origin}/api/v1/external/${encodeURIComponent(name)}?${params}`;
}

// A bot name nobody has yet ("GitHub Bot", else "GitHub Bot 2"...), and the short name of
// its email ("github" for github-bot@...).
export function freshBotName(displayName, users, host) {
  const names = new Set([...users].map((user) => user.full_name.toLowerCase()));
  const emails = new Set([...users].map((user) => (user.email ?? "").toLowerCase()));
  for (let n = 1; ; n += 1) {
    const suffix = n === 1 ? "" : ` ${n}`;
    const fullName = `${displayName} Bot${suffix}`;
    const shortName = shortNameOf(fullName);
    if (!names.has(fullName.toLowerCase()) && !emails.has(`${shortName}-bot@${host}`.toLowerCase())) {
      return fullName;
    }
  }
}

export function shortNameOf(fullName) {
  const slug = fullName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return slug.replace(/-?bot(?=(-\d+)?$)/, "") || "webhook";
}

export class IntegrationsPage {
  constructor(getState) {
    this.getState = getState;
    this.integrations = [];
    this.chosen = null; // an integration's name
    this.filterText = "";
    this.dialog = el("dialog", { id: "integrations", class: "integrations", "aria-labelledby": "integrations-title" });
    document.body.append(this.dialog);
    this.notices = new BotNotices(getState, () => this.dialog.close());
  }

  get state() {
    return this.getState();
  }

  // A (new) registration's list of integrations.
  load(registered) {
    this.integrations = [...(registered.realm_incoming_webhook_bots || [])].sort((a, b) =>
      a.display_name.localeCompare(b.display_name),
    );
  }

  // A notice from Notification Bot while the page is open: show it under its bot.
  apply(events) {
    if (!this.dialog.open) return;
    const sender = notificationBot(this.state);
    if (events.some((event) => event.type === "message" && event.message.sender_id === sender?.user_id)) {
      this.notices.load();
    }
  }

  open() {
    this.draw();
    if (!this.dialog.open) this.dialog.showModal();
    this.dialog.querySelector("#integration-filter")?.focus();
  }

  integration() {
    return this.integrations.find((item) => item.name === this.chosen) ?? null;
  }

  draw() {
    this.nameEdited = false;
    this.result = el("div", { class: "integration-result", "aria-live": "polite" });
    this.status = el("p", { class: "org-result", role: "status" });
    this.dialog.replaceChildren(
      el("div", { class: "integrations-head" }, [
        el("h2", { id: "integrations-title", text: "Integrations" }),
        el("button", { type: "button", text: "Close", onclick: () => this.dialog.close() }),
      ]),
      el("div", { class: "integrations-body" }, [
        el("p", {
          class: "org-muted",
          text:
            "Connect a tool so that it posts to a channel: pick it, say where its messages go and which bot " +
            "posts them, then paste the URL into the tool's webhook settings.",
        }),
        this.form(),
        this.status,
        this.result,
        this.notices.section(),
      ]),
    );
    this.notices.load();
  }

  form() {
    const filter = el("input", {
      id: "integration-filter",
      type: "search",
      placeholder: "Search integrations",
      "aria-label": "Search integrations",
      value: this.filterText,
      oninput: () => {
        this.filterText = filter.value;
        this.list.replaceChildren(...this.choices());
      },
    });
    this.list = el("div", { class: "integration-choices" }, this.choices());
    this.where = el("select", { id: "integration-where", onchange: () => this.showTopic() });
    this.where.append(
      el("option", { value: DM_TO_ME, text: "Direct message to me" }),
      ...this.state.directory.list().map((stream) => el("option", { value: String(stream.stream_id), text: `#${stream.name}` })),
    );
    if (this.where.options.length > 1) this.where.selectedIndex = 1;
    this.topic = el("input", { id: "integration-topic", placeholder: "The integration chooses", autocomplete: "off" });
    this.topicField = field("integration-topic", "Topic (optional)", this.topic);
    this.bot = el("select", { id: "integration-bot", onchange: () => this.showBotName() });
    this.botName = el("input", {
      id: "integration-bot-name",
      autocomplete: "off",
      oninput: () => {
        this.nameEdited = true;
      },
    });
    this.botNameField = field("integration-bot-name", "New bot's name", this.botName);
    this.events = el("div", { class: "integration-events" });
    this.fillBots();
    this.fillEvents();
    this.showTopic();
    return el("form", { class: "org-form", onsubmit: (event) => this.generate(event) }, [
      el("fieldset", { class: "org-checks integration-pick" }, [
        el("legend", { text: "Integration" }),
        filter,
        this.list,
      ]),
      el("div", { class: "org-row" }, [field("integration-where", "Send to", this.where), this.topicField]),
      el("div", { class: "org-row" }, [field("integration-bot", "Posted by", this.bot), this.botNameField]),
      this.events,
      el("div", { class: "org-row" }, [el("button", { type: "submit", class: "primary", text: "Generate URL" })]),
    ]);
  }

  choices() {
    const needle = this.filterText.trim().toLowerCase();
    const shown = this.integrations.filter(
      (item) => !needle || item.display_name.toLowerCase().includes(needle) || item.name.includes(needle),
    );
    if (!shown.length) return [el("p", { class: "org-empty", text: "No integration matches." })];
    return shown.map((item) => {
      const radio = el("input", {
        type: "radio",
        name: "integration",
        value: item.name,
        checked: item.name === this.chosen,
        onchange: () => this.choose(item.name),
      });
      return el("label", { class: "integration-choice" }, [radio, el("span", { text: item.display_name })]);
    });
  }

  choose(name) {
    this.chosen = name;
    this.result.replaceChildren();
    this.status.textContent = "";
    this.fillBots();
    this.fillEvents();
  }

  // The integration's URL options (branches, private repositories) and Zulip's event filter:
  // every event by default, or only those ticked (only_events).
  fillEvents() {
    const item = this.integration();
    const all = item?.all_event_types ?? null;
    const options = (item?.url_options ?? []).map((option) => urlOption(option));
    this.events.hidden = !all && !options.length;
    if (!all) {
      this.events.replaceChildren(...options);
      return;
    }
    const boxes = [...all].sort().map((name) =>
      el("label", { class: "integration-event" }, [
        el("input", { type: "checkbox", name: "only_events", value: name }),
        el("span", { text: name }),
      ]),
    );
    this.events.replaceChildren(
      ...options,
      el("details", {}, [
        el("summary", { text: "Only some events (every event by default)" }),
        el("div", { class: "integration-event-list", role: "group", "aria-label": "Events to send" }, boxes),
      ]),
    );
  }

  onlyEvents() {
    return [...this.events.querySelectorAll("input[name=only_events]:checked")].map((box) => box.value);
  }

  urlOptions() {
    const options = {};
    for (const input of this.events.querySelectorAll("[data-option]")) {
      if (input.type === "checkbox") {
        if (input.checked) options[input.dataset.option] = "true";
      } else if (input.value.trim()) options[input.dataset.option] = input.value.trim();
    }
    return options;
  }

  suggestedName() {
    const item = this.integration();
    return item ? freshBotName(item.display_name, this.state.users.values(), this.state.realmHost) : "";
  }

  // "New bot" and my incoming-webhook bots; a bot named after the integration first.
  fillBots() {
    const before = this.bot.value;
    const mine = this.notices.mine();
    const item = this.integration();
    const named = (bot) => (item && bot.full_name.toLowerCase().startsWith(item.display_name.toLowerCase()) ? 0 : 1);
    mine.sort((a, b) => named(a) - named(b) || a.full_name.localeCompare(b.full_name));
    this.bot.replaceChildren(
      el("option", { value: NEW_BOT, text: "A new bot" }),
      ...mine.map((bot) => el("option", { value: String(bot.user_id), text: bot.full_name })),
    );
    if ([...this.bot.options].some((option) => option.value === before)) this.bot.value = before;
    if (!this.nameEdited) this.botName.value = this.suggestedName();
    this.showBotName();
  }

  showBotName() {
    this.botNameField.hidden = this.bot.value !== NEW_BOT;
  }

  showTopic() {
    this.topicField.hidden = this.where.value === DM_TO_ME;
  }

  fail(text) {
    this.status.className = "org-result failed";
    this.status.textContent = text;
  }

  async generate(event) {
    event.preventDefault();
    const item = this.integration();
    if (!item) {
      this.fail("Pick an integration first.");
      return;
    }
    this.status.className = "org-result";
    this.status.textContent = "Working…";
    try {
      const key = await this.botKey(item);
      const streamId = this.where.value === DM_TO_ME ? null : Number(this.where.value);
      const topic = this.topic.value.trim();
      const url = integrationUrl(location.origin, item.name, key, streamId, topic, this.onlyEvents(), this.urlOptions());
      this.status.textContent = "";
      this.showUrl(item, url);
    } catch (error) {
      this.fail(error.message);
    }
  }

  // The API key of the chosen bot, creating it first when it is a new one.
  async botKey(item) {
    if (this.bot.value !== NEW_BOT) {
      const keys = await this.notices.keys();
      const key = keys.get(Number(this.bot.value));
      if (!key) throw new Error("That bot is no longer yours or no longer active.");
      return key;
    }
    const fullName = this.botName.value.trim() || this.suggestedName();
    const shortName = shortNameOf(fullName);
    const created = await post("/bots", { full_name: fullName, short_name: shortName, bot_type: INCOMING_WEBHOOK_BOT });
    this.nameEdited = false;
    const email = `${shortName}-bot@${this.state.realmHost}`; // the server's rule
    this.notices.remember({ user_id: created.user_id, full_name: fullName, email });
    this.bot.append(el("option", { value: String(created.user_id), text: fullName }));
    this.bot.value = String(created.user_id); // generating again reuses it
    return created.api_key;
  }

  showUrl(item, url) {
    const box = el("input", { id: "integration-url", readonly: true, value: url, "aria-label": `${item.display_name} URL` });
    const said = el("span", { class: "org-muted", role: "status" });
    const copy = el("button", { type: "button", class: "primary", text: "Copy", onclick: () => copyText(box, said) });
    this.result.replaceChildren(
      el("h3", { text: `Your ${item.display_name} URL` }),
      el("div", { class: "org-row integration-url" }, [box, copy, said]),
      el("p", {}, [
        el("span", { text: "Paste it where the tool asks for a webhook URL; " }),
        el("a", {
          href: `${DOCS}${encodeURIComponent(item.name)}`,
          target: "_blank",
          rel: "noopener noreferrer",
          text: `${item.display_name} setup steps`,
        }),
        el("span", { text: " say where (Zulip's documentation applies as it is)." }),
      ]),
    );
    this.fillBots();
    this.notices.load();
  }
}

// One of Zulip's URL options: a switch (check_bool) or a text (check_string; `branches` is
// the one Zulip leaves unlabelled).
function urlOption(option) {
  const id = `integration-option-${option.key}`;
  if (option.validator === "check_bool") {
    return el("label", { class: "integration-event integration-option" }, [
      el("input", { type: "checkbox", id, dataset: { option: option.key } }),
      el("span", { text: option.label || option.key }),
    ]);
  }
  const label = option.key === "branches" ? "Only these branches (comma-separated; every branch by default)" : option.label || option.key;
  const input = el("input", { id, autocomplete: "off", dataset: { option: option.key } });
  return el("div", { class: "org-field integration-option" }, [el("label", { for: id, text: label }), input]);
}

function field(id, label, control) {
  return el("div", { class: "org-field" }, [el("label", { for: id, text: label }), control]);
}

// Copy with the Clipboard API; where the page may not (plain http on a local network, or
// refused), the text is selected and copied the old way, else left selected for the person.
async function copyText(box, said) {
  try {
    await navigator.clipboard.writeText(box.value);
    said.textContent = "Copied.";
  } catch {
    box.focus();
    box.select();
    let copied = false;
    try {
      copied = document.execCommand("copy");
    } catch {
      copied = false;
    }
    said.textContent = copied ? "Copied." : "Selected: press Ctrl+C (⌘C) to copy.";
  }
}
