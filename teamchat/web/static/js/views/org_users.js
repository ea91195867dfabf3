// Organization › Users: everyone active and deactivated with their role; change a role
// (PATCH /users/{id}), deactivate (DELETE /users/{id}) or reactivate, each confirmed first.

import { del, patch, post } from "../api.js";
import { el } from "../dom.js";
import { assignableRoles, roleName } from "../org.js";
import { confirmButton, resultLine, run, selectOf, table } from "./org_forms.js";

export class UsersSection {
  constructor(model) {
    this.model = model;
    this.filter = el("input", {
      type: "search",
      id: "org-users-filter",
      placeholder: "Filter by name or email",
      "aria-label": "Filter users",
      oninput: () => this.refresh(),
    });
    this.active = el("div", { class: "org-list" });
    this.inactive = el("div", { class: "org-list" });
    this.node = el("section", { "aria-labelledby": "org-users-title" }, [
      el("h3", { id: "org-users-title", text: "Users" }),
      this.filter,
      this.active,
      el("h3", { text: "Deactivated users" }),
      this.inactive,
    ]);
  }

  matches(user) {
    const text = this.filter.value.trim().toLowerCase();
    if (!text) return true;
    return `${user.full_name} ${user.delivery_email ?? user.email}`.toLowerCase().includes(text);
  }

  refresh() {
    for (const [container, active] of [
      [this.active, true],
      [this.inactive, false],
    ]) {
      const users = this.model.sortedUsers(active).filter((user) => this.matches(user));
      container.replaceChildren(
        users.length
          ? table(
              ["Name", "Email", "Role", ""],
              users.map((user) => this.row(user)),
            )
          : el("p", { class: "org-empty", text: active ? "Nobody matches." : "No deactivated users." }),
      );
    }
  }

  row(user) {
    const me = this.model.me;
    const result = resultLine();
    const name = `${user.full_name}${user.is_bot ? " (bot)" : ""}`;
    const mayEdit = user.user_id !== me.user_id && (me.role === 100 || user.role !== 100);
    let roleCell = el("span", { text: roleName(user.role) });
    if (mayEdit && !user.is_bot && user.is_active) {
      const choices = assignableRoles(me);
      if (!choices.some((choice) => choice.value === user.role)) {
        choices.push({ value: user.role, name: roleName(user.role) });
      }
      roleCell = selectOf(
        choices.map((choice) => ({ value: choice.value, label: choice.name })),
        user.role,
        { "aria-label": `Role of ${user.full_name}`, class: "org-role" },
      );
      roleCell.addEventListener("change", async () => {
        const change = () => patch(`/users/${user.user_id}`, { role: Number(roleCell.value) });
        const answer = await run(result, change);
        if (answer === undefined) roleCell.value = String(user.role); // refused: as it is
      });
    }
    let action = null;
    if (mayEdit && user.is_active) {
      action = confirmButton(
        "Deactivate",
        `Confirm deactivating ${user.full_name}`,
        () => run(result, () => del(`/users/${user.user_id}`), "Deactivated."),
        { "aria-label": `Deactivate ${user.full_name}` },
      );
    } else if (mayEdit) {
      action = confirmButton(
        "Reactivate",
        `Confirm reactivating ${user.full_name}`,
        () => run(result, () => post(`/users/${user.user_id}/reactivate`), "Reactivated."),
        { "aria-label": `Reactivate ${user.full_name}` },
      );
    }
    return el("tr", { class: "org-user", dataset: { userId: user.user_id } }, [
      el("td", { text: name }),
      el("td", { text: user.delivery_email ?? user.email }),
      el("td", {}, [roleCell]),
      el("td", {}, [action, result]),
    ]);
  }
}
