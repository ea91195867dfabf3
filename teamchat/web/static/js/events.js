// /register and the long-polled /events loop. A lost queue (BAD_EVENT_QUEUE_ID, e.g. after a
// server restart) means registering again and refetching; a lost network means retrying with
// a growing pause. Either way `onStatus` says "reconnecting" until events flow again.

import { ApiError, NetworkError, get, post } from "./api.js";

export const CLIENT_CAPABILITIES = {
  notification_settings_null: true,
  bulk_message_deletion: true,
  user_avatar_url_field_optional: false,
  stream_typing_notifications: true,
  user_settings_object: true,
  linkifier_url_template: true,
};

// The initial state this client reads (every event type is still delivered).
const FETCH_EVENT_TYPES = [
  "message",
  "update_message_flags",
  "subscription",
  "realm_user",
  "realm",
  "presence",
  "recent_private_conversations",
  "user_settings",
  "user_status",
  "custom_profile_fields",
  // The Organization area (views/org.js).
  "stream",
  "realm_user_groups",
  "realm_emoji",
  "realm_linkifiers",
  // Invitations' default channels and the channel browser (views/channel_browser.js).
  "default_streams",
  // The integrations the server serves, for the Integrations page (views/integrations.js).
  "realm_incoming_webhook_bots",
];

export async function register() {
  return post("/register", {
    fetch_event_types: FETCH_EVENT_TYPES,
    apply_markdown: true,
    // Subscriber lists: channel settings, counts, and the compose box's mention warning.
    include_subscribers: true,
    client_gravatar: false,
    slim_presence: true,
    client_capabilities: CLIENT_CAPABILITIES,
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class EventLoop {
  // handlers: {onEvents(events), onReset() -> Promise<{queueId, lastEventId}>, onStatus(text),
  //            onLoggedOut()}
  constructor(queueId, lastEventId, handlers) {
    this.queueId = queueId;
    this.lastEventId = lastEventId;
    this.handlers = handlers;
    this.running = false;
  }

  start() {
    this.running = true;
    this.run();
  }

  stop() {
    this.running = false;
  }

  async run() {
    let failures = 0;
    while (this.running) {
      try {
        const body = await get("/events", {
          queue_id: this.queueId,
          last_event_id: this.lastEventId,
        });
        if (failures) this.handlers.onStatus("");
        failures = 0;
        const events = body.events.filter((event) => event.type !== "heartbeat");
        if (body.events.length) this.lastEventId = body.events[body.events.length - 1].id;
        if (events.length) this.deliver(events);
      } catch (error) {
        failures += 1;
        if (error instanceof ApiError && error.status === 401) {
          this.handlers.onLoggedOut();
          return;
        }
        this.handlers.onStatus("Reconnecting…");
        if (error instanceof ApiError && error.code === "BAD_EVENT_QUEUE_ID") {
          failures = await this.reset(failures);
        } else if (error instanceof NetworkError || error instanceof ApiError) {
          await sleep(Math.min(30000, 500 * 2 ** Math.min(failures, 6)));
        } else {
          throw error;
        }
      }
    }
  }

  // A bug in drawing one event must not stop the events that follow.
  deliver(events) {
    try {
      this.handlers.onEvents(events);
    } catch (error) {
      console.error("applying events failed", error);
      this.handlers.onStatus(`Display error: ${error.message}`, true);
    }
  }

  async reset(failures) {
    try {
      const { queueId, lastEventId } = await this.handlers.onReset();
      this.queueId = queueId;
      this.lastEventId = lastEventId;
      this.handlers.onStatus("");
      return 0;
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        this.running = false;
        this.handlers.onLoggedOut();
        return failures;
      }
      await sleep(Math.min(30000, 500 * 2 ** Math.min(failures, 6)));
      return failures;
    }
  }
}
