// Settings → "Notifications on this device": Web Push for this browser. Permission is asked
// only on a click. The subscription is stored on the server under an ID this browser makes
// (kept in localStorage), so the list can mark "this browser" and a new subscription of the
// same browser replaces its old one (PUT is idempotent).

import { api, enc } from "../api.js";
import { announce, showError } from "../announce.js";
import { toBuffer } from "../base64url.js";
import { h, replace } from "../dom.js";
import { timeElement } from "../time.js";
import { browserName } from "./settings.js";

const ID_KEY = "relaydeck.webPushId";

/** This browser's subscription ID, made once: `wps_` and 22 base64url characters. */
function ownId() {
  let id = localStorage.getItem(ID_KEY);
  if (!id || !/^wps_[A-Za-z0-9_-]{1,64}$/.test(id)) {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    id = "wps_" + btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    localStorage.setItem(ID_KEY, id);
  }
  return id;
}

/** Safari on an iPhone or iPad (iPadOS says "Macintosh" but has touch) outside a Home Screen app. */
export function needsHomeScreen() {
  const ua = navigator.userAgent;
  const apple = /iPhone|iPad|iPod/.test(ua) || (/Macintosh/.test(ua) && navigator.maxTouchPoints > 1);
  return apple && navigator.standalone !== true && !("PushManager" in window);
}

function supported() {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
}

export function mountWebPush(container) {
  const state = h("div", { class: "stack" });
  const list = h("ul", { class: "list", "aria-label": "Browsers with notifications" });
  replace(container, state, list);

  async function render() {
    if (needsHomeScreen()) { replace(state, homeScreenSteps()); replace(list); return; }
    if (!supported()) {
      replace(state, h("p", null, "This browser cannot show notifications from the console."));
      replace(list);
      return;
    }
    const registration = await navigator.serviceWorker.ready;
    const subscription = await registration.pushManager.getSubscription();
    if (Notification.permission === "denied") {
      replace(state,
        h("p", null, "Notifications are blocked for this site."),
        h("p", { class: "small muted" }, "To allow them, open the site settings of this page (the icon left of the address, or the browser's settings → Privacy → Notifications), set Notifications to Allow, and reload the page."));
    } else if (subscription) {
      replace(state,
        h("p", null, "This browser gets notifications for new tasks, messages and questions."),
        h("div", { class: "row" },
          h("button", { type: "button", class: "primary", onclick: sendTest }, "Send a test notification"),
          h("button", { type: "button", class: "danger", onclick: () => remove(ownId()) }, "Turn off on this browser")));
    } else {
      replace(state,
        h("p", null, "Get a notification on this device when an agent asks a question, finishes a task or sends a message. Answer a yes/no or choice question from the notification."),
        h("div", { class: "row" }, h("button", { type: "button", class: "primary", onclick: subscribe }, "Turn on notifications")));
    }
    await loadList();
  }

  async function loadList() {
    try {
      const data = await api("GET", "/v1/web-push/subscriptions");
      const mine = localStorage.getItem(ID_KEY);
      replace(list, data.subscriptions.length ? data.subscriptions.map((item) => h("li", { class: "card row spread" },
        h("div", null,
          h("div", { class: "item-title" }, item.label || "Browser", item.id === mine ? h("span", { class: "chip new" }, "This browser") : null),
          h("div", { class: "meta" }, h("span", null, "Added ", timeElement(item.created_at)))),
        h("button", { type: "button", class: "danger", onclick: () => remove(item.id) }, "Remove",
          h("span", { class: "visually-hidden" }, ` ${item.label || item.id}`))))
        : h("li", { class: "muted" }, "No browser gets notifications yet."));
    } catch (error) { showError(error); }
  }

  async function subscribe() {
    try {
      const permission = await Notification.requestPermission();
      if (permission !== "granted") { render(); return; }
      const { public_key: key } = await api("GET", "/v1/web-push/key");
      const registration = await navigator.serviceWorker.ready;
      let subscription = await registration.pushManager.getSubscription();
      if (!subscription) {
        subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: toBuffer(key) });
      }
      await api("PUT", `/v1/web-push/subscriptions/${enc(ownId())}`,
        { ...subscription.toJSON(), label: browserName(navigator.userAgent).slice(0, 64) });
      announce("Notifications on for this browser.");
    } catch (error) {
      showError(error.status !== undefined ? error : new Error(`The browser could not subscribe: ${error.message}`));
    }
    render();
  }

  async function remove(id) {
    try {
      await api("DELETE", `/v1/web-push/subscriptions/${enc(id)}`);
    } catch (error) {
      if (error.status !== 404) { showError(error); return; }
    }
    if (id === localStorage.getItem(ID_KEY)) {
      const registration = await navigator.serviceWorker.ready;
      const subscription = await registration.pushManager.getSubscription();
      if (subscription) await subscription.unsubscribe().catch(() => {});
    }
    announce("Notifications removed.");
    render();
  }

  async function sendTest() {
    try {
      await api("POST", `/v1/web-push/subscriptions/${enc(ownId())}/test`, {});
      announce("Test notification sent.");
    } catch (error) {
      if (error.status === 429) showError(new Error("Too many test notifications. Wait a minute."));
      // A 404 is the server's own words: this subscription is unknown, or (an older server)
      // there is no such route.
      else showError(error);
    }
  }

  render().catch(showError);
}

function homeScreenSteps() {
  return h("div", { class: "stack" },
    h("p", null, "On an iPhone or iPad, notifications work only when the console is opened from the Home Screen (iOS and iPadOS 16.4 or later)."),
    h("ol", { "aria-label": "Add Relaydeck to the Home Screen" },
      h("li", null, "In Safari, tap the Share button."),
      h("li", null, "Tap “Add to Home Screen”, then “Add”."),
      h("li", null, "Open Relaydeck from the Home Screen and sign in."),
      h("li", null, "Go to Settings → Notifications on this device and tap “Turn on notifications”.")));
}
