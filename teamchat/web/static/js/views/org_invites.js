// Organization › Invitations: create an invitation link or email invitations (role, channels,
// expiry), list the pending ones (GET /invites, again on every invites_changed) and revoke them.

import { del, get, post } from "../api.js";
import { el } from "../dom.js";
import { EXPIRY_CHOICES, assignableRoles, roleName } from "../org.js";
import { confirmButton, formatDate, labelled, resultLine, run, selectOf, table } from "./org_forms.js";

// One invitation whose email was not sent: the address and its link, ready to copy.
function unsentRow(entry) {
  const link = el("input", { readonly: true, value: entry.link, "aria-label": `Invitation link for ${entry.email}` });
  return el("li", {}, [
    el("span", { text: entry.email }),
    link,
    el("button", {
      type: "button",
      text: "Copy",
      onclick: () => navigator.clipboard?.writeText(link.value).catch(() => link.select()),
    }),
  ]);
}

export class InvitesSection {
  constructor(model) {
    this.model = model;
    this.list = el("div", { class: "org-list" });
    this.listResult = resultLine();
    this.node = el("section", { "aria-labelledby": "org-invites-title" }, [
      el("h3", { id: "org-invites-title", text: "Invite people" }),
      this.form(),
      el("h3", { text: "Pending invitations" }),
      this.listResult,
      this.list,
    ]);
  }

  form() {
    const kind = selectOf(
      [
        { value: "link", label: "An invitation link anyone can use" },
        { value: "email", label: "Invitations sent by email" },
      ],
      "link",
      { id: "org-invite-kind" },
    );
    const emails = el("textarea", {
      id: "org-invite-emails",
      rows: "2",
      placeholder: "one@example.com, two@example.com",
    });
    const emailsField = labelled("Email addresses", emails);
    emailsField.hidden = true;
    const role = selectOf(
      assignableRoles(this.model.me).map((entry) => ({ value: entry.value, label: entry.name })),
      400,
      { id: "org-invite-role" },
    );
    const expiry = selectOf(
      EXPIRY_CHOICES.map((choice) => ({ value: choice.minutes ?? "null", label: choice.label })),
      60 * 24 * 10,
      { id: "org-invite-expiry" },
    );
    this.channelBoxes = el("fieldset", { class: "org-checks" });
    // Zulip's invitation dialog: the organization's default channels, unless unticked.
    this.defaultsBox = el("input", {
      type: "checkbox",
      id: "org-invite-defaults",
      checked: true,
      onchange: () => this.drawChannelBoxes(),
    });
    this.drawChannelBoxes();
    const submit = el("button", { type: "submit", class: "primary", text: "Create invitation link" });
    const link = el("input", { id: "org-invite-link", readonly: true, "aria-label": "Invitation link" });
    const linkRow = el("div", { class: "org-row" }, [
      link,
      el("button", {
        type: "button",
        text: "Copy",
        onclick: () => navigator.clipboard?.writeText(link.value).catch(() => link.select()),
      }),
    ]);
    linkRow.hidden = true;
    const result = resultLine();
    const unsentList = el("ul", { class: "org-unsent-links", id: "org-invite-unsent" });
    kind.addEventListener("change", () => {
      emailsField.hidden = kind.value !== "email";
      submit.textContent = kind.value === "email" ? "Send invitations" : "Create invitation link";
      linkRow.hidden = true;
    });
    const send = async (event) => {
      event.preventDefault();
      const params = {
        invite_as: Number(role.value),
        invite_expires_in_minutes: expiry.value,
        stream_ids: [...this.channelBoxes.querySelectorAll("input[data-channel]:checked:not(:disabled)")].map((box) =>
          Number(box.value),
        ),
        include_realm_default_subscriptions: this.defaultsBox.checked,
      };
      unsentList.replaceChildren();
      if (kind.value === "email") {
        const invite = () => post("/invites", { ...params, invitee_emails: emails.value });
        const answer = await run(result, invite, "Invitations sent.");
        if (answer) emails.value = "";
        // No email went (the server cannot send mail): say so and give each link instead.
        if (answer?.invite_links?.length) {
          result.className = "org-result failed";
          result.textContent = `${answer.email_problem} Share each invitation link with its person:`;
          unsentList.replaceChildren(...answer.invite_links.map((entry) => unsentRow(entry)));
        }
      } else {
        const answer = await run(result, () => post("/invites/multiuse", params), "Link created.");
        if (answer) {
          link.value = answer.invite_link;
          linkRow.hidden = false;
        }
      }
    };
    return el("form", { class: "org-form", onsubmit: send }, [
      labelled("Invite by", kind),
      emailsField,
      el("div", { class: "org-row" }, [labelled("Join as", role), labelled("Expires after", expiry)]),
      this.channelBoxes,
      el("div", { class: "org-row" }, [submit]),
      result,
      unsentList,
      linkRow,
    ]);
  }

  // One box per channel; the default channels start ticked. While "Default channels" is
  // ticked they are fixed (the server adds them as they are at sign-up); untick it to choose.
  drawChannelBoxes() {
    const boxes = [...this.channelBoxes.querySelectorAll("input[data-channel]")];
    const checked = new Set(boxes.filter((box) => box.checked).map((box) => box.value));
    const seen = new Set(boxes.map((box) => box.value));
    const defaults = this.model.defaultStreams;
    const fixed = this.defaultsBox.checked;
    const channels = this.model.sortedStreams().map((stream) => {
      const value = String(stream.stream_id);
      const isDefault = defaults.has(stream.stream_id);
      const ticked = (fixed && isDefault) || (seen.has(value) ? checked.has(value) : isDefault);
      return el("label", { class: `org-check${isDefault ? " default" : ""}` }, [
        el("input", {
          type: "checkbox",
          value,
          checked: ticked,
          disabled: fixed && isDefault,
          dataset: { channel: value },
        }),
        el("span", { text: stream.name }),
        isDefault ? el("span", { class: "org-note", text: "default" }) : null,
      ]);
    });
    this.channelBoxes.replaceChildren(
      el("legend", { text: "Subscribe them to" }),
      el("label", { class: "org-check org-defaults" }, [
        this.defaultsBox,
        el("span", { text: "Default channels for this organization" }),
      ]),
      ...channels,
    );
  }

  async refresh() {
    this.drawChannelBoxes();
    let invites;
    try {
      invites = (await get("/invites")).invites;
    } catch (error) {
      this.listResult.className = "org-result failed";
      this.listResult.textContent = error.message;
      return;
    }
    this.listResult.textContent = "";
    if (!invites.length) {
      this.list.replaceChildren(el("p", { class: "org-empty", text: "No pending invitations." }));
      return;
    }
    const rows = invites.map((invite) => this.row(invite));
    this.list.replaceChildren(table(["Invitation", "Role", "Invited by", "Expires", ""], rows));
  }

  row(invite) {
    const result = resultLine();
    const path = invite.is_multiuse ? `/invites/multiuse/${invite.id}` : `/invites/${invite.id}`;
    const what = invite.is_multiuse
      ? el("span", {}, [el("span", { text: "Link " }), el("code", { text: invite.link_url })])
      : el("span", { text: invite.email });
    return el("tr", { class: "org-invite", dataset: { inviteId: invite.id } }, [
      el("td", {}, [what]),
      el("td", { text: roleName(invite.invited_as) }),
      el("td", { text: this.model.userName(invite.invited_by_user_id) }),
      el("td", { text: formatDate(invite.expiry_date) }),
      el("td", {}, [
        invite.is_multiuse
          ? null
          : el("button", {
              type: "button",
              text: "Resend",
              onclick: () => run(result, () => post(`/invites/${invite.id}/resend`), "Sent again."),
            }),
        confirmButton("Revoke", "Confirm revoke", () => run(result, () => del(path), "Revoked.")),
        result,
      ]),
    ]);
  }
}
