// Every task, filtered by status, key and priority, a page at a time (the cursor of
// rest-api.md#list-tasks), with live events folded into the loaded rows.

import { api, query } from "../api.js";
import { announce, showError } from "../announce.js";
import { PRIORITY_LABELS, STATUS_LABELS, emptyLine, taskRow } from "../components.js";
import { h, replace, syncList } from "../dom.js";
import { unviewedState } from "../viewed.js";
import { taskDialog } from "./task-dialog.js";

const STATUS_FILTERS = [
  ["todo,in_progress", "Open (to do and in progress)"],
  ["", "All statuses"],
  ...Object.entries(STATUS_LABELS),
];

export function mount(main, params, { store }) {
  const filters = {
    status: params.get("status") ?? "todo,in_progress",
    key_id: params.get("key_id") ?? "",
    priority: params.get("priority") ?? "",
  };
  let tasks = [];
  let cursor = null;
  let generation = 0;
  // A refetch of everything (after the event stream's `ready`) that came while "Load more"
  // was on its way waits for it, so the page the person asked for is not thrown away.
  let loadingMore = false;
  let refreshWaits = false;

  const statusSelect = select("filter-status", STATUS_FILTERS, filters.status);
  const keySelect = h("select", { id: "filter-key" });
  const prioritySelect = select("filter-priority", [["", "All priorities"], ...Object.entries(PRIORITY_LABELS)], filters.priority);
  const list = h("ul", { class: "list", "aria-label": "Tasks", "aria-busy": "true" });
  const more = h("button", { type: "button", hidden: true, onclick: () => load(false) }, "Load more tasks");
  const summary = h("p", { class: "muted", role: "status" });
  const form = h("form", { class: "filters card", role: "search", "aria-label": "Filter tasks", onsubmit: (e) => e.preventDefault() },
    h("div", null, h("label", { for: "filter-status" }, "Status"), statusSelect),
    h("div", null, h("label", { for: "filter-key" }, "Agent"), keySelect),
    h("div", null, h("label", { for: "filter-priority" }, "Priority"), prioritySelect));
  replace(main,
    h("div", { class: "row spread" }, h("h1", null, "Tasks"),
      h("button", { type: "button", class: "primary", onclick: () => taskDialog(store, { keyId: filters.key_id }) }, "New task")),
    form, summary, list, h("div", { class: "row" }, more));

  const fillKeys = () => {
    const options = [["", "All agents"], ...store.sortedKeys().map((k) => [k.id, k.label])];
    if (keySelect.options.length === options.length && options.every(([v, t], i) => keySelect.options[i].value === v && keySelect.options[i].text === t)) return;
    replace(keySelect, options.map(([value, text]) => h("option", { value, selected: value === filters.key_id }, text)));
    keySelect.value = filters.key_id;
  };

  const matches = (task) =>
    (!filters.status || filters.status.split(",").includes(task.status)) &&
    (!filters.key_id || task.key_id === filters.key_id) &&
    (!filters.priority || task.priority === filters.priority);

  const render = () => {
    list.setAttribute("aria-busy", "false");
    if (tasks.length === 0) {
      replace(list, emptyLine("No tasks match these filters."));
    } else {
      syncList(list, tasks, (t) => t.id, (t) => `${t.updated_at}|${unviewedState(t)}|${store.keyLabel(t.key_id)}`, (t) => taskRow(t, store));
    }
    more.hidden = !cursor;
    summary.textContent = `${tasks.length} ${tasks.length === 1 ? "task" : "tasks"} shown${cursor ? ", more available" : ""}.`;
  };

  /** `keep`: on a refetch, at least as many tasks as were shown (the pages loaded so far). */
  async function load(fresh, keep = 0) {
    const mine = fresh ? ++generation : generation;
    if (fresh) { tasks = []; cursor = null; list.setAttribute("aria-busy", "true"); }
    else loadingMore = true;
    more.disabled = true;
    const limit = fresh ? Math.min(500, Math.max(50, keep)) : 50;
    try {
      const page = await api("GET", `/v1/tasks${query({ ...filters, limit, cursor: fresh ? null : cursor })}`);
      if (mine !== generation) return;
      const known = new Set(tasks.map((t) => t.id));
      const before = tasks.length;
      tasks.push(...page.tasks.filter((t) => !known.has(t.id)));
      cursor = page.next_cursor;
      render();
      if (!fresh) {
        announce(`${page.tasks.length} more tasks loaded.`);
        // The button went away with the last page, and the focus with it: it moves to the
        // first new task; when the live events had already brought every task of the page
        // (a change to an older task lists it at once), to the page's first task; with an
        // empty page, to the list's last task.
        if (!cursor) {
          const target = tasks[before] ?? page.tasks.find((t) => known.has(t.id)) ?? tasks[tasks.length - 1];
          if (target) list.querySelector(`[data-key="${CSS.escape(target.id)}"] a`)?.focus();
        }
      }
    } catch (error) {
      showError(error);
    } finally {
      more.disabled = false;
      if (!fresh) {
        loadingMore = false;
        if (refreshWaits) { refreshWaits = false; load(true, tasks.length); }
      }
    }
  }

  const onFilter = () => {
    filters.status = statusSelect.value;
    filters.key_id = keySelect.value;
    filters.priority = prioritySelect.value;
    const search = query(filters);
    history.replaceState(null, "", `#/tasks${search}`);
    load(true);
  };
  for (const control of [statusSelect, keySelect, prioritySelect]) control.addEventListener("change", onFilter);

  fillKeys();
  load(true);

  return store.on((name, data) => {
    if (name === "refreshed") {
      fillKeys();
      if (loadingMore) refreshWaits = true;
      else load(true, tasks.length);
      return;
    }
    if (name.startsWith("key.")) { fillKeys(); render(); return; }
    if (name === "task.created" || name === "task.updated") {
      const index = tasks.findIndex((t) => t.id === data.task.id);
      if (index >= 0) tasks.splice(index, 1);
      if (matches(data.task)) {
        tasks.push(data.task);
        tasks.sort((a, b) => b.updated_at - a.updated_at);
      }
      render();
    } else if (name === "task.deleted") {
      tasks = tasks.filter((t) => t.id !== data.task_id);
      render();
    }
  });
}

function select(id, options, value) {
  const el = h("select", { id }, options.map(([v, text]) => h("option", { value: v }, text)));
  el.value = value;
  return el;
}
