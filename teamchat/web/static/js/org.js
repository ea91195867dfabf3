// What the Organization (administration) area knows, from /register and kept current by the
// realm, realm_user, stream, realm_emoji, realm_linkifiers and user group events. Pure: no DOM.

export const ROLES = [
  { value: 100, name: "Owner" },
  { value: 200, name: "Administrator" },
  { value: 300, name: "Moderator" },
  { value: 400, name: "Member" },
  { value: 600, name: "Guest" },
];

export function roleName(role) {
  return ROLES.find((entry) => entry.value === role)?.name ?? `Role ${role}`;
}

// The roles `me` may give (and take): only owners deal with owners.
export function assignableRoles(me) {
  return ROLES.filter((entry) => entry.value !== 100 || me.role === 100);
}

export const isAdmin = (user) => user?.role !== undefined && user.role <= 200;

// Invitation lifetimes, in minutes (null: never expires), as Zulip's web app offers them.
export const EXPIRY_CHOICES = [
  { minutes: 30, label: "30 minutes" },
  { minutes: 60 * 24, label: "1 day" },
  { minutes: 60 * 24 * 10, label: "10 days" },
  { minutes: 60 * 24 * 30, label: "30 days" },
  { minutes: null, label: "Never expires" },
];

// A channel's privacy as one choice, and back to PATCH /streams parameters.
export const PRIVACY = [
  { value: "public", label: "Public" },
  { value: "private-shared", label: "Private, shared history" },
  { value: "private-protected", label: "Private, protected history" },
  { value: "web-public", label: "Web-public" },
];

export function privacyOf(stream) {
  if (stream.is_web_public) return "web-public";
  if (!stream.invite_only) return "public";
  return stream.history_public_to_subscribers ? "private-shared" : "private-protected";
}

export function privacyParams(privacy) {
  switch (privacy) {
    case "web-public":
      return { is_web_public: true, is_private: false, history_public_to_subscribers: true };
    case "private-shared":
      return { is_web_public: false, is_private: true, history_public_to_subscribers: true };
    case "private-protected":
      return { is_web_public: false, is_private: true, history_public_to_subscribers: false };
    default:
      return { is_web_public: false, is_private: false, history_public_to_subscribers: true };
  }
}

// The channel permission settings shown, in this order, with what they decide.
export const CHANNEL_PERMISSIONS = [
  ["can_send_message_group", "Who can post"],
  ["can_administer_channel_group", "Who can administer the channel"],
  ["can_subscribe_group", "Who can subscribe themselves"],
  ["can_add_subscribers_group", "Who can subscribe others"],
  ["can_remove_subscribers_group", "Who can unsubscribe others"],
  ["can_move_messages_within_channel_group", "Who can move messages within the channel"],
  ["can_move_messages_out_of_channel_group", "Who can move messages out of the channel"],
  ["can_resolve_topics_group", "Who can resolve topics"],
  ["can_delete_own_message_group", "Who can delete their own messages"],
  ["can_delete_any_message_group", "Who can delete any message"],
];

const SYSTEM_GROUP_LABELS = {
  "role:everyone": "Everyone, including guests",
  "role:members": "Members",
  "role:fullmembers": "Full members",
  "role:moderators": "Moderators",
  "role:administrators": "Administrators",
  "role:owners": "Owners",
  "role:nobody": "Nobody",
  "role:internet": "Everyone on the internet",
};
const SYSTEM_GROUP_ORDER = Object.keys(SYSTEM_GROUP_LABELS);

// The system groups a setting may be set to ({id, label}), from the server's rules for it.
export function groupChoices(rule, groups) {
  const system = groups.filter((group) => group.is_system_group && !group.deactivated);
  return system
    .filter((group) => {
      if (rule?.allowed_system_groups?.length) return rule.allowed_system_groups.includes(group.name);
      if (group.name === "role:everyone") return rule?.allow_everyone_group !== false;
      if (group.name === "role:nobody") return rule?.allow_nobody_group !== false;
      if (group.name === "role:internet") return rule?.allow_internet_group === true;
      return true;
    })
    .sort((a, b) => SYSTEM_GROUP_ORDER.indexOf(a.name) - SYSTEM_GROUP_ORDER.indexOf(b.name))
    .map((group) => ({ id: group.id, label: SYSTEM_GROUP_LABELS[group.name] ?? group.name }));
}

// A group setting's value in words: a group's name, or the people and groups it lists.
export function describeGroupValue(value, groups, userName) {
  if (typeof value === "number") {
    const group = groups.find((candidate) => candidate.id === value);
    return SYSTEM_GROUP_LABELS[group?.name] ?? group?.name ?? `group ${value}`;
  }
  const names = [
    ...(value?.direct_members ?? []).map(userName),
    ...(value?.direct_subgroups ?? []).map((id) => describeGroupValue(id, groups, userName)),
  ];
  return names.length ? names.join(", ") : "Nobody";
}

export class OrgModel {
  constructor(register) {
    this.myId = register.user_id;
    this.realm = {
      name: register.realm_name,
      description: register.realm_description ?? "",
      enableSpectatorAccess: Boolean(register.realm_enable_spectator_access),
      canCreateWebPublic: Boolean(register.can_create_web_public_streams),
    };
    this.users = new Map();
    // The register lists say who is active; their objects carry no is_active (as Zulip's).
    for (const user of register.realm_users ?? []) {
      this.users.set(user.user_id, { ...user, is_active: true });
    }
    for (const user of register.realm_non_active_users ?? []) {
      this.users.set(user.user_id, { ...user, is_active: false });
    }
    this.streams = new Map();
    for (const stream of register.streams ?? []) this.streams.set(stream.stream_id, { ...stream });
    this.defaultStreams = new Set(register.realm_default_streams ?? []);
    this.groups = (register.realm_user_groups ?? []).map((group) => ({ ...group }));
    this.permissionRules = register.server_supported_permission_settings?.stream ?? {};
    this.emoji = { ...(register.realm_emoji ?? {}) };
    this.linkifiers = [...(register.realm_linkifiers ?? [])];
  }

  get me() {
    return this.users.get(this.myId);
  }

  sortedUsers(active) {
    return [...this.users.values()]
      .filter((user) => user.is_active === active)
      .sort((a, b) => a.full_name.localeCompare(b.full_name));
  }

  sortedStreams() {
    return [...this.streams.values()]
      .filter((stream) => !stream.is_archived)
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  activeEmoji() {
    return Object.values(this.emoji)
      .filter((emoji) => !emoji.deactivated)
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  userName(id) {
    return this.users.get(id)?.full_name ?? `User ${id}`;
  }

  // Apply one event; returns the sections of the area to draw again ("" when none).
  apply(event) {
    switch (event.type) {
      case "realm":
        if (event.op === "update") this.setRealm({ [event.property]: event.value });
        else if (event.op === "update_dict") this.setRealm(event.data ?? {});
        return "profile";
      case "realm_user":
        return this.applyUser(event);
      case "stream":
        return this.applyStream(event);
      case "realm_emoji":
        if (event.op === "update") this.emoji = { ...event.realm_emoji };
        return "emoji";
      case "realm_linkifiers":
        this.linkifiers = [...event.realm_linkifiers];
        return "linkifiers";
      case "invites_changed":
        return "invites";
      case "default_streams":
        this.defaultStreams = new Set(event.default_streams);
        return "invites";
      case "user_group":
        if (event.op === "add") this.groups.push({ ...event.group });
        else if (event.op === "update") {
          const group = this.groups.find((candidate) => candidate.id === event.group_id);
          if (group) Object.assign(group, event.data);
        }
        return "channels";
      default:
        return "";
    }
  }

  setRealm(data) {
    if ("name" in data) this.realm.name = data.name;
    if ("description" in data) this.realm.description = data.description;
    if ("enable_spectator_access" in data) {
      this.realm.enableSpectatorAccess = Boolean(data.enable_spectator_access);
    }
  }

  applyUser(event) {
    const person = event.person;
    if (event.op === "add") this.users.set(person.user_id, { is_active: true, ...person });
    else if (event.op === "update" && this.users.has(person.user_id)) {
      const user = this.users.get(person.user_id);
      Object.assign(user, person);
      // A role change comes as `role` alone; keep the booleans in step with it.
      if ("role" in person) {
        user.is_owner = person.role === 100;
        user.is_admin = person.role <= 200;
        user.is_guest = person.role === 600;
      }
    } else if (event.op === "remove") this.users.delete(person.user_id);
    else return "";
    return "users";
  }

  applyStream(event) {
    if (event.op === "create") {
      for (const stream of event.streams) this.streams.set(stream.stream_id, { ...stream });
    } else if (event.op === "delete") {
      for (const stream of event.streams) this.streams.delete(stream.stream_id);
    } else if (event.op === "update" && this.streams.has(event.stream_id)) {
      const stream = this.streams.get(event.stream_id);
      stream[event.property] = event.value;
      // Zulip names the privacy setting `invite_only` in the stream object.
      for (const field of ["rendered_description", "history_public_to_subscribers", "is_web_public"]) {
        if (field in event) stream[field] = event[field];
      }
    } else return "";
    return "channels";
  }
}
