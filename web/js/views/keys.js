// API keys: create (with its scopes; the secret shown once, with copy buttons and MCP
// settings), rename, delete. A key's scopes are changed on its own page.

import { api, enc } from "../api.js";
import { announce, showError } from "../announce.js";
import { copyButton } from "../clipboard.js";
import { confirmDialog, openDialog } from "../dialog.js";
import { h, replace, syncList, uid } from "../dom.js";
import { mcpSettings } from "../mcp-config.js";
import { scopeFieldset, scopesSummary } from "../scopes.js";
import { timeElement } from "../time.js";

export function mount(main, _params, { store }) {
  const list = h("ul", { class: "list", "aria-label": "API keys" });
  replace(main,
    h("div", { class: "row spread" }, h("h1", null, "Keys"),
      h("button", { type: "button", class: "primary", onclick: () => createKeyDialog(store) }, "New key")),
    h("p", { class: "muted" }, "Each agent uses one API key. Its secret is shown one time, when you create it."),
    list);
  const render = () => {
    const keys = store.sortedKeys();
    if (keys.length === 0) replace(list, h("li", { class: "muted" }, store.loaded ? "No keys yet." : "Loading…"));
    else syncList(list, keys, (k) => k.id, (k) => `${k.label}|${k.last_used_at}|${k.last_host}|${k.last_client?.name}|${k.scopes}|${JSON.stringify(k.counts)}`, (k) => keyRow(store, k));
  };
  render();
  if (store.loaded) store.refreshKeys().catch(showError);
  return store.on((name) => { if (name.startsWith("key.") || name === "refreshed") render(); });
}

function keyRow(store, key) {
  const counts = key.counts || {};
  return h("li", { class: "card key" },
    h("div", { class: "row spread" },
      h("h2", { class: "item-title" }, h("a", { href: `#/key/${enc(key.id)}` }, key.label)),
      h("code", { class: "small", "aria-label": `Key starts with ${key.prefix} and ends with ${key.last4}` }, `${key.prefix}…${key.last4}`)),
    h("div", { class: "meta" },
      h("span", null, "Created ", timeElement(key.created_at)),
      h("span", null, "Last used ", timeElement(key.last_used_at)),
      key.last_client ? h("span", null, `${key.last_client.name} ${key.last_client.version ?? ""}`.trim()) : null,
      key.last_host ? h("span", null, `on ${key.last_host}`) : null,
      h("span", { class: "key-scopes" }, scopesSummary(key.scopes)),
      h("span", null, `${counts.todo ?? 0} to do, ${counts.in_progress ?? 0} in progress, ${counts.done ?? 0} done, ${counts.cancelled ?? 0} cancelled`)),
    h("div", { class: "row" },
      h("button", { type: "button", onclick: () => renameKeyDialog(store, key) }, "Rename", h("span", { class: "visually-hidden" }, ` ${key.label}`)),
      h("button", { type: "button", class: "danger", onclick: () => deleteKey(store, key) }, "Delete", h("span", { class: "visually-hidden" }, ` ${key.label}`))));
}

/** The label (and, with `scopes`, a scope fieldset) of a key; a server refusal of either is
 * shown under them. */
function labelDialog({ title, value = "", confirm, scopes = null, onSubmit }) {
  const fieldId = uid("key-label");
  const input = h("input", { id: fieldId, type: "text", maxlength: "40", value, autocomplete: "off" });
  const error = h("p", { class: "error-text", role: "alert", hidden: true });
  const fail = (text, target) => {
    error.textContent = text;
    error.hidden = false;
    target();
  };
  openDialog({
    title,
    body: [h("label", { for: fieldId }, "Label"), input, h("p", { class: "small muted" }, "For example “Claude Code” or “Cursor (work)”."),
      scopes ? scopes.element : null, error],
    actions: [
      { label: "Cancel" },
      {
        label: confirm,
        kind: "primary",
        onClick: async () => {
          error.hidden = true;
          const chosen = scopes ? scopes.chosen() : null;
          if (chosen && chosen.length === 0) {
            fail("Choose at least one thing the agent may do.", scopes.focus);
            return false;
          }
          try {
            await onSubmit(input.value, chosen);
            return true;
          } catch (failure) {
            const scopeProblem = Object.entries(failure.fields || {}).find(([name]) => name.startsWith("scopes"));
            if (!failure.fields?.label && scopeProblem) fail(`Scopes: ${scopeProblem[1]}`, scopes ? scopes.focus : () => input.focus());
            else fail(failure.fields?.label || failure.message, () => input.focus());
            return false;
          }
        },
      },
    ],
  });
}

export function createKeyDialog(store) {
  labelDialog({
    title: "New key",
    confirm: "Create key",
    scopes: scopeFieldset(),
    onSubmit: async (label, scopes) => {
      const result = await api("POST", "/v1/keys", { label, scopes });
      store.apply("key.created", { key: result.key });
      announce(`Key ${result.key.label} created.`);
      // After this dialog closes, so that focus returns to the page first.
      setTimeout(() => secretDialog(result.key, result.secret), 0);
    },
  });
}

function secretDialog(key, secret) {
  const secretEl = h("p", { class: "secret", id: "new-key-secret" }, secret);
  const settings = mcpSettings(secret);
  const panels = [];
  const tabs = [];
  const tablist = h("div", { class: "tabs", role: "tablist", "aria-label": "MCP settings for" });
  settings.forEach((item, index) => {
    const tabId = `mcp-tab-${item.id}`;
    const panelId = `mcp-panel-${item.id}`;
    const pre = h("pre", { class: "config" }, h("code", null, item.text));
    const tab = h("button", { type: "button", role: "tab", id: tabId, "aria-controls": panelId, "aria-selected": index === 0 ? "true" : "false", tabindex: index === 0 ? "0" : "-1" }, item.name);
    const panel = h("div", { role: "tabpanel", id: panelId, "aria-labelledby": tabId, hidden: index !== 0 },
      h("p", { class: "small" }, item.where), pre, copyButton(() => item.text, `Copy ${item.name} settings`, pre));
    tabs.push(tab);
    panels.push(panel);
    tablist.append(tab);
  });
  const select = (index) => {
    tabs.forEach((tab, i) => {
      tab.setAttribute("aria-selected", i === index ? "true" : "false");
      tab.tabIndex = i === index ? 0 : -1;
      panels[i].hidden = i !== index;
    });
    tabs[index].focus();
  };
  tabs.forEach((tab, index) => {
    tab.addEventListener("click", () => select(index));
    tab.addEventListener("keydown", (event) => {
      if (event.key === "ArrowRight") select((index + 1) % tabs.length);
      else if (event.key === "ArrowLeft") select((index + tabs.length - 1) % tabs.length);
      else if (event.key === "Home") select(0);
      else if (event.key === "End") select(tabs.length - 1);
      else return;
      event.preventDefault();
    });
  });
  openDialog({
    title: `The secret of ${key.label}`,
    body: [
      h("p", null, h("strong", null, "Copy it now: it is shown this one time."), " The server keeps only its hash."),
      secretEl,
      h("div", { class: "row" }, copyButton(() => secret, "Copy secret", secretEl)),
      h("h3", null, "Connect an agent"),
      tablist, ...panels,
    ],
    actions: [{ label: "Done", kind: "primary" }],
  });
}

function renameKeyDialog(store, key) {
  labelDialog({
    title: `Rename ${key.label}`,
    value: key.label,
    confirm: "Save",
    onSubmit: async (label) => {
      const updated = await api("PATCH", `/v1/keys/${enc(key.id)}`, { label });
      store.apply("key.updated", { key: updated });
      announce(`Key renamed to ${updated.label}.`);
    },
  });
}

async function deleteKey(store, key) {
  const ok = await confirmDialog({
    title: `Delete ${key.label}?`,
    message: "The agent that uses this key loses access at once. Its tasks, questions, inbox and activity log are deleted.",
    confirmLabel: "Delete key",
    danger: true,
  });
  if (!ok) return;
  try {
    await api("DELETE", `/v1/keys/${enc(key.id)}`);
    store.apply("key.deleted", { key_id: key.id });
    announce(`Key ${key.label} deleted.`);
  } catch (error) {
    showError(error);
  }
}
