// Organization › Channels: create a channel (POST /channels/create), edit its name,
// description, privacy and permission settings (PATCH /streams/{id}), archive it
// (DELETE /streams/{id}). The list follows stream events; an open editor is kept across them.

import { del, patch, post } from "../api.js";
import { el } from "../dom.js";
import {
  CHANNEL_PERMISSIONS,
  PRIVACY,
  describeGroupValue,
  groupChoices,
  privacyOf,
  privacyParams,
} from "../org.js";
import { confirmButton, labelled, resultLine, run, selectOf, submitRow, table } from "./org_forms.js";

export class ChannelsSection {
  constructor(model) {
    this.model = model;
    this.list = el("div", { class: "org-list" });
    this.editor = el("div", { class: "org-editor" });
    this.editingId = null;
    this.node = el("section", { "aria-labelledby": "org-channels-title" }, [
      el("h3", { id: "org-channels-title", text: "Create a channel" }),
      this.createForm(),
      el("h3", { text: "Channels" }),
      this.list,
      this.editor,
    ]);
  }

  privacyChoices(current) {
    const webPublic = this.model.realm.enableSpectatorAccess && this.model.realm.canCreateWebPublic;
    return PRIVACY.filter((choice) => choice.value !== "web-public" || webPublic || current === "web-public");
  }

  createForm() {
    const name = el("input", { id: "org-channel-name", required: true, maxlength: "60" });
    const description = el("input", { id: "org-channel-description", maxlength: "1024" });
    const privacy = selectOf(this.privacyChoices("public"), "public", { id: "org-channel-privacy" });
    const result = resultLine();
    const create = async (event) => {
      event.preventDefault();
      const { is_private: invite_only, ...rest } = privacyParams(privacy.value);
      const answer = await run(
        result,
        () =>
          post("/channels/create", {
            name: name.value.trim(),
            description: description.value,
            subscribers: [this.model.myId],
            invite_only,
            ...rest,
          }),
        "Channel created.",
      );
      if (answer) {
        name.value = "";
        description.value = "";
      }
    };
    return el("form", { class: "org-form", onsubmit: create }, [
      el("div", { class: "org-row" }, [labelled("Channel name", name), labelled("Privacy", privacy)]),
      labelled("Description", description),
      submitRow("Create channel"),
      result,
    ]);
  }

  refresh() {
    const streams = this.model.sortedStreams();
    const rows = streams.map((stream) => {
      const result = resultLine();
      const description = el("td", { class: "rendered" });
      // The server's sanitized rendering of the description.
      description.innerHTML = stream.rendered_description ?? "";
      return el("tr", { class: "org-channel", dataset: { streamId: stream.stream_id } }, [
        el("td", { class: "name", text: stream.name }),
        el("td", { text: PRIVACY.find((choice) => choice.value === privacyOf(stream))?.label }),
        description,
        el("td", {}, [
          el("button", {
            type: "button",
            text: "Edit",
            "aria-label": `Edit ${stream.name}`,
            onclick: () => this.edit(stream.stream_id),
          }),
          // Opens the channel browser's settings page of this channel (views/channel_browser.js).
          el("button", {
            type: "button",
            text: "Subscribers",
            "aria-label": `Subscribers of ${stream.name}`,
            dataset: { action: "channel-settings", streamId: stream.stream_id },
          }),
          confirmButton(
            "Archive",
            `Confirm archiving ${stream.name}`,
            () => run(result, () => del(`/streams/${stream.stream_id}`), "Archived."),
            { "aria-label": `Archive ${stream.name}` },
          ),
          result,
        ]),
      ]);
    });
    this.list.replaceChildren(table(["Name", "Privacy", "Description", ""], rows));
    if (this.editingId !== null && !this.model.streams.has(this.editingId)) this.closeEditor();
    else if (this.editingId !== null) this.updateEditorHeading();
  }

  closeEditor() {
    this.editingId = null;
    this.editor.replaceChildren();
  }

  updateEditorHeading() {
    const heading = this.editor.querySelector("h3");
    const stream = this.model.streams.get(this.editingId);
    if (heading && stream) heading.textContent = `Edit #${stream.name}`;
  }

  edit(streamId) {
    const stream = this.model.streams.get(streamId);
    this.editingId = streamId;
    const name = el("input", { id: "org-edit-name", required: true, maxlength: "60", value: stream.name });
    const description = el("textarea", { id: "org-edit-description", rows: "2", maxlength: "1024" });
    description.value = stream.description ?? "";
    const current = privacyOf(stream);
    const privacy = selectOf(this.privacyChoices(current), current, { id: "org-edit-privacy" });
    const groups = this.model.groups;
    const shown = CHANNEL_PERMISSIONS.filter(([setting]) => setting in stream);
    const permissions = shown.map(([setting, label]) => {
      const value = stream[setting];
      const choices = groupChoices(this.model.permissionRules[setting], groups).map((choice) => ({
        value: choice.id,
        label: choice.label,
      }));
      if (typeof value !== "number") {
        // A list of people and groups: kept as it is unless another choice is made.
        const label = describeGroupValue(value, groups, (id) => this.model.userName(id));
        choices.unshift({ value: "custom", label });
      }
      const select = selectOf(choices, typeof value === "number" ? value : "custom", {
        dataset: { setting },
      });
      return labelled(label, select);
    });
    const result = resultLine();
    // Only what was changed here since the editor opened (or last saved) is sent, so a change
    // someone else made meanwhile is not undone.
    const selects = () => [privacy, ...this.editor.querySelectorAll("select[data-setting]")];
    const baseline = () => {
      for (const field of [name, description]) field.defaultValue = field.value;
      for (const select of selects()) select.dataset.initial = select.value;
    };
    const save = async (event) => {
      event.preventDefault();
      const params = {};
      if (name.value !== name.defaultValue) params.new_name = JSON.stringify(name.value.trim());
      if (description.value !== description.defaultValue) {
        params.description = JSON.stringify(description.value);
      }
      if (privacy.value !== privacy.dataset.initial) Object.assign(params, privacyParams(privacy.value));
      for (const select of this.editor.querySelectorAll("select[data-setting]")) {
        if (select.value === select.dataset.initial || select.value === "custom") continue;
        params[select.dataset.setting] = { new: Number(select.value) };
      }
      if (!Object.keys(params).length) {
        result.className = "org-result";
        result.textContent = "Nothing to save.";
        return;
      }
      if (await run(result, () => patch(`/streams/${streamId}`, params))) baseline();
    };
    this.editor.replaceChildren(
      el("form", { class: "org-form org-channel-editor", onsubmit: save }, [
        el("h3", { text: `Edit #${stream.name}` }),
        el("div", { class: "org-row" }, [labelled("Name", name), labelled("Privacy", privacy)]),
        labelled("Description", description),
        el("fieldset", { class: "org-permissions" }, [el("legend", { text: "Permissions" }), ...permissions]),
        submitRow(
          "Save changes",
          el("button", { type: "button", text: "Close", onclick: () => this.closeEditor() }),
        ),
        result,
      ]),
    );
    baseline();
    name.focus();
  }
}
