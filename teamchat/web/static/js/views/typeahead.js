// A suggestion list under a text field (the compose box's message and topic): a listbox the
// arrows move through, Enter or Tab picks from, Esc closes; the mouse can pick too.
// The field points at it with aria-controls / aria-activedescendant (an <input> is also a
// combobox; a <textarea> may not take that role, so it stays a textbox with aria-autocomplete).

import { el } from "../dom.js";

let nextId = 1;

export class Typeahead {
  // source(text, caret) -> {items, pick(item)} | null, or a Promise of it. Items carry
  // label, and optionally detail, glyph or imageUrl.
  constructor(field, host, source) {
    this.field = field;
    this.source = source;
    this.id = `typeahead-${nextId++}`;
    this.list = el("ul", { id: this.id, class: "typeahead", role: "listbox", "aria-label": "Suggestions" });
    this.list.hidden = true;
    host.append(this.list);
    this.items = [];
    this.active = 0;
    this.asked = 0;
    if (field.tagName === "INPUT") field.setAttribute("role", "combobox");
    field.setAttribute("aria-autocomplete", "list");
    field.setAttribute("aria-controls", this.id);
    if (field.tagName === "INPUT") field.setAttribute("aria-expanded", "false");
    field.addEventListener("input", () => this.update());
    field.addEventListener("blur", () => this.close());
  }

  get open() {
    return !this.list.hidden;
  }

  async update() {
    const asked = ++this.asked;
    const found = await this.source(this.field.value, this.field.selectionStart ?? this.field.value.length);
    if (asked !== this.asked) return; // a newer keystroke won
    if (!found || !found.items.length || document.activeElement !== this.field) {
      this.close();
      return;
    }
    this.items = found.items;
    this.pickItem = found.pick;
    this.active = 0;
    this.draw();
  }

  draw() {
    this.list.replaceChildren(
      ...this.items.map((item, index) => {
        const option = el(
          "li",
          {
            id: `${this.id}-${index}`,
            role: "option",
            class: index === this.active ? "active" : "",
            "aria-selected": String(index === this.active),
          },
          [
            item.imageUrl ? el("img", { src: item.imageUrl, alt: "", class: "typeahead-emoji" }) : null,
            item.glyph ? el("span", { class: "typeahead-glyph", "aria-hidden": "true", text: item.glyph }) : null,
            el("span", { class: "typeahead-label", text: item.label }),
            item.detail ? el("span", { class: "typeahead-detail", text: item.detail }) : null,
          ],
        );
        // mousedown, not click: the field keeps the focus (its blur would close the list).
        option.addEventListener("mousedown", (event) => {
          event.preventDefault();
          this.choose(index);
        });
        return option;
      }),
    );
    this.list.hidden = false;
    if (this.field.tagName === "INPUT") this.field.setAttribute("aria-expanded", "true");
    this.field.setAttribute("aria-activedescendant", `${this.id}-${this.active}`);
    this.list.children[this.active]?.scrollIntoView?.({ block: "nearest" });
  }

  close() {
    this.asked++;
    this.list.hidden = true;
    this.items = [];
    if (this.field.tagName === "INPUT") this.field.setAttribute("aria-expanded", "false");
    this.field.removeAttribute("aria-activedescendant");
  }

  choose(index) {
    const item = this.items[index];
    const pick = this.pickItem;
    this.close();
    if (item) pick(item);
  }

  // A key in the field: true when the list used it (the caller then does nothing more).
  keydown(event) {
    if (!this.open || event.isComposing) return false;
    const count = this.items.length;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      this.active = (this.active + (event.key === "ArrowDown" ? 1 : count - 1)) % count;
      this.draw();
    } else if ((event.key === "Enter" || event.key === "Tab") && !event.shiftKey) {
      this.choose(this.active);
    } else if (event.key === "Escape") {
      this.close();
      event.stopPropagation(); // Esc closes the list, it does not also leave the field
    } else return false;
    event.preventDefault();
    return true;
  }
}
