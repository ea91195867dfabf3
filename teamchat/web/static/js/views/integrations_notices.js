// The Integrations page's list of my incoming-webhook bots and what went wrong with them:
// when a tool posts something a bot cannot deliver (a channel that does not exist, a payload
// that is not the tool's, a missing event header), the server tells the bot's owner in a
// direct message from Notification Bot, as Zulip does. Each bot shows the recent notices that
// name it; the whole conversation with Notification Bot is one link away. Public API only:
// GET /bots (my bots and their keys) and GET /messages.

import { ApiError, get } from "../api.js";
import { el } from "../dom.js";
import { dmHash } from "../narrow.js";
import { focusKey, restoreFocus } from "./keep_focus.js";

export const INCOMING_WEBHOOK_BOT = 2;
const NOTICES_READ = 200; // the latest messages from Notification Bot looked at
const SHOWN_PER_BOT = 3;

// My active incoming-webhook bots as the state knows them.
export function myWebhookBots(state) {
  return [...state.users.values()].filter(
    (user) =>
      user.is_bot && user.bot_type === INCOMING_WEBHOOK_BOT && user.bot_owner_id === state.myId && user.is_active !== false,
  );
}

export function notificationBot(state) {
  return [...state.users.values()].find((user) => user.is_bot && (user.email ?? "").startsWith("notification-bot@")) ?? null;
}

// The notices that name `bot` (by its email, or by its whole name: "GitHub Bot" is not
// "GitHub Bot 2"), newest first.
export function noticesAbout(bot, notices) {
  const escaped = bot.full_name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const byName = new RegExp(`(?<!\\w)${escaped}(?!\\w| \\d)`);
  return notices
    .filter((notice) => notice.text.includes(bot.email) || byName.test(notice.text))
    .sort((a, b) => b.id - a.id);
}

// Notices about an integration that name none of `bots` (Zulip's note about a payload that
// is not JSON names the tool, not the bot).
export function otherNotices(bots, notices) {
  const named = new Set(bots.flatMap((bot) => noticesAbout(bot, notices)));
  return notices.filter((notice) => !named.has(notice) && /integration|webhook/i.test(notice.text)).sort((a, b) => b.id - a.id);
}

function noticeList(label, notices) {
  return el(
    "ul",
    { class: "integration-notices", "aria-label": label },
    notices.slice(0, SHOWN_PER_BOT).map((notice) =>
      el("li", {}, [
        el("time", {
          datetime: new Date(notice.timestamp * 1000).toISOString(),
          text: new Date(notice.timestamp * 1000).toLocaleString([], { dateStyle: "medium", timeStyle: "short" }),
        }),
        el("span", { text: ` ${notice.text}` }),
      ]),
    ),
  );
}

function plainText(html) {
  return new DOMParser().parseFromString(html, "text/html").body.textContent.trim();
}

export class BotNotices {
  constructor(getState, close) {
    this.getState = getState;
    this.close = close;
    this.created = new Map(); // bots made here: user id -> {user_id, full_name, email}
    this.node = el("section", { class: "integration-bots", "aria-labelledby": "integration-bots-title" });
  }

  get state() {
    return this.getState();
  }

  // A bot just made here: listed before its realm_user event arrives.
  remember(bot) {
    this.created.set(bot.user_id, bot);
  }

  // My incoming-webhook bots: the state's, and those made here it does not know yet.
  mine() {
    const known = myWebhookBots(this.state);
    const ids = new Set(known.map((bot) => bot.user_id));
    return [...known, ...[...this.created.values()].filter((bot) => !ids.has(bot.user_id))];
  }

  // My active bots' API keys (GET /bots lists the bots I own).
  async keys() {
    const body = await get("/bots");
    return new Map(body.bots.map((bot) => [bot.user_id, bot.api_key]));
  }

  section() {
    return this.node;
  }

  async load() {
    this.draw(null, []);
    try {
      const [keys, messages] = await Promise.all([this.keys(), this.recentNotices()]);
      this.draw(keys, messages);
    } catch (error) {
      this.node.append(el("p", { class: "org-result failed", text: error.message }));
    }
  }

  async recentNotices() {
    // Notification Bot may be newer than this page's state: then it is found by its address.
    const known = notificationBot(this.state);
    const who = known ? [known.user_id] : `notification-bot@${this.state.realmHost}`;
    let body;
    try {
      body = await get("/messages", {
        anchor: "newest",
        num_before: NOTICES_READ,
        num_after: 0,
        narrow: [{ operator: "dm", operand: who }],
      });
    } catch (error) {
      if (error instanceof ApiError && error.status === 400) return []; // no such bot yet
      throw error;
    }
    // Its side of the conversation, the server's rendered (sanitized) HTML read as text:
    // links and code become their words.
    return body.messages
      .filter((message) => message.sender_id !== this.state.myId)
      .map((message) => ({ id: message.id, timestamp: message.timestamp, text: plainText(message.content) }));
  }

  // `keys` null: still loading.
  draw(keys, messages) {
    const mine = this.mine().filter((bot) => keys === null || keys.has(bot.user_id));
    mine.sort((a, b) => a.full_name.localeCompare(b.full_name));
    const sender = notificationBot(this.state);
    const rows = mine.map((bot) => this.row(bot, keys === null ? null : noticesAbout(bot, messages)));
    const others = keys === null ? [] : otherNotices(mine, messages);
    const parts = [
      el("h3", { id: "integration-bots-title", text: "Your incoming webhook bots" }),
      rows.length ? el("ul", { class: "integration-bot-list" }, rows) : el("p", { class: "org-empty", text: "You have none yet." }),
      others.length
        ? el("div", { class: "integration-bot" }, [
            el("strong", { text: "Other notices about integrations" }),
            noticeList("Other notices about integrations", others),
          ])
        : null,
      sender
        ? el("p", {}, [
            el("span", { text: "What went wrong with a delivery is sent to you by Notification Bot: " }),
            el("a", {
              href: dmHash([sender.user_id], (id) => this.state.userName(id)),
              text: "your conversation with Notification Bot",
              onclick: () => this.close(),
            }),
            el("span", { text: "." }),
          ])
        : null,
    ];
    const focused = focusKey(this.node); // a notice arriving keeps the keyboard's place
    this.node.replaceChildren(...parts.filter(Boolean));
    restoreFocus(this.node, focused);
  }

  row(bot, notices) {
    let about;
    if (notices === null) about = el("p", { class: "org-muted", text: "Looking for notices…" });
    else if (!notices.length) about = el("p", { class: "org-muted", text: "No recent notices about this bot." });
    else about = noticeList(`Notices about ${bot.full_name}`, notices);
    return el("li", { class: "integration-bot" }, [
      el("strong", { text: bot.full_name }),
      el("span", { class: "org-muted", text: ` ${bot.email}` }),
      about,
    ]);
  }
}
