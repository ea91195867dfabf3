// Settings that take effect at once: theme (color_scheme), time zone, and the notification
// table; each change is a PATCH /settings, and refreshSettingControls shows changes that
// arrive as user_settings events (from this tab or another).

import { patch } from "../api.js";
import { el } from "../dom.js";
import { COLOR_SCHEMES } from "../user_info.js";

// Zulip's notification settings: [row label, [setting per column]].
const COLUMNS = ["Desktop", "Audible", "Email", "Mobile push"];
const NOTIFICATION_ROWS = [
  [
    "Direct messages and mentions",
    [
      "enable_desktop_notifications",
      "enable_sounds",
      "enable_offline_email_notifications",
      "enable_offline_push_notifications",
    ],
  ],
  [
    "Followed topics",
    [
      "enable_followed_topic_desktop_notifications",
      "enable_followed_topic_audible_notifications",
      "enable_followed_topic_email_notifications",
      "enable_followed_topic_push_notifications",
    ],
  ],
];

function changer(result) {
  return async (name, value) => {
    result.className = "result";
    result.textContent = "Saving…";
    try {
      await patch("/settings", { [name]: value });
      result.textContent = "Saved.";
    } catch (error) {
      result.className = "result failed";
      result.textContent = error.message;
    }
  };
}

function themeChoice(info, change) {
  const options = [
    ["automatic", "Automatic (as the system)"],
    ["light", "Light"],
    ["dark", "Dark"],
  ];
  return el("fieldset", { class: "choices" }, [
    el("legend", { text: "Theme" }),
    ...options.map(([key, words]) => {
      const input = el("input", {
        type: "radio",
        name: "color_scheme",
        id: `theme-${key}`,
        value: String(COLOR_SCHEMES[key]),
        dataset: { setting: "color_scheme" },
        onchange: () => change("color_scheme", COLOR_SCHEMES[key]),
      });
      input.checked = info.settings.color_scheme === COLOR_SCHEMES[key];
      return el("label", { for: `theme-${key}`, class: "choice" }, [input, el("span", { text: words })]);
    }),
  ]);
}

function timezoneChoice(info, change) {
  const zones = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  const current = info.settings.timezone || "";
  if (current && !zones.includes(current)) zones.unshift(current);
  const select = el(
    "select",
    {
      id: "settings-timezone",
      dataset: { setting: "timezone" },
      onchange: (event) => change("timezone", event.target.value),
    },
    [el("option", { value: "", text: "Not set" }), ...zones.map((zone) => el("option", { value: zone, text: zone }))],
  );
  select.value = current;
  const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return el("div", {}, [
    el("label", { for: "settings-timezone", text: "Time zone" }),
    el("div", { class: "row tight" }, [
      select,
      browserZone
        ? el("button", {
            type: "button",
            text: `Use ${browserZone}`,
            onclick: () => {
              select.value = browserZone;
              change("timezone", browserZone);
            },
          })
        : null,
    ]),
  ]);
}

export function displaySection(info) {
  const result = el("p", { class: "result", "aria-live": "polite" });
  const change = changer(result);
  return el("div", { class: "display" }, [themeChoice(info, change), timezoneChoice(info, change), result]);
}

export function notificationTable(info) {
  const result = el("p", { class: "result", "aria-live": "polite" });
  const change = changer(result);
  const rows = NOTIFICATION_ROWS.map(([label, names]) =>
    el("tr", {}, [
      el("th", { scope: "row", text: label }),
      ...names.map((name, index) => {
        const box = el("input", {
          type: "checkbox",
          "aria-label": `${COLUMNS[index]} notifications for ${label.toLowerCase()}`,
          dataset: { setting: name },
          onchange: (event) => change(name, event.target.checked),
        });
        box.checked = Boolean(info.settings[name]);
        return el("td", {}, [box]);
      }),
    ]),
  );
  return el("div", {}, [
    el("table", { class: "notification-table" }, [
      el("thead", {}, [el("tr", {}, [el("td"), ...COLUMNS.map((words) => el("th", { scope: "col", text: words }))])]),
      el("tbody", {}, rows),
    ]),
    result,
  ]);
}

// Show the stored value of every setting control in `root`.
export function refreshSettingControls(root, info) {
  for (const control of root.querySelectorAll("[data-setting]")) {
    const value = info.settings[control.dataset.setting];
    if (control.type === "checkbox") control.checked = Boolean(value);
    else if (control.type === "radio") control.checked = control.value === String(value);
    else if (control.value !== String(value ?? "")) control.value = String(value ?? "");
  }
}
