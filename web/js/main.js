// The console's start: sign in (login link, session cookie, token or passkey), then the
// sections behind a hash router, kept current by the event stream.

import { announce, showError } from "./announce.js";
import { h, replace } from "./dom.js";
import { LiveConnection } from "./live.js";
import { currentSession, signInWithLink, signOut, takeLoginToken } from "./session.js";
import { store } from "./store.js";
import { forgetViewed } from "./viewed.js";
import * as agents from "./views/agents.js";
import * as authorize from "./views/authorize.js";
import * as key from "./views/key.js";
import * as keys from "./views/keys.js";
import { offerPasskey } from "./views/passkey-offer.js";
import * as questions from "./views/questions.js";
import * as settings from "./views/settings.js";
import { mountSignIn } from "./views/signin.js";
import * as task from "./views/task.js";
import * as tasks from "./views/tasks.js";

const ROUTES = {
  agents: { view: agents, title: "Agents" },
  tasks: { view: tasks, title: "Tasks" },
  task: { view: task, title: "Task" },
  questions: { view: questions, title: "Questions" },
  keys: { view: keys, title: "Keys" },
  key: { view: key, title: "Key" },
  settings: { view: settings, title: "Settings" },
  authorize: { view: authorize, title: "Connect an application" },
};

const main = document.getElementById("main");
const nav = document.getElementById("nav");
const connection = document.getElementById("connection");
const pendingCount = document.getElementById("pending-count");
let unmount = null;
let live = null;
let signedIn = false;

const app = {
  store,
  navigate(hash) { location.hash = hash; },
  signOut: async () => {
    try { await signOut(); } catch (error) { showError(error); }
    showSignedOut("You are signed out.");
  },
  accountDeleted: () => showSignedOut("The account was deleted."),
};

/** "#/task/tsk_1?x=y" -> {name: "task", params: {id: "tsk_1", x: "y"}} */
function parseRoute() {
  const hash = location.hash.replace(/^#\/?/, "");
  const [path, search = ""] = hash.split("?");
  const [name, id] = path.split("/");
  const params = new URLSearchParams(search);
  if (id) params.set("id", decodeURIComponent(id));
  return { name: ROUTES[name] ? name : "agents", params };
}

function render() {
  if (!signedIn) return;
  if (unmount) unmount();
  unmount = null;
  const { name, params } = parseRoute();
  const route = ROUTES[name];
  for (const link of nav.querySelectorAll("a[data-route]")) {
    const current = link.dataset.route === name || (name === "task" && link.dataset.route === "tasks") || (name === "key" && link.dataset.route === "keys");
    if (current) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  unmount = route.view.mount(main, params, app) || null;
  document.title = `${route.title} · Relaydeck`;
  const heading = main.querySelector("h1");
  if (heading && moveFocus) {
    heading.setAttribute("tabindex", "-1");
    heading.focus({ preventScroll: false });
  }
  moveFocus = true;
}

let moveFocus = false;

function updateBadge() {
  const count = store.pendingQuestions().length;
  pendingCount.hidden = count === 0;
  pendingCount.textContent = String(count);
  pendingCount.setAttribute("aria-label", `${count} waiting`);
}

store.on((name, data) => {
  updateBadge();
  if (name === "question.created" && data.question.status === "pending") {
    announce(`${store.keyLabel(data.question.key_id)} asks: ${data.question.prompt}`);
  } else if (name === "task.created" && data.task.source === "agent") {
    announce(`New task from ${store.keyLabel(data.task.key_id)}: ${data.task.title}`);
  }
});

const CONNECTION_TEXT = {
  reconnecting: "Reconnecting…",
  stalled: "Live updates are not coming through. Reload the page for what changed since.",
  error: "Could not load everything. Retrying…",
};

/** `synced`: the lists were read again after the stream's `ready`, so the page is whole and
 * live (`data-synced`, which the browser tests wait for before they change anything). */
function setConnection(state, synced = false) {
  const text = CONNECTION_TEXT[state] ?? "";
  connection.hidden = !text;
  if (connection.textContent !== text) connection.textContent = text;
  document.body.dataset.live = state;
  document.body.dataset.synced = String(synced);
}

function startApp(session) {
  // A connector's consent request that waited for the sign-in (see authorize.js).
  const kept = authorize.takeRequest();
  if (kept && !location.hash.startsWith("#/authorize?")) history.replaceState(null, "", kept);
  signedIn = true;
  nav.hidden = false;
  store.accountId = session.account_id;
  live = new LiveConnection(store, {
    onStatus: setConnection,
    onSignedOut: () => showSignedOut("Your session ended. Sign in again."),
    onAccountDeleted: () => showSignedOut("The account was deleted."),
  });
  live.start();
  render();
}

/** The sign-in page; `kind` "error" shows the notice as an error (a login link refused). */
function showSignedOut(notice, kind = "info") {
  signedIn = false;
  if (live) live.stop();
  live = null;
  if (unmount) unmount();
  unmount = null;
  store.reset();
  for (const dialog of document.querySelectorAll("dialog")) dialog.close();
  nav.hidden = true;
  connection.hidden = true;
  document.body.dataset.live = "off";
  if (notice && notice.includes("deleted")) forgetViewed();
  document.title = "Sign in · Relaydeck";
  // The next sign-in starts at the agents, not where this session ended; but a connector's
  // consent request is kept for after it.
  if (location.hash.startsWith("#/authorize?")) authorize.keepRequest(location.hash);
  history.replaceState(null, "", location.pathname);
  mountSignIn(main, { notice, noticeKind: kind, onSignedIn });
}

function onSignedIn(result, how) {
  announce("Signed in.");
  if (location.hash === "" || location.hash === "#") history.replaceState(null, "", "#/agents");
  startApp(result);
  if (how !== "passkey") {
    currentSession().then((session) => {
      if (session && session.passkeys === 0) offerPasskey({ first: true });
    }, () => {});
  }
}

// The skip link moves the focus without touching the hash (the router owns the hash).
document.querySelector(".skip-link").addEventListener("click", (event) => {
  event.preventDefault();
  main.focus();
});

window.addEventListener("hashchange", () => {
  if (location.hash.startsWith("#login=")) { boot(); return; }
  render();
});
window.addEventListener("relaydeck:signed-out", () => {
  if (signedIn) showSignedOut("Your session ended. Sign in again.");
});

async function boot() {
  const loginToken = takeLoginToken();
  try {
    if (loginToken) {
      try {
        const result = await signInWithLink(loginToken);
        onSignedIn(result, "link");
        return;
      } catch (error) {
        const session = await currentSession();
        if (session) { startApp(session); showError(new Error("That login link was already used or has expired.")); return; }
        showSignedOut(error.status === 401 ? "That login link was already used or has expired. Ask for a new one." : error.message, "error");
        return;
      }
    }
    const session = await currentSession();
    if (session) startApp(session);
    else showSignedOut();
  } catch (error) {
    replace(main, h("h1", null, "The server cannot be reached"), h("p", null, error.message),
      h("button", { type: "button", onclick: boot }, "Try again"));
  }
}

if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("sw.js", { scope: "./" }).catch(() => {});
}

boot();
