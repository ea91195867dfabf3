// Presence: who is active, idle or offline, from /register's slim `presences` and presence
// events; and this client's own heartbeat (POST /users/me/presence) while the page is open.

import { post } from "./api.js";

export class Presence {
  constructor(register) {
    this.offlineSecs = register.server_presence_offline_threshold_seconds || 140;
    this.pingSecs = register.server_presence_ping_interval_seconds || 60;
    this.skew = Date.now() / 1000 - (register.server_timestamp || Date.now() / 1000);
    this.byUser = new Map();
    for (const [id, times] of Object.entries(register.presences || {})) {
      this.byUser.set(Number(id), { ...times });
    }
  }

  // A presence event (always in Zulip's legacy per-client shape).
  apply(event) {
    const times = this.byUser.get(event.user_id) || { active_timestamp: 0, idle_timestamp: 0 };
    for (const info of Object.values(event.presence || {})) {
      if (info.status === "active") times.active_timestamp = Math.max(times.active_timestamp, info.timestamp);
      times.idle_timestamp = Math.max(times.idle_timestamp, info.timestamp);
    }
    this.byUser.set(event.user_id, times);
  }

  status(userId) {
    const times = this.byUser.get(userId);
    if (!times) return "offline";
    const now = Date.now() / 1000 - this.skew;
    if (now - times.active_timestamp < this.offlineSecs) return "active";
    if (now - times.idle_timestamp < this.offlineSecs) return "idle";
    return "offline";
  }
}

// Report this person as active (or idle while the page is hidden) now and every ping
// interval; the answer refreshes `current()`, the Presence of the latest registration.
export function startHeartbeat(current, onChange) {
  const ping = () => {
    const status = document.visibilityState === "visible" ? "active" : "idle";
    post("/users/me/presence", { status, new_user_input: status === "active", slim_presence: true })
      .then((body) => {
        const presence = current();
        for (const [id, times] of Object.entries(body.presences || {})) {
          presence.byUser.set(Number(id), { ...times });
        }
        onChange();
      })
      .catch(() => {}); // the event loop shows connection trouble
  };
  ping();
  setInterval(ping, current().pingSecs * 1000);
  document.addEventListener("visibilitychange", ping);
}
