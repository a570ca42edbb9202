// Sending a message from the person to an agent (POST /v1/messages with key_id).

import { api } from "../api.js";
import { announce } from "../announce.js";
import { openDialog } from "../dialog.js";
import { keyLabelElement } from "../components.js";
import { h, uid } from "../dom.js";

export async function sendMessage(keyId, text, taskId) {
  const body = { key_id: keyId, text };
  if (taskId) body.task_id = taskId;
  return api("POST", "/v1/messages", body);
}

/** A form for a message, inline in a page. */
export function messageForm(store, keyId, { taskId, onSent } = {}) {
  const fieldId = uid("message");
  const errorId = uid("message-error");
  const input = h("textarea", { id: fieldId, maxlength: "2000", "aria-required": "true", "aria-describedby": errorId });
  const error = h("p", { class: "error-text", id: errorId, hidden: true });
  const button = h("button", { type: "submit", class: "primary" }, "Send message");
  const form = h("form", {
    class: "message-form",
    onsubmit: async (event) => {
      event.preventDefault();
      error.hidden = true;
      if (!input.value.trim()) {
        error.textContent = "Type a message first.";
        error.hidden = false;
        input.focus();
        return;
      }
      button.disabled = true;
      try {
        const item = await sendMessage(keyId, input.value, taskId);
        input.value = "";
        announce(`Message sent to ${store.keyLabel(keyId)}.`);
        if (onSent) onSent(item);
      } catch (failure) {
        error.textContent = failure.fields?.text || failure.message;
        error.hidden = false;
      } finally {
        button.disabled = false;
      }
    },
  }, h("label", { for: fieldId }, "Message to ", keyLabelElement(store, keyId)), input, error, h("div", { class: "row" }, button));
  return form;
}

export function messageDialog(store, keyId, taskId) {
  const fieldId = uid("message");
  const input = h("textarea", { id: fieldId, maxlength: "2000" });
  const error = h("p", { class: "error-text", hidden: true, role: "alert" });
  openDialog({
    title: `Message to ${store.keyLabel(keyId)}`,
    body: [h("label", { for: fieldId }, "Message"), input, error],
    actions: [
      { label: "Cancel" },
      {
        label: "Send",
        kind: "primary",
        onClick: async () => {
          if (!input.value.trim()) {
            error.textContent = "Type a message first.";
            error.hidden = false;
            return false;
          }
          try {
            await sendMessage(keyId, input.value, taskId);
            announce(`Message sent to ${store.keyLabel(keyId)}.`);
            return true;
          } catch (failure) {
            error.textContent = failure.fields?.text || failure.message;
            error.hidden = false;
            return false;
          }
        },
      },
    ],
  });
}
