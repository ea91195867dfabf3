// Small building blocks of the Organization area's forms: labelled fields, selects, a result
// line that shows the server's error in place, and two-step (confirmed) buttons.

import { el } from "../dom.js";

let nextId = 0;
export const uniqueId = (prefix) => `${prefix}-${++nextId}`;

export function labelled(text, input) {
  if (!input.id) input.id = uniqueId("org-field");
  return el("div", { class: "org-field" }, [el("label", { for: input.id, text }), input]);
}

export function selectOf(options, value, props = {}) {
  const select = el("select", props);
  for (const option of options) {
    select.append(el("option", { value: String(option.value), text: option.label }));
  }
  if (value !== undefined) select.value = String(value);
  return select;
}

// A line under a form: "Saving…", then "Saved." or the server's error message.
export function resultLine() {
  return el("p", { class: "org-result", role: "status", "aria-live": "polite" });
}

export async function run(result, action, done = "Saved.") {
  result.className = "org-result";
  result.textContent = "Saving…";
  try {
    const answer = await action();
    result.textContent = done;
    return answer;
  } catch (error) {
    result.className = "org-result failed";
    result.textContent = error.message;
    // Invitations name each address the server refused: [[email, why, deactivated], ...].
    const details = Array.isArray(error.body?.errors) ? error.body.errors : [];
    for (const [email, why] of details) result.textContent += ` ${email}: ${why}`;
    return undefined;
  }
}

// A button that asks again before it acts ("Deactivate" → "Confirm deactivate" / "Cancel").
export function confirmButton(label, question, action, props = {}) {
  const holder = el("span", { class: "org-confirm" });
  const start = el("button", { type: "button", text: label, ...props });
  const show = (confirming) => {
    if (!confirming) {
      holder.replaceChildren(start);
      return;
    }
    const yes = el("button", {
      type: "button",
      class: "danger",
      text: question,
      onclick: () => {
        show(false);
        action();
      },
    });
    holder.replaceChildren(
      yes,
      el("button", { type: "button", text: "Cancel", onclick: () => show(false) }),
    );
    yes.focus();
  };
  start.addEventListener("click", () => show(true));
  show(false);
  return holder;
}

export function formatDate(seconds) {
  if (seconds === null || seconds === undefined) return "never";
  return new Date(seconds * 1000).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

// A form's submit button, in a row of its own.
export function submitRow(text, ...more) {
  return el("div", { class: "org-row" }, [el("button", { type: "submit", class: "primary", text }), ...more]);
}

export function table(headings, rows) {
  return el("table", { class: "org-table" }, [
    el("thead", {}, [el("tr", {}, headings.map((text) => el("th", { text })))]),
    el("tbody", {}, rows),
  ]);
}
