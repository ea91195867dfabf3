// A topic's menu (in the left pane and on topic headers): move the topic (rename it, or move it
// to another channel, with Zulip's propagate_mode choice) and resolve or unresolve it (the ✔
// prefix, PATCH /messages/{id} with the new topic). Offered only where the person may.

import { patch } from "../api.js";
import { el } from "../dom.js";
import { channelHash, hashToNarrow, sameNarrow } from "../narrow.js";
import { isResolved, toggledResolved } from "../permissions.js";
import { extras } from "../realm_extras.js";
import { openMenu } from "./popup_menu.js";

// The button, or null when the person may neither move nor resolve here.
// topic: {streamId, topic, messageId}: messageId is a message of the topic (the anchor of
// "this message and later" moves).
export function topicMenuButton(state, topic, onError) {
  const channel = state.channels.get(topic.streamId);
  const perms = extras.permissions;
  const canMove = perms.canMoveTopic(channel) || perms.canMoveChannel(channel);
  const canResolve = perms.canResolve(channel);
  if ((!canMove && !canResolve) || !topic.messageId) return null;
  const button = el("button", {
    type: "button",
    class: "topic-menu-button",
    "aria-label": `Topic actions: ${topic.topic || "(no topic)"}`,
    "aria-haspopup": "menu",
    "aria-expanded": "false",
    title: "Topic actions",
    text: "⋮",
  });
  button.addEventListener("click", (event) => {
    event.preventDefault();
    event.stopPropagation();
    const items = [];
    if (canMove) items.push({ label: "Move topic…", run: () => openMoveDialog(state, topic) });
    if (canResolve) {
      items.push({
        label: isResolved(topic.topic) ? "Mark as unresolved" : "Mark as resolved",
        run: () => moveTo(state, topic, { topic: toggledResolved(topic.topic), propagate_mode: "change_all" }).catch((error) =>
          onError(error.message),
        ),
      });
    }
    openMenu(button, "Topic actions", items);
  });
  return button;
}

// PATCH the topic's message; the view follows the topic when it was showing it.
async function moveTo(state, topic, params) {
  await patch(`/messages/${topic.messageId}`, params);
  const here = hashToNarrow(location.hash);
  if (sameNarrow(here, { kind: "channel", streamId: topic.streamId, topic: topic.topic })) {
    const streamId = params.stream_id ?? topic.streamId;
    location.hash = channelHash(streamId, state.streamName(streamId), params.topic ?? topic.topic);
  }
}

function openMoveDialog(state, topic) {
  const channel = state.channels.get(topic.streamId);
  const perms = extras.permissions;
  const problem = el("p", { class: "problem", role: "alert", hidden: true });
  const topicInput = el("input", { id: "move-topic-name", name: "topic", maxlength: 60, required: true });
  topicInput.value = topic.topic;
  topicInput.disabled = !perms.canMoveTopic(channel);
  const channels = el(
    "select",
    { id: "move-topic-channel", name: "channel" },
    state.sortedChannels().map((sub) => el("option", { value: String(sub.stream_id), text: `# ${sub.name}` })),
  );
  channels.value = String(topic.streamId);
  channels.disabled = !perms.canMoveChannel(channel);
  const mode = el("select", { id: "move-topic-mode", name: "propagate_mode" }, [
    el("option", { value: "change_all", text: "Move all messages in this topic" }),
    el("option", { value: "change_later", text: "Move this and all following messages" }),
    el("option", { value: "change_one", text: "Move only this message" }),
  ]);
  const form = el("form", { method: "dialog", class: "move-topic-form" }, [
    el("h2", { id: "move-topic-title", text: `Move “${topic.topic || "(no topic)"}”` }),
    problem,
    el("label", { for: "move-topic-name", text: "New topic" }),
    topicInput,
    el("label", { for: "move-topic-channel", text: "Channel" }),
    channels,
    el("label", { for: "move-topic-mode", text: "Which messages" }),
    mode,
    el("div", { class: "dialog-buttons" }, [
      el("button", { type: "submit", class: "primary", text: "Move" }),
      el("button", { type: "button", class: "cancel", text: "Cancel", onclick: () => dialog.close() }),
    ]),
  ]);
  const dialog = el("dialog", { class: "move-topic", "aria-labelledby": "move-topic-title" }, [form]);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const params = { propagate_mode: mode.value };
    const newTopic = topicInput.value.trim();
    if (newTopic !== topic.topic) params.topic = newTopic;
    if (Number(channels.value) !== topic.streamId) params.stream_id = Number(channels.value);
    if (params.topic === undefined && params.stream_id === undefined) {
      dialog.close();
      return;
    }
    try {
      await moveTo(state, topic, params);
      dialog.close();
    } catch (error) {
      problem.textContent = error.message;
      problem.hidden = false;
    }
  });
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  topicInput.focus();
}
