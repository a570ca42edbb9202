// Home: the questions that wait for the person, then every agent (key) with its open tasks,
// progress and status note, and its unread inbox count.

import { enc } from "../api.js";
import { emptyLine, questionCard, questionVersion, taskRow, waitingQuestions } from "../components.js";
import { h, replace, syncList } from "../dom.js";
import { timeElement } from "../time.js";
import { unviewedState } from "../viewed.js";
import { messageDialog } from "./message-dialog.js";

export function mount(main, _params, { store }) {
  const questionList = h("ul", { class: "list", "aria-label": "Questions waiting for you" });
  const questionSection = h("section", { "aria-labelledby": "agents-questions" },
    h("h2", { id: "agents-questions" }, "Waiting for you"), questionList);
  const grid = h("ul", { class: "grid list", "aria-label": "Agents" });
  const status = h("p", { class: "muted" });
  replace(main,
    h("h1", null, "Agents"),
    questionSection,
    h("section", { "aria-labelledby": "agents-keys" }, h("h2", { id: "agents-keys" }, "Your agents"), status, grid));

  const render = () => {
    const pending = waitingQuestions(store);
    questionSection.hidden = pending.length === 0;
    syncList(questionList, pending, (q) => q.id, (q) => questionVersion(q, store), (q) => questionCard(q, store));
    const keys = store.sortedKeys();
    if (!store.loaded) status.textContent = "Loading…";
    else if (keys.length === 0) {
      replace(status, "No agents yet. ", h("a", { href: "#/keys" }, "Create a key"), " and connect an agent with it.");
    } else status.textContent = "";
    syncList(grid, keys, (k) => k.id, (k) => keyVersion(store, k), (k) => agentCard(store, k));
  };
  render();
  return store.on(render);
}

function keyVersion(store, key) {
  const tasks = store.tasksOfKey(key.id).map((t) => `${t.id}:${t.updated_at}:${unviewedState(t)}`).join(",");
  return `${key.label}|${key.last_host}|${key.last_client?.name}|${key.last_used_at}|${store.unread.get(key.id)}|${tasks}`;
}

function agentCard(store, key) {
  const tasks = store.tasksOfKey(key.id);
  const unread = store.unread.get(key.id) ?? 0;
  const headingId = `agent-${key.id}`;
  const list = h("ul", { class: "list", "aria-label": `Open tasks of ${key.label}` });
  if (tasks.length === 0) list.append(emptyLine("No open tasks."));
  for (const task of tasks) list.append(taskRow(task, store, { showKey: false }));
  return h("li", { class: "card agent stack", "aria-labelledby": headingId },
    h("div", { class: "row spread" },
      h("h3", { id: headingId }, h("a", { href: `#/key/${enc(key.id)}` }, key.label)),
      h("span", { class: "chip" }, `${tasks.length} open`)),
    h("div", { class: "meta" },
      key.last_client ? h("span", null, `${key.last_client.name} ${key.last_client.version ?? ""}`.trim()) : h("span", null, "No MCP client yet"),
      key.last_host ? h("span", null, `on ${key.last_host}`) : null,
      h("span", null, "Last used ", timeElement(key.last_used_at)),
      h("span", null, `Inbox: ${unread} unread`)),
    list,
    h("div", { class: "row" },
      h("button", { type: "button", onclick: () => messageDialog(store, key.id) }, "Message ", h("span", { class: "visually-hidden" }, key.label)),
      h("a", { class: "button", href: `#/tasks?key_id=${enc(key.id)}` }, "All tasks", h("span", { class: "visually-hidden" }, ` of ${key.label}`)),
      h("a", { class: "button", href: `#/key/${enc(key.id)}` }, "Inbox and activity", h("span", { class: "visually-hidden" }, ` of ${key.label}`))));
}
