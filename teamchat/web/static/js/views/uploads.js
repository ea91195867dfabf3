// File uploads from the compose box (button, paste, drag and drop): each file goes to
// POST /json/user_uploads by XMLHttpRequest (fetch has no upload progress), shows a progress
// bar with Cancel, and its `[name](url)` link replaces a placeholder in the message.

import { csrfToken } from "../api.js";
import { tooLarge, uploadMarkdown, uploadPlaceholder } from "../autocomplete.js";
import { el } from "../dom.js";

export class Uploads {
  // host: where progress rows go; errors: a node for problems; textarea() -> the message field.
  constructor(host, errors, textarea, maxMib) {
    this.host = host;
    this.errors = errors;
    this.textarea = textarea;
    this.maxMib = maxMib;
  }

  add(files) {
    this.errors.textContent = "";
    for (const file of files) {
      const problem = tooLarge(file.name, file.size, this.maxMib);
      if (problem) this.fail(problem);
      else this.start(file);
    }
  }

  fail(text) {
    this.errors.append(el("span", { text: `${text} ` }));
  }

  // Put `text` where the caret is, on a line of its own when the message has text around it.
  insert(text) {
    const field = this.textarea();
    const at = field.selectionStart ?? field.value.length;
    const before = field.value.slice(0, at);
    const after = field.value.slice(at);
    const head = before && !before.endsWith("\n") ? `${before}\n` : before;
    field.value = head + text + (after.startsWith("\n") || !after ? after : `\n${after}`);
    field.selectionStart = field.selectionEnd = head.length + text.length;
    field.dispatchEvent(new Event("input")); // the draft is saved
  }

  replace(placeholder, text) {
    const field = this.textarea();
    // Gone: deleted by the person, or left in another conversation's draft.
    if (!field.value.includes(placeholder)) return;
    const caret = field.selectionStart;
    field.value = field.value.replace(placeholder, text);
    if (document.activeElement === field) field.selectionStart = field.selectionEnd = Math.min(caret, field.value.length);
    field.dispatchEvent(new Event("input"));
  }

  start(file) {
    const placeholder = uploadPlaceholder(file.name);
    this.insert(placeholder);
    const progress = el("progress", { max: 100, value: 0, "aria-label": `Uploading ${file.name}` });
    const percent = el("span", { class: "upload-percent", text: "0%" });
    const xhr = new XMLHttpRequest();
    const row = el("div", { class: "upload" }, [
      el("span", { class: "upload-name", text: file.name }),
      progress,
      percent,
      el("button", {
        type: "button",
        class: "compose-tool upload-cancel",
        text: "Cancel",
        "aria-label": `Cancel uploading ${file.name}`,
        onclick: () => {
          xhr.abort();
          row.remove();
          this.replace(placeholder, "");
        },
      }),
    ]);
    this.host.append(row);
    xhr.upload.addEventListener("progress", (event) => {
      if (!event.lengthComputable) return;
      const value = Math.round((100 * event.loaded) / event.total);
      progress.value = value;
      percent.textContent = `${value}%`;
    });
    xhr.addEventListener("load", () => {
      row.remove();
      let body = {};
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // not the API's JSON: reported below by status
      }
      if (xhr.status === 200 && body.result === "success") {
        this.replace(placeholder, uploadMarkdown(file.name, body.url ?? body.uri));
      } else {
        this.replace(placeholder, "");
        const why = xhr.status === 413 ? tooLarge(file.name, Infinity, this.maxMib) : body.msg;
        this.fail(`Could not upload ${file.name}: ${why || `HTTP ${xhr.status}`}`);
      }
    });
    xhr.addEventListener("error", () => {
      row.remove();
      this.replace(placeholder, "");
      this.fail(`Could not upload ${file.name}: the server could not be reached.`);
    });
    const form = new FormData();
    form.append("file", file, file.name);
    xhr.open("POST", "/json/user_uploads");
    xhr.setRequestHeader("X-CSRFToken", csrfToken());
    xhr.send(form);
  }
}
