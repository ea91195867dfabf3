// The web client's entry point: register, draw the left pane and the narrow the URL names,
// apply events as they come, and recover when the event queue or the network is lost.

import { ApiError, get, logOut } from "./api.js";
import { EventLoop, register } from "./events.js";
import { hashToNarrow, narrowToHash } from "./narrow.js";
import { Presence, startHeartbeat } from "./presence.js";
import { State } from "./state.js";
import { announceMessage, keepFocusAcross } from "./views/a11y.js";
import { ChannelBrowser } from "./views/channel_browser.js";
import { renderChannelBar } from "./views/channel_bar.js";
import { ComposeBanner } from "./views/compose_banner.js";
import { Compose } from "./views/compose.js";
import { ComposeTools } from "./views/compose_tools.js";
import { Keyboard } from "./views/keyboard.js";
import { renderLeft } from "./views/left.js";
import { MessageList } from "./views/messages.js";
import { renderPeople } from "./views/people.js";
import { notifyMessage } from "./views/notify.js";
import { IntegrationsPage } from "./views/integrations.js";
import { OrgArea } from "./views/org.js";
import { openSettings, refreshSettings } from "./views/settings.js";
import { TypingSender, TypingShown } from "./views/typing.js";
import { openProfileCard, refreshProfileCard } from "./views/profile_card.js";
import { UserInfo, themeClass } from "./user_info.js";
import { applyExtrasEvent, loadExtras } from "./realm_extras.js";
import { RecentView } from "./views/recent_view.js";

const $ = (id) => document.getElementById(id);
const THEME_KEY = "teamchat.theme";
// Events that change what the channel browser, the channel bar or the mention warning show.
const CHANNEL_EVENTS = new Set(["subscription", "stream", "default_streams", "realm_user", "realm", "user_group"]);
const SYSTEM_DARK = matchMedia("(prefers-color-scheme: dark)");

// A sent message ends its sender's typing there: the typing event's shape for that message.
function typingOf(message) {
  if (message.type === "stream") {
    return { message_type: "stream", stream_id: message.stream_id, topic: message.subject, sender: { user_id: message.sender_id } };
  }
  return {
    message_type: "direct",
    recipients: message.display_recipient.map((user) => ({ user_id: user.id })),
    sender: { user_id: message.sender_id },
  };
}

class App {
  constructor() {
    try {
      const stored = localStorage.getItem(THEME_KEY);
      this.applyTheme(stored === "theme-dark" || stored === "theme-light" ? stored : "");
    } catch {
      this.applyTheme(""); // storage disabled
    }
    SYSTEM_DARK.addEventListener("change", () => this.applyTheme(this.themeChoice));
    this.state = null;
    this.narrow = hashToNarrow(location.hash);
    this.list = null;
    this.compose = null;
    this.composeTools = new ComposeTools();
    this.org = new OrgArea();
    this.channelBrowser = new ChannelBrowser(() => this.state);
    this.integrations = new IntegrationsPage(() => this.state);
  }

  async start() {
    this.load(await register());
    $("me").textContent = this.state.userName(this.state.myId);
    this.typingSender = new TypingSender();
    this.composeBanner = new ComposeBanner(() => this.state);
    this.channelBar = document.createElement("div");
    this.channelBar.id = "channel-bar";
    this.channelBar.className = "channel-bar";
    this.channelBar.hidden = true;
    $("messages").before(this.channelBar);
    // The left pane's and the channel bar's "Browse channels".
    document.body.addEventListener("click", (event) => {
      const settings = event.target.closest("[data-action=channel-settings]");
      if (settings) this.channelBrowser.open(Number(settings.dataset.streamId));
      if (event.target.closest("[data-action=integrations]")) {
        $("settings").close();
        this.integrations.open();
      }
      if (!event.target.closest("[data-action=browse-channels]")) return;
      this.toggleMenu(false);
      this.channelBrowser.open();
    });
    this.compose = new Compose($("compose"), this.state, {
      onEchoes: (echoes) => this.list?.setEchoes(echoes),
      onTyping: (target) => (target ? this.typingSender.typed(target) : this.typingSender.stop()),
      onDrawn: (compose) => {
        this.composeTools.attach(compose);
        this.composeBanner.attach(compose);
      },
      onKey: (event) => this.composeTools.keydown(event),
    });
    startHeartbeat(
      () => this.presence,
      () => this.drawPeople(),
    );
    setInterval(() => this.drawTyping(), 3000);
    window.addEventListener("hashchange", () => this.route());
    $("logout").addEventListener("click", () => this.logOut());
    $("settings-button").addEventListener("click", () => openSettings($("settings"), this.state, this.info));
    $("people").addEventListener("click", (event) => this.personClicked(event, "li[data-user-id]"));
    $("messages").addEventListener("click", (event) => this.personClicked(event, ".sender-line"));
    $("search").addEventListener("submit", (event) => {
      event.preventDefault();
      const text = $("search-input").value.trim();
      const narrow = text ? { kind: "search", text } : { kind: "all" };
      location.hash = narrowToHash(narrow, this.lookup());
    });
    $("menu-toggle").addEventListener("click", () => this.toggleMenu());
    $("left").addEventListener("click", (event) => {
      if (event.target.closest("a")) this.toggleMenu(false);
    });
    this.drawPeople();
    this.keyboard = new Keyboard(this);
    keepFocusAcross($("settings"));
    await this.route();
    this.loop = new EventLoop(this.state.queueId, this.state.lastEventId, {
      onEvents: (events) => this.applyEvents(events),
      onReset: () => this.reset(),
      onStatus: (text, isError) => this.status(text, isError),
      onLoggedOut: () => location.assign("/login/"),
    });
    this.loop.start();
  }

  // The state of a (new) registration.
  load(registered) {
    const fresh = new State(registered);
    if (this.state) fresh.topics = this.state.topics;
    this.state = fresh;
    loadExtras(registered);
    this.presence = new Presence(registered);
    this.typing = new TypingShown(fresh.myId);
    this.org.load(registered);
    this.integrations.load(registered);
    if (this.compose) this.compose.state = fresh;
    this.composeTools.load(registered, fresh);
    this.info = new UserInfo(registered);
    this.applyTheme();
  }

  // Zulip's color_scheme: the page is light, dark, or follows the system ("": automatic,
  // dark while the system prefers dark). The last choice is remembered in the browser so
  // that a reload does not flash.
  applyTheme(name = themeClass(this.info.settings.color_scheme)) {
    this.themeChoice = name;
    const dark = name === "theme-dark" || (name === "" && SYSTEM_DARK.matches);
    document.documentElement.classList.toggle("theme-dark", dark);
    try {
      localStorage.setItem(THEME_KEY, name);
    } catch {
      // storage disabled: the theme comes with /register
    }
  }

  // A click on a person in the people list, or on a sender's name or avatar: their card.
  personClicked(event, holder) {
    const found = event.target.closest(holder);
    if (!found || (holder === ".sender-line" && !event.target.closest(".sender, .avatar"))) return;
    const userId = Number(found.dataset.userId ?? found.querySelector(".sender")?.dataset.userId);
    if (!userId) return;
    event.preventDefault();
    openProfileCard(userId, this.state, this.info);
  }

  lookup() {
    return {
      streamName: (id) => this.state.streamName(id),
      userName: (id) => this.state.userName(id),
    };
  }

  title(narrow) {
    switch (narrow.kind) {
      case "channel":
        return narrow.topic === undefined
          ? `# ${this.state.streamName(narrow.streamId)}`
          : `# ${this.state.streamName(narrow.streamId)} › ${narrow.topic || "(no topic)"}`;
      case "dm":
        return `You and ${narrow.userIds.map((id) => this.state.userName(id)).join(", ")}`;
      case "starred":
        return "Starred messages";
      case "mentioned":
        return "Mentions";
      case "search":
        return `Search: ${narrow.text}`;
      case "recent":
        return "Recent conversations";
      default:
        return "All messages";
    }
  }

  async route() {
    this.narrow = hashToNarrow(location.hash);
    $("search-input").value = this.narrow.kind === "search" ? this.narrow.text : "";
    const title = this.title(this.narrow);
    $("narrow-title").textContent = title;
    this.list?.destroy();
    const View = this.narrow.kind === "recent" ? RecentView : MessageList;
    this.list = new View($("messages"), this.state, this.narrow, {
      onError: (text) => this.status(text, true),
      onRead: () => this.drawLeft(),
    });
    this.compose.setNarrow(this.narrow);
    this.list.setEchoes(this.compose.echoes);
    this.drawLeft();
    this.drawChannelBar();
    if (this.narrow.kind === "channel") this.loadTopics(this.narrow.streamId);
    try {
      await this.list.load();
      this.list.setEchoes(this.compose.echoes);
    } catch (error) {
      this.failed(error);
    }
  }

  async loadTopics(streamId) {
    try {
      const body = await get(`/users/me/${streamId}/topics`);
      this.state.setTopics(streamId, body.topics);
      this.drawLeft();
    } catch (error) {
      this.failed(error);
    }
  }

  drawLeft() {
    renderLeft($("left"), this.state, this.narrow);
    this.showTitle();
  }

  // The tab's title: the unread count first (as Zulip's web app), the narrow, the organization.
  showTitle() {
    const unread = this.state.unread.count();
    const text = `${unread ? `(${unread}) ` : ""}${this.title(this.narrow)} - ${this.state.realmName}`;
    if (document.title !== text) document.title = text;
  }

  drawPeople() {
    renderPeople($("people"), this.state, this.presence, this.info);
  }

  drawTyping() {
    const names = this.typing.inNarrow(this.narrow).map((id) => this.state.userName(id));
    let text = "";
    if (names.length === 1) text = `${names[0]} is typing…`;
    else if (names.length > 1) text = `${names.join(", ")} are typing…`;
    if ($("typing").textContent !== text) $("typing").textContent = text;
  }

  applyEvents(events) {
    let left = false;
    let people = false;
    for (const event of events) {
      left = this.state.apply(event) || left;
      applyExtrasEvent(event);
      this.list?.onEvent(event);
      this.composeTools.apply(event);
      if (event.type === "message") {
        this.compose.onMessage(event);
        if (this.info.settings.enable_desktop_notifications !== false) notifyMessage(event, this.state);
        announceMessage(event, this.state);
        this.typing.apply({ ...event, op: "stop", ...typingOf(event.message) });
      } else if (event.type === "presence") {
        this.presence.apply(event);
        people = true;
      } else if (event.type === "typing") {
        this.typing.apply(event);
      }
      const personal = this.info.apply(event);
      if (personal === "settings") this.applyTheme();
      people = people || event.type === "realm_user" || personal !== null;
      if (event.type === "subscription" || event.type === "realm_user") {
        this.compose.refreshOptions(this.narrow);
      }
    }
    this.org.apply(events);
    this.integrations.apply(events);
    if (events.some((event) => CHANNEL_EVENTS.has(event.type))) this.channelsChanged();
    if (events.some((event) => event.type === "stream" || event.type === "realm")) {
      this.state.realmName = this.org.model.realm.name;
      $("narrow-title").textContent = this.title(this.narrow);
      this.showTitle();
      this.compose.refreshOptions(this.narrow);
    }
    if (left) this.drawLeft();
    if (people) {
      this.drawPeople();
      $("me").textContent = this.state.userName(this.state.myId);
      refreshSettings($("settings"), this.state, this.info);
      refreshProfileCard(this.state, this.info);
    }
    this.drawTyping();
  }

  // Subscriptions, channels or people changed: the browser, the channel bar, and a compose
  // box that had no channel to send to (this person just subscribed to the one on screen).
  channelsChanged() {
    this.channelBrowser.refresh();
    const joined = this.unsubscribedHere;
    this.drawChannelBar();
    $("narrow-title").textContent = this.title(this.narrow);
    // Just subscribed to the channel on screen: compose to it (it was not on offer before).
    if (joined != null && this.unsubscribedHere == null) this.compose.setNarrow(this.narrow);
    this.composeBanner.check();
  }

  // The bar above an unsubscribed channel's messages; remembers which channel that is.
  drawChannelBar() {
    renderChannelBar(this.channelBar, this.state, this.narrow);
    const here = this.narrow.kind === "channel" ? this.narrow.streamId : null;
    this.unsubscribedHere = here !== null && !this.state.channels.has(here) ? here : null;
  }

  // The event queue is gone: register again, then refetch what is on screen.
  async reset() {
    this.load(await register());
    this.drawPeople();
    await this.route();
    return { queueId: this.state.queueId, lastEventId: this.state.lastEventId };
  }

  status(text, isError = false) {
    const node = $("connection");
    node.textContent = text;
    node.hidden = !text;
    node.classList.toggle("error", isError);
    if (isError) {
      setTimeout(() => {
        if (node.textContent === text) this.status("");
      }, 8000);
    }
  }

  failed(error) {
    if (error instanceof ApiError && error.status === 401) location.assign("/login/");
    else this.status(error.message, true);
  }

  toggleMenu(open) {
    const show = open ?? !document.body.classList.contains("menu-open");
    document.body.classList.toggle("menu-open", show);
    $("menu-toggle").setAttribute("aria-expanded", String(show));
  }

  async logOut() {
    this.loop?.stop();
    await logOut();
    location.assign("/login/");
  }
}

new App().start().catch((error) => {
  if (error instanceof ApiError && error.status === 401) location.assign("/login/");
  else document.body.append(`Could not start: ${error.message}`);
});
