// One task: its Markdown description rendered as elements, its progress, its questions, and
// what the person can change (status, priority, title, description) or send about it.

import { api, enc } from "../api.js";
import { announce, showError } from "../announce.js";
import { PRIORITY_LABELS, STATUS_LABELS, emptyLine, keyLabelElement, priorityChip, progressBar, questionCard, questionVersion, relabelKeys, statusChip } from "../components.js";
import { confirmDialog } from "../dialog.js";
import { h, replace, syncList } from "../dom.js";
import { renderMarkdown } from "../markdown.js";
import { formatDate, timeElement } from "../time.js";
import { markViewed } from "../viewed.js";
import { messageForm } from "./message-dialog.js";
import { taskDialog } from "./task-dialog.js";

export function mount(main, params, { store, navigate }) {
  const id = params.get("id");
  let task = null;
  // The newest copy an event brought before the task loaded.
  let early = null;
  let deleting = false;
  const body = h("div", { class: "stack" });
  const questions = h("ul", { class: "list", "aria-label": "Questions about this task" });
  replace(main, h("p", { class: "loading" }, "Loading the task…"));

  const renderTask = () => {
    markViewed(task);
    const status = h("select", { id: "task-status" }, Object.entries(STATUS_LABELS).map(([v, t]) => h("option", { value: v }, t)));
    status.value = task.status;
    const priority = h("select", { id: "task-priority" }, Object.entries(PRIORITY_LABELS).map(([v, t]) => h("option", { value: v }, t)));
    priority.value = task.priority;
    // One explicit save: a select changes with each arrow key, and every change the person
    // makes is an inbox item for the agent.
    const save = async () => {
      const changed = {};
      if (status.value !== task.status) changed.status = status.value;
      if (priority.value !== task.priority) changed.priority = priority.value;
      if (Object.keys(changed).length === 0) { announce("Nothing to save."); return; }
      try {
        const updated = await api("PATCH", `/v1/tasks/${enc(task.id)}`, changed);
        store.apply("task.updated", { task: updated });
        announce("Changes saved.");
      } catch (error) {
        showError(error);
      }
    };
    replace(body,
      h("p", null, h("a", { href: "#/tasks" }, "← All tasks")),
      h("h1", { class: "item-title" }, task.title),
      h("div", { class: "meta" },
        statusChip(task.status), priorityChip(task.priority),
        h("span", null, "Agent: ", keyLabelElement(store, task.key_id, "a", { href: `#/key/${enc(task.key_id)}` })),
        task.host ? h("span", null, `Host: ${task.host}`) : null,
        h("span", null, task.source === "app" ? "Made by you" : "Made by the agent"),
        h("span", null, "Created ", timeElement(task.created_at)),
        h("span", null, "Updated ", timeElement(task.updated_at)),
        task.completed_at ? h("span", null, "Done ", timeElement(task.completed_at)) : null,
        h("span", null, task.seen_at ? `The agent got it ${formatDate(task.seen_at)}` : "The agent has not picked it up yet")),
      task.progress !== null && task.progress !== undefined
        ? h("div", null, h("span", { class: "small" }, `Progress: ${task.progress}%`), progressBar(task)) : null,
      task.status_note ? h("p", { class: "note" }, h("span", { class: "muted" }, "Now: "), task.status_note) : null,
      h("section", { "aria-labelledby": "task-description-heading", class: "card" },
        h("h2", { id: "task-description-heading" }, "Description"),
        task.description ? renderMarkdown(task.description) : h("p", { class: "muted" }, "No description.")),
      h("section", { "aria-labelledby": "task-questions-heading" },
        h("h2", { id: "task-questions-heading" }, "Questions"), questions),
      h("section", { "aria-labelledby": "task-change-heading", class: "card" },
        h("h2", { id: "task-change-heading" }, "Change"),
        h("div", { class: "filters" },
          h("div", null, h("label", { for: "task-status" }, "Status"), status),
          h("div", null, h("label", { for: "task-priority" }, "Priority"), priority)),
        h("div", { class: "row" },
          h("button", { type: "button", id: "task-save", class: "primary", onclick: save }, "Save changes"),
          h("button", { type: "button", onclick: () => taskDialog(store, { task }) }, "Edit title and description"),
          h("button", { type: "button", class: "danger", onclick: remove }, "Delete task"))),
      h("section", { "aria-labelledby": "task-message-heading", class: "card" },
        h("h2", { id: "task-message-heading" }, "Message about this task"),
        messageForm(store, task.key_id, { taskId: task.id })));
    renderQuestions();
  };

  const renderQuestions = () => {
    const list = store.questionsOfTask(id);
    if (list.length === 0) replace(questions, emptyLine("No questions about this task."));
    else syncList(questions, list, (q) => q.id, (q) => questionVersion(q, store), (q) => questionCard(q, store, { showTask: false }));
  };

  async function remove() {
    // The event stream can announce the deletion before the answer comes: keep what is needed.
    const doomed = task;
    const ok = await confirmDialog({
      title: "Delete this task?", message: `“${doomed.title}” is deleted, and its pending questions are cancelled. The agent gets a note in its inbox.`,
      confirmLabel: "Delete task", danger: true,
    });
    if (!ok) return;
    try {
      deleting = true;
      await api("DELETE", `/v1/tasks/${enc(doomed.id)}`);
      store.apply("task.deleted", { task_id: doomed.id, key_id: doomed.key_id });
      announce("Task deleted.");
      navigate("#/tasks");
    } catch (error) {
      deleting = false;
      showError(error);
    }
  }

  api("GET", `/v1/tasks/${enc(id)}`).then((loaded) => {
    // A change that arrived while the task loaded can be newer than the copy loaded.
    task = early && early.updated_at >= loaded.updated_at ? early : loaded;
    replace(main, body);
    renderTask();
    const heading = main.querySelector("h1");
    heading.setAttribute("tabindex", "-1");
    heading.focus();
  }, (error) => {
    replace(main, h("h1", null, "Task not found"),
      h("p", null, error.status === 404 ? "This task does not exist any more." : error.message),
      h("p", null, h("a", { href: "#/tasks" }, "Back to the tasks")));
  });

  return store.on((name, data) => {
    const ours = (name === "task.updated" || name === "task.created") && data.task.id === id;
    if (!task) {
      if (ours && (!early || data.task.updated_at >= early.updated_at)) early = data.task;
      return;
    }
    if (ours) {
      if (data.task.updated_at < task.updated_at) return;
      const focused = document.activeElement?.id;
      task = data.task;
      renderTask();
      if (focused) document.getElementById(focused)?.focus();
    } else if (name === "task.deleted" && data.task_id === id && !deleting) {
      replace(main, h("h1", null, "Task deleted"), h("p", null, "This task was deleted."), h("p", null, h("a", { href: "#/tasks" }, "Back to the tasks")));
      announce("This task was deleted.");
      task = null;
    } else if (name.startsWith("question.")) {
      renderQuestions();
    } else if (name === "refreshed" || name.startsWith("key.")) {
      // The keys may have come after the task (a reload): only the names change, so a
      // half-typed message stays.
      relabelKeys(main, store);
      renderQuestions();
    }
  });
}
