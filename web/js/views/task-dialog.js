// Making a task for an agent, or changing the title and description of one (the account
// credential: the agent gets a task_assigned or task_changed item in its inbox).

import { api } from "../api.js";
import { announce } from "../announce.js";
import { PRIORITY_LABELS } from "../components.js";
import { openDialog } from "../dialog.js";
import { h, uid } from "../dom.js";

export function taskDialog(store, { keyId = "", task = null } = {}) {
  const ids = { key: uid("task-key"), title: uid("task-title"), description: uid("task-description"), priority: uid("task-priority"), notify: uid("task-notify") };
  const keys = store.sortedKeys();
  const keySelect = h("select", { id: ids.key }, keys.map((k) => h("option", { value: k.id }, k.label)));
  if (keyId) keySelect.value = keyId;
  const title = h("input", { id: ids.title, type: "text", maxlength: "200", "aria-required": "true", value: task?.title ?? "" });
  const description = h("textarea", { id: ids.description, maxlength: "20000" });
  description.value = task?.description ?? "";
  const priority = h("select", { id: ids.priority }, Object.entries(PRIORITY_LABELS).map(([v, t]) => h("option", { value: v }, t)));
  priority.value = task?.priority ?? "medium";
  const notify = h("input", { id: ids.notify, type: "checkbox", checked: task ? task.notify : true });
  const error = h("p", { class: "error-text", role: "alert", hidden: true });
  if (!task && keys.length === 0) {
    openDialog({ title: "New task", body: [h("p", null, "Create a key first: a task belongs to one agent.")], actions: [{ label: "Close" }] });
    return;
  }
  const body = [
    task ? null : h("div", { class: "field" }, h("label", { for: ids.key }, "Agent"), keySelect),
    h("div", { class: "field" }, h("label", { for: ids.title }, "Title"), title),
    h("div", { class: "field" }, h("label", { for: ids.description }, "Description (Markdown)"), description),
    task ? null : h("div", { class: "field" }, h("label", { for: ids.priority }, "Priority"), priority),
    h("div", { class: "field field-inline" }, notify, h("label", { for: ids.notify }, "Notify me when the agent changes it")),
    error,
  ].filter(Boolean);
  openDialog({
    title: task ? "Edit task" : "New task",
    body,
    actions: [
      { label: "Cancel" },
      {
        label: task ? "Save" : "Create task",
        kind: "primary",
        onClick: async () => {
          error.hidden = true;
          try {
            if (task) {
              const changed = {};
              if (title.value !== task.title) changed.title = title.value;
              if (description.value !== task.description) changed.description = description.value;
              if (notify.checked !== task.notify) changed.notify = notify.checked;
              const updated = await api("PATCH", `/v1/tasks/${encodeURIComponent(task.id)}`, changed);
              store.apply("task.updated", { task: updated });
              announce("Task saved.");
            } else {
              const created = await api("POST", "/v1/tasks", {
                key_id: keySelect.value, title: title.value, description: description.value,
                priority: priority.value, notify: notify.checked,
              });
              store.apply("task.created", { task: created });
              announce(`Task created for ${store.keyLabel(created.key_id)}.`);
            }
            return true;
          } catch (failure) {
            const fields = Object.entries(failure.fields || {}).map(([name, message]) => `${name}: ${message}`);
            error.textContent = fields.length ? fields.join(" ") : failure.message;
            error.hidden = false;
            return false;
          }
        },
      },
    ],
  });
}
