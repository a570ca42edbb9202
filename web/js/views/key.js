// One key: its scopes, the connectors that act as it (OAuth grants), send a message, read its
// inbox (the 50 newest items with their read state), and its activity log a page at a time. The log has no event: it loads on open and
// on request.

import { api, enc, query } from "../api.js";
import { announce, showError } from "../announce.js";
import { copyButton } from "../clipboard.js";
import { relabelKeys } from "../components.js";
import { h, replace } from "../dom.js";
import { ALL_SCOPES, scopeFieldset } from "../scopes.js";
import { formatDate, timeElement } from "../time.js";
import { messageForm } from "./message-dialog.js";

const ONE_LINE = new Set(["When", "Duration", "Host"]);
const KIND_LABELS = { task_assigned: "Task assigned", task_changed: "Task changed", task_deleted: "Task deleted", answer: "Answer", message: "Message" };

export function mount(main, params, { store }) {
  const id = params.get("id");
  const inbox = h("ul", { class: "list", "aria-label": "Inbox items" });
  const inboxSummary = h("p", { class: "muted" });
  const activityBody = h("tbody", { role: "rowgroup" });
  const activityMore = h("button", { type: "button", hidden: true, onclick: () => loadActivity(false) }, "Load older entries");
  let cursor = null;
  const heading = h("h1", null, "Key");
  const info = h("div", { class: "meta" });

  const renderInfo = () => {
    const key = store.keys.get(id);
    heading.textContent = key ? key.label : "Key";
    if (!key) return;
    replace(info,
      h("span", null, `${key.prefix}…${key.last4}`),
      h("span", null, "Last used ", timeElement(key.last_used_at)),
      key.last_client ? h("span", null, `${key.last_client.name} ${key.last_client.version ?? ""}`.trim()) : null,
      key.last_host ? h("span", null, `on ${key.last_host}`) : null);
  };

  // The scopes as the server has them; the form is drawn again only when they change (not for
  // every key.updated, such as a new last_host), so a half-made choice is not thrown away.
  const scopesBody = h("div");
  let shownScopes = null;
  const renderScopes = () => {
    const key = store.keys.get(id);
    if (!key) return;
    const held = key.scopes ?? ALL_SCOPES;
    if (held.join(",") === shownScopes) return;
    shownScopes = held.join(",");
    const fields = scopeFieldset(held, { legend: "What the agent with this key may do" });
    const error = h("p", { class: "error-text", role: "alert", hidden: true });
    const save = h("button", { type: "button", class: "primary" }, "Save scopes");
    save.addEventListener("click", async () => {
      error.hidden = true;
      const chosen = fields.chosen();
      if (chosen.length === 0) {
        error.textContent = "Choose at least one thing the agent may do.";
        error.hidden = false;
        fields.focus();
        return;
      }
      save.disabled = true;
      try {
        const updated = await api("PATCH", `/v1/keys/${enc(id)}`, { scopes: chosen });
        shownScopes = updated.scopes.join(",");
        store.apply("key.updated", { key: updated });
        announce(`Scopes of ${updated.label} saved.`);
      } catch (failure) {
        const problem = Object.entries(failure.fields || {}).find(([name]) => name.startsWith("scopes"));
        error.textContent = problem ? `Scopes: ${problem[1]}` : failure.message;
        error.hidden = false;
      } finally {
        save.disabled = false;
      }
    });
    replace(scopesBody,
      h("p", { class: "small muted" }, "A change holds from the agent's next request. A call it has waiting that needs a scope you take away ends at once."),
      fields.element, error, h("div", { class: "row" }, save));
  };

  const grants = h("ul", { class: "list", "aria-label": "Connectors" });
  replace(main,
    h("p", null, h("a", { href: "#/keys" }, "← All keys")),
    heading, info,
    h("section", { class: "card", "aria-labelledby": "key-scopes" },
      h("h2", { id: "key-scopes" }, "Scopes"), scopesBody),
    h("section", { class: "card", "aria-labelledby": "key-grants" },
      h("h2", { id: "key-grants" }, "Connectors"),
      h("p", { class: "small muted" }, "Applications you allowed to act as this key (claude.ai, ChatGPT and other connectors). Each may do what both you allowed it and the key's scopes allow. Removing one signs it out at once."),
      grants),
    h("section", { class: "card", "aria-labelledby": "key-message" },
      h("h2", { id: "key-message" }, "Send a message"),
      messageForm(store, id, { onSent: () => loadInbox() })),
    h("section", { "aria-labelledby": "key-inbox" },
      h("h2", { id: "key-inbox" }, "Inbox"), inboxSummary, inbox),
    h("section", { "aria-labelledby": "key-activity" },
      h("div", { class: "row spread" }, h("h2", { id: "key-activity" }, "Activity log"),
        h("button", { type: "button", onclick: () => loadActivity(true) }, "Refresh the log")),
      h("p", { class: "small muted" }, "The last 200 requests of this key, for 7 days. No text of tasks or messages is kept."),
      h("div", { class: "table-wrap" },
        // Explicit roles: the phone layout shows the cells as blocks, which would drop them.
        h("table", { class: "stacked", role: "table" },
          h("caption", { class: "visually-hidden" }, "Activity log, newest first"),
          h("thead", { role: "rowgroup" }, h("tr", { role: "row" }, ["When", "Action", "Result", "Duration", "Client", "Host", "Copy"].map((t) => h("th", { scope: "col", role: "columnheader" }, t)))),
          activityBody)),
      h("div", { class: "row" }, activityMore)));
  renderInfo();
  renderScopes();

  async function loadGrants() {
    try {
      const result = await api("GET", `/v1/keys/${enc(id)}/grants`);
      replace(grants, result.grants.length ? result.grants.map(grantItem) : h("li", { class: "muted" }, "No application acts as this key."));
    } catch (error) {
      if (error.status !== 404) showError(error);
    }
  }

  function grantItem(grant) {
    const remove = h("button", { type: "button", class: "danger" }, "Remove");
    remove.setAttribute("aria-label", `Remove ${grant.client_name}`);
    remove.addEventListener("click", async () => {
      remove.disabled = true;
      try {
        await api("DELETE", `/v1/keys/${enc(id)}/grants/${enc(grant.id)}`);
        announce(`${grant.client_name} removed: it is signed out.`);
        loadGrants();
      } catch (error) {
        remove.disabled = false;
        showError(error);
      }
    });
    return h("li", { class: "card grant" },
      h("div", { class: "row spread" }, h("strong", null, grant.client_name), remove),
      h("div", { class: "meta" },
        h("span", null, "Allowed ", timeElement(grant.created_at)),
        h("span", null, "Last used ", timeElement(grant.last_used_at)),
        h("span", null, grant.scopes.join(", "))));
  }

  async function loadInbox() {
    try {
      const result = await api("GET", `/v1/keys/${enc(id)}/inbox`);
      inboxSummary.textContent = `${result.unread} unread. The agent marks items read when it gets them.`;
      replace(inbox, result.items.length ? result.items.map(inboxItem) : h("li", { class: "muted" }, "The inbox is empty."));
    } catch (error) {
      if (error.status === 404) replace(main, h("h1", null, "Key not found"), h("p", null, h("a", { href: "#/keys" }, "Back to the keys")));
      else showError(error);
    }
  }

  function inboxItem(item) {
    const from = item.from?.type === "agent" ? `From ${item.from.label}` : "From you";
    return h("li", { class: "card" },
      h("div", { class: "meta" },
        item.read_at ? h("span", null, "Read ", timeElement(item.read_at)) : h("span", null, h("span", { class: "unread-dot", "aria-hidden": "true" }), " Unread"),
        h("span", { class: "chip" }, KIND_LABELS[item.kind] ?? item.kind),
        h("span", null, from),
        h("span", null, timeElement(item.created_at)),
        item.task_id ? h("a", { href: `#/task/${enc(item.task_id)}` }, "Task") : null),
      h("p", { class: "note" }, item.text));
  }

  async function loadActivity(fresh) {
    activityMore.disabled = true;
    try {
      const page = await api("GET", `/v1/keys/${enc(id)}/activity${query({ limit: 50, cursor: fresh ? null : cursor })}`);
      if (fresh) replace(activityBody);
      for (const entry of page.items) activityBody.append(activityRow(entry));
      if (fresh && page.items.length === 0) activityBody.append(h("tr", { role: "row" }, h("td", { colspan: "7", class: "muted", role: "cell" }, "No requests in the last 7 days.")));
      cursor = page.next_cursor;
      activityMore.hidden = !cursor;
      if (!fresh) announce(`${page.items.length} older entries loaded.`);
    } catch (error) {
      if (error.status !== 404) showError(error);
    } finally {
      activityMore.disabled = false;
    }
  }

  function activityRow(entry) {
    const result = entry.status === "ok" ? "OK" : `${entry.code ?? "error"}${entry.message ? `: ${entry.message}` : ""}`;
    // A time, a duration or a host name split over two lines reads as two values.
    const cell = (label, ...content) => h("td", { "data-label": label, role: "cell", class: ONE_LINE.has(label) ? "one-line" : null }, ...content);
    return h("tr", { class: entry.status === "ok" ? "" : "activity-error", role: "row" },
      cell("When", h("time", { datetime: new Date(entry.at * 1000).toISOString() }, formatDate(entry.at))),
      cell("Action", h("code", null, entry.action), h("span", { class: "muted small" }, ` (${entry.surface})`)),
      cell("Result", result),
      cell("Duration", `${entry.duration_ms} ms`),
      cell("Client", entry.client ? `${entry.client.name} ${entry.client.version ?? ""}`.trim() : "–"),
      cell("Host", entry.host ?? "–"),
      // The log exists so that the person can hand an entry to the agent: the JSON as it came.
      h("td", { role: "cell" }, copyButton(() => JSON.stringify(entry), "Copy", null, `Copy the entry ${entry.action} of ${formatDate(entry.at)}`)));
  }

  loadGrants();
  loadInbox();
  loadActivity(true);
  return store.on((name, data) => {
    if (name === "inbox.updated" && data.key_id === id) loadInbox();
    else if ((name === "key.updated" || name === "key.created") && data.key.id === id) { renderInfo(); renderScopes(); relabelKeys(main, store); }
    else if (name === "key.refreshed") { renderInfo(); renderScopes(); relabelKeys(main, store); }
    else if (name === "refreshed") { renderInfo(); renderScopes(); relabelKeys(main, store); loadInbox(); }
    else if (name === "key.deleted" && data.key_id === id) {
      replace(main, h("h1", null, "Key deleted"), h("p", null, h("a", { href: "#/keys" }, "Back to the keys")));
    }
  });
}
