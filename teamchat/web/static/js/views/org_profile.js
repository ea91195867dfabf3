// Organization › Profile, Custom emoji and Linkifiers: the realm's name and description
// (PATCH /realm, the server's rendering shown), custom emoji (list, upload, deactivate) and
// linkifiers (list, add, edit, delete). Each follows its event: realm, realm_emoji,
// realm_linkifiers.

import { ApiError, NetworkError, csrfToken, del, patch, post } from "../api.js";
import { el } from "../dom.js";
import { confirmButton, labelled, resultLine, run, submitRow, table } from "./org_forms.js";

// The text of the server's sanitized HTML (an inert template: nothing in it loads or runs).
function textOf(html) {
  const template = document.createElement("template");
  template.innerHTML = html;
  return template.content.textContent.trim();
}

export class ProfileSection {
  constructor(model) {
    this.model = model;
    this.rendered = el("div", { class: "rendered org-description", id: "org-rendered-description" });
    this.name = el("input", { id: "org-realm-name", required: true, maxlength: "40" });
    this.description = el("textarea", { id: "org-realm-description", rows: "4", maxlength: "1000" });
    this.pending = undefined; // the Markdown this form saved, until its event comes back
    this.fill();
    const result = resultLine();
    const save = async (event) => {
      event.preventDefault();
      // Only what was changed here, so a change someone else made meanwhile is not undone.
      const params = {};
      if (this.name.value !== this.name.defaultValue) params.name = this.name.value;
      if (this.description.value !== this.description.defaultValue) {
        params.description = this.pending = this.description.value;
      }
      if (!Object.keys(params).length) {
        result.className = "org-result";
        result.textContent = "Nothing to save.";
        return;
      }
      const answer = await run(result, () => patch("/realm", params));
      if (!answer) this.pending = undefined;
      else {
        this.name.defaultValue = this.name.value;
        this.description.defaultValue = this.description.value;
      }
    };
    this.node = el("section", { "aria-labelledby": "org-profile-title" }, [
      el("h3", { id: "org-profile-title", text: "Organization profile" }),
      el("form", { class: "org-form", onsubmit: save }, [
        labelled("Organization name", this.name),
        labelled("Organization description (Markdown)", this.description),
        submitRow("Save changes"),
        result,
      ]),
      el("h3", { text: "How the description looks" }),
      this.rendered,
    ]);
  }

  // The fields show the organization as it is; the description's Markdown is known only when
  // this form saved it (the server sends the rendered HTML), otherwise its text stands in.
  fill() {
    const realm = this.model.realm;
    if (realm.name !== this.shownName) this.name.value = this.name.defaultValue = realm.name;
    this.shownName = realm.name;
    if (realm.description !== this.shown) {
      this.description.value = this.description.defaultValue = this.pending ?? textOf(realm.description);
      this.pending = undefined;
    }
    this.shown = realm.description;
  }

  refresh() {
    // The server's sanitized rendering of the description.
    this.rendered.innerHTML = this.model.realm.description || "<p><em>No description.</em></p>";
    this.fill();
  }
}

// POST a file as multipart/form-data with the session's CSRF token (api.js sends forms only).
async function upload(path, file) {
  const body = new FormData();
  body.append("file", file);
  let response;
  try {
    response = await fetch(`/json${path}`, {
      method: "POST",
      credentials: "same-origin",
      headers: { "X-CSRFToken": csrfToken() },
      body,
    });
  } catch (error) {
    throw new NetworkError(error.message);
  }
  let answer;
  try {
    answer = await response.json();
  } catch {
    throw new NetworkError(`unexpected answer (HTTP ${response.status})`);
  }
  if (!response.ok || answer.result !== "success") throw new ApiError(response.status, answer);
  return answer;
}

export class EmojiSection {
  constructor(model) {
    this.model = model;
    this.list = el("ul", { class: "org-emoji-list" });
    const name = el("input", { id: "org-emoji-name", required: true });
    const file = el("input", { id: "org-emoji-file", type: "file", accept: "image/*", required: true });
    const result = resultLine();
    const add = async (event) => {
      event.preventDefault();
      const answer = await run(
        result,
        () => upload(`/realm/emoji/${encodeURIComponent(name.value.trim())}`, file.files[0]),
        "Emoji added.",
      );
      if (answer) {
        name.value = "";
        file.value = "";
      }
    };
    this.node = el("section", { "aria-labelledby": "org-emoji-title" }, [
      el("h3", { id: "org-emoji-title", text: "Add a custom emoji" }),
      el("form", { class: "org-form", onsubmit: add }, [
        el("div", { class: "org-row" }, [labelled("Emoji name", name), labelled("Image", file)]),
        submitRow("Add emoji"),
        result,
      ]),
      el("h3", { text: "Custom emoji" }),
      this.list,
    ]);
  }

  refresh() {
    const emoji = this.model.activeEmoji();
    if (!emoji.length) {
      this.list.replaceChildren(el("li", { class: "org-empty", text: "No custom emoji yet." }));
      return;
    }
    this.list.replaceChildren(
      ...emoji.map((item) => {
        const result = resultLine();
        return el("li", { class: "org-emoji", dataset: { emojiName: item.name } }, [
          el("img", { src: item.source_url, alt: "", class: "emoji" }),
          el("code", { text: `:${item.name}:` }),
          el("span", { class: "org-muted", text: `by ${this.model.userName(item.author_id)}` }),
          confirmButton(
            "Deactivate",
            `Confirm deactivating :${item.name}:`,
            () => run(result, () => del(`/realm/emoji/${encodeURIComponent(item.name)}`), "Deactivated."),
            { "aria-label": `Deactivate :${item.name}:` },
          ),
          result,
        ]);
      }),
    );
  }
}

export class LinkifiersSection {
  constructor(model) {
    this.model = model;
    this.list = el("div", { class: "org-list" });
    const pattern = el("input", {
      id: "org-linkifier-pattern",
      required: true,
      placeholder: "#(?P<id>[0-9]+)",
    });
    const template = el("input", {
      id: "org-linkifier-template",
      required: true,
      placeholder: "https://github.com/org/repo/issues/{id}",
    });
    const result = resultLine();
    const add = async (event) => {
      event.preventDefault();
      const answer = await run(
        result,
        () => post("/realm/filters", { pattern: pattern.value, url_template: template.value }),
        "Linkifier added.",
      );
      if (answer) {
        pattern.value = "";
        template.value = "";
      }
    };
    this.node = el("section", { "aria-labelledby": "org-linkifiers-title" }, [
      el("h3", { id: "org-linkifiers-title", text: "Add a linkifier" }),
      el("p", {
        class: "org-muted",
        text:
          "Text in messages that matches the pattern becomes a link to the URL template, " +
          "with the pattern's named groups filled in.",
      }),
      el("form", { class: "org-form", onsubmit: add }, [
        el("div", { class: "org-row" }, [labelled("Pattern", pattern), labelled("URL template", template)]),
        submitRow("Add linkifier"),
        result,
      ]),
      el("h3", { text: "Linkifiers" }),
      this.list,
    ]);
  }

  refresh() {
    const linkifiers = this.model.linkifiers;
    if (!linkifiers.length) {
      this.list.replaceChildren(el("p", { class: "org-empty", text: "No linkifiers yet." }));
      return;
    }
    const rows = linkifiers.map((linkifier) => this.row(linkifier));
    this.list.replaceChildren(table(["Pattern", "URL template", ""], rows));
  }

  row(linkifier) {
    const result = resultLine();
    const row = el("tr", { class: "org-linkifier", dataset: { linkifierId: linkifier.id } });
    const show = () =>
      row.replaceChildren(
        el("td", {}, [el("code", { text: linkifier.pattern })]),
        el("td", {}, [el("code", { text: linkifier.url_template })]),
        el("td", {}, [
          el("button", { type: "button", text: "Edit", onclick: editing }),
          confirmButton(
            "Delete",
            "Confirm delete",
            () => run(result, () => del(`/realm/filters/${linkifier.id}`), "Deleted."),
          ),
          result,
        ]),
      );
    const editing = () => {
      const pattern = el("input", { value: linkifier.pattern, "aria-label": "Pattern", required: true });
      const template = el("input", {
        value: linkifier.url_template,
        "aria-label": "URL template",
        required: true,
      });
      const save = () =>
        run(result, () =>
          patch(`/realm/filters/${linkifier.id}`, { pattern: pattern.value, url_template: template.value }),
        );
      row.replaceChildren(
        el("td", {}, [pattern]),
        el("td", {}, [template]),
        el("td", {}, [
          el("button", { type: "button", class: "primary", text: "Save", onclick: save }),
          el("button", { type: "button", text: "Cancel", onclick: show }),
          result,
        ]),
      );
      pattern.focus();
    };
    show();
    return row;
  }
}
