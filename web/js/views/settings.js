// The account: its settings, the devices of the Apple app, passkeys, web sessions, signing
// out, and deleting the account.

import { api, enc } from "../api.js";
import { announce, showError } from "../announce.js";
import { confirmDialog, openDialog } from "../dialog.js";
import { h, replace, uid } from "../dom.js";
import { formatDate, timeElement } from "../time.js";
import { offerPasskey } from "./passkey-offer.js";
import { mountWebPush } from "./web-push.js";

export function mount(main, _params, app) {
  const account = h("div", { class: "stack" }, h("p", { class: "loading" }, "Loading…"));
  const devices = h("ul", { class: "list", "aria-label": "Devices" });
  const passkeys = h("ul", { class: "list", "aria-label": "Passkeys" });
  const sessions = h("ul", { class: "list", "aria-label": "Signed-in browsers" });
  const notifications = h("div", { class: "stack" });
  replace(main,
    h("h1", null, "Settings"),
    section("settings-account", "Account", account),
    section("settings-notifications", "Notifications on this device", notifications),
    section("settings-passkeys", "Passkeys",
      h("p", { class: "small muted" }, "A passkey signs you in on this server without the account token."),
      passkeys,
      h("div", { class: "row" }, h("button", { type: "button", class: "primary", onclick: () => offerPasskey({ onDone: loadPasskeys }) }, "Add a passkey"))),
    section("settings-sessions", "Signed-in browsers", sessions,
      h("div", { class: "row" }, h("button", { type: "button", onclick: () => app.signOut() }, "Sign out of this browser"))),
    section("settings-devices", "Devices", h("p", { class: "small muted" }, "The iPhones, iPads and Apple Watches that get pushes for this account."), devices),
    section("settings-danger", "Delete the account",
      h("p", null, "Deletes the account, its devices, keys, tasks and questions, at once and for good."),
      h("button", { type: "button", class: "danger", onclick: deleteAccount }, "Delete the account…")));

  async function loadAccount() {
    try {
      const data = await api("GET", "/v1/account");
      const toggleId = uid("live-activities");
      const toggle = h("input", { type: "checkbox", id: toggleId, checked: !!data.settings?.live_activities });
      toggle.addEventListener("change", async () => {
        toggle.disabled = true;
        try {
          const updated = await api("PATCH", "/v1/account", { settings: { live_activities: toggle.checked } });
          toggle.checked = !!updated.settings?.live_activities;
          announce(`Live Activities ${toggle.checked ? "on" : "off"}.`);
        } catch (error) {
          toggle.checked = !toggle.checked;
          showError(error);
        } finally {
          toggle.disabled = false;
        }
      });
      replace(account,
        h("dl", { class: "meta" }, h("dt", null, "Account"), h("dd", null, h("code", null, data.id)),
          h("dt", null, "Created"), h("dd", null, formatDate(data.created_at))),
        h("div", { class: "field-inline" }, toggle, h("label", { for: toggleId }, "Live Activities on the iPhone for tasks in progress")));
    } catch (error) {
      showError(error);
    }
  }

  async function loadDevices() {
    try {
      const data = await api("GET", "/v1/devices");
      if (!data.devices.length) { replace(devices, h("li", { class: "muted" }, "No devices. The Apple app registers its device when it starts.")); return; }
      replace(devices, data.devices.map((device) => h("li", { class: "card row spread" },
        h("div", null,
          h("div", { class: "item-title" }, `${device.model} (${device.platform})`),
          h("div", { class: "meta" }, h("span", null, `OS ${device.os_version}`), h("span", null, `App ${device.app_version}`),
            h("span", null, device.apns_token ? "Push on" : "No push token"), h("span", null, "Updated ", timeElement(device.updated_at)))),
        h("button", { type: "button", class: "danger", onclick: () => removeDevice(device) }, "Remove", h("span", { class: "visually-hidden" }, ` ${device.model}`)))));
    } catch (error) {
      if (error.status === 404 || error.status === 405) {
        replace(devices, h("li", { class: "muted" }, "This server cannot list devices."));
      } else showError(error);
    }
  }

  async function removeDevice(device) {
    const ok = await confirmDialog({ title: "Remove this device?", message: `${device.model} gets no more pushes until the app registers it again.`, confirmLabel: "Remove device", danger: true });
    if (!ok) return;
    try {
      await api("DELETE", `/v1/devices/${enc(device.id)}`);
      announce("Device removed.");
      loadDevices();
    } catch (error) { showError(error); }
  }

  async function loadPasskeys() {
    try {
      const data = await api("GET", "/web/passkeys");
      replace(passkeys, data.passkeys.length ? data.passkeys.map((key) => h("li", { class: "card row spread" },
        h("div", null, h("div", { class: "item-title" }, key.name),
          h("div", { class: "meta" }, h("span", null, "Added ", timeElement(key.created_at)), h("span", null, "Last used ", timeElement(key.last_used_at)))),
        h("button", { type: "button", class: "danger", onclick: () => removePasskey(key) }, "Remove", h("span", { class: "visually-hidden" }, ` passkey ${key.name}`))))
        : h("li", { class: "muted" }, "No passkeys yet."));
    } catch (error) { showError(error); }
  }

  async function removePasskey(key) {
    const ok = await confirmDialog({ title: "Remove this passkey?", message: `“${key.name}” can no longer sign in. Remove it from the device too.`, confirmLabel: "Remove passkey", danger: true });
    if (!ok) return;
    try {
      await api("DELETE", `/web/passkeys/${enc(key.id)}`);
      announce("Passkey removed.");
      loadPasskeys();
    } catch (error) { showError(error); }
  }

  async function loadSessions() {
    try {
      const data = await api("GET", "/web/sessions");
      replace(sessions, data.sessions.map((session) => {
        const name = browserName(session.user_agent);
        return h("li", { class: "card row spread" },
          h("div", null,
            h("div", { class: "item-title" }, name, session.current ? h("span", { class: "chip new" }, "This browser") : null),
            session.user_agent && session.user_agent !== name ? h("div", { class: "small muted note" }, session.user_agent) : null,
            h("div", { class: "meta" }, h("span", null, "Signed in ", timeElement(session.created_at)), h("span", null, "Last used ", timeElement(session.last_used_at)))),
          h("button", { type: "button", class: "danger", onclick: () => removeSession(session) }, session.current ? "Sign out" : "Sign out there",
            h("span", { class: "visually-hidden" }, ` ${name}`)));
      }));
    } catch (error) { showError(error); }
  }

  async function removeSession(session) {
    if (session.current) { app.signOut(); return; }
    try {
      await api("DELETE", `/web/sessions/${enc(session.id)}`);
      announce("That browser is signed out.");
      loadSessions();
    } catch (error) { showError(error); }
  }

  function deleteAccount() {
    const fieldId = uid("confirm-delete");
    const input = h("input", { id: fieldId, type: "text", autocomplete: "off" });
    const error = h("p", { class: "error-text", role: "alert", hidden: true });
    openDialog({
      title: "Delete the account?",
      body: [
        h("p", null, "Every agent loses access at once. The devices, keys, tasks, questions, passkeys and sessions are deleted. This cannot be undone."),
        h("label", { for: fieldId }, "Type DELETE to confirm"), input, error,
      ],
      actions: [
        { label: "Cancel" },
        {
          label: "Delete the account",
          kind: "danger solid",
          onClick: async () => {
            if (input.value.trim() !== "DELETE") {
              error.textContent = "Type DELETE in capital letters to confirm.";
              error.hidden = false;
              input.focus();
              return false;
            }
            try {
              await api("DELETE", "/v1/account");
              app.accountDeleted();
              return true;
            } catch (failure) {
              error.textContent = failure.message;
              error.hidden = false;
              return false;
            }
          },
        },
      ],
    });
  }

  loadAccount();
  loadPasskeys();
  loadSessions();
  loadDevices();
  mountWebPush(notifications);
  return () => {};
}

/** "Chrome on Linux" from a User-Agent line; the line itself when it names no known browser. */
export function browserName(userAgent) {
  if (!userAgent) return "Unknown browser";
  const browser = [["Edg/", "Edge"], ["Firefox/", "Firefox"], ["Chrome/", "Chrome"], ["Safari/", "Safari"]]
    .find(([token]) => userAgent.includes(token));
  const system = [["iPhone", "iPhone"], ["iPad", "iPad"], ["Android", "Android"], ["Mac OS X", "macOS"], ["Windows", "Windows"], ["Linux", "Linux"]]
    .find(([token]) => userAgent.includes(token));
  if (!browser) return userAgent;
  return system ? `${browser[1]} on ${system[1]}` : browser[1];
}

function section(id, title, ...children) {
  return h("section", { class: "card", "aria-labelledby": id }, h("h2", { id }, title), ...children);
}
