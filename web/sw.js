// The service worker: keeps the shell (HTML, CSS, scripts, icons) so that the console opens
// without a network, shows the server's Web Push notifications, and answers a question from a
// notification's buttons. It never keeps API answers (/v1, /web): those always go to the
// server. Network first, so a new version of the console shows at once when online.

const CACHE = "relaydeck-shell-v3";
const SHELL = [
  "./",
  "css/app.css", "icons/apple-touch-icon-120.png", "icons/apple-touch-icon-152.png",
  "icons/apple-touch-icon-167.png", "icons/apple-touch-icon-180.png", "icons/icon-128.png",
  "icons/icon-144.png", "icons/icon-152.png", "icons/icon-167.png", "icons/icon-180.png",
  "icons/icon-192.png", "icons/icon-256.png", "icons/icon-384.png", "icons/icon-48.png",
  "icons/icon-512.png", "icons/icon-72.png", "icons/icon-96.png", "icons/icon-maskable-192.png",
  "icons/icon-maskable-512.png", "icons/icon.svg", "index.html", "js/announce.js", "js/api.js",
  "js/base64url.js", "js/clipboard.js", "js/components.js", "js/dialog.js", "js/dom.js",
  "js/live.js", "js/main.js", "js/markdown.js", "js/mcp-config.js", "js/scopes.js", "js/session.js", "js/store.js",
  "js/time.js", "js/viewed.js", "js/views/agents.js", "js/views/authorize.js", "js/views/key.js", "js/views/keys.js",
  "js/views/message-dialog.js", "js/views/passkey-offer.js", "js/views/questions.js",
  "js/views/settings.js", "js/views/signin.js", "js/views/task-dialog.js", "js/views/task.js",
  "js/views/tasks.js", "js/views/web-push.js", "js/webauthn.js", "manifest.webmanifest", "offline.html",
];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((name) => name !== CACHE).map((name) => caches.delete(name))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  const scope = new URL(self.registration.scope);
  if (request.method !== "GET" || url.origin !== scope.origin || !url.pathname.startsWith(scope.pathname)) return;
  event.respondWith(fetch(request).then((response) => {
    if (response.ok && response.type === "basic") {
      const copy = response.clone();
      caches.open(CACHE).then((cache) => cache.put(request, copy));
    }
    return response;
  }).catch(async () => {
    const cached = await caches.match(request, { ignoreSearch: true });
    if (cached) return cached;
    if (request.mode !== "navigate") return Response.error();
    // A navigation with neither network nor shell: the console itself if it is kept, else
    // the offline page (kept at install with the rest; it needs nothing but app.css).
    return (await caches.match("index.html")) || (await caches.match("offline.html")) || Response.error();
  }));
});

// ---- Web Push ----
// The payload (JSON): event, title, body, tag (a task's or question's ID, null for messages),
// url (a console route), key_id, task_id, question_id, kind, options, expires_at.

const QUESTION_UPDATED = "question.updated";

self.addEventListener("push", (event) => {
  let payload;
  try { payload = event.data ? event.data.json() : null; } catch { payload = null; }
  event.waitUntil(showPush(payload || { event: "unknown", title: "Relaydeck", body: "Something changed.", url: "./" }));
});

/** Shows one push as a notification; every push shows one (see below). */
async function showPush(payload) {
  const options = {
    body: payload.body || "",
    data: payload,
    icon: "icons/icon-192.png",
    badge: "icons/icon-96.png",
    timestamp: Date.now(),
  };
  if (payload.tag) options.tag = payload.tag;
  if (payload.event === QUESTION_UPDATED) {
    // The question was answered, expired or was cancelled: its notification must go. Only
    // closing it is not enough: the subscription promises userVisibleOnly, so a push that shows
    // nothing makes Chrome show its own "updated in the background" notice and makes Safari
    // revoke the subscription after a few. So the question's notification is replaced (same
    // tag) by a quiet one saying what happened: silent, no buttons (nothing left to answer),
    // no requireInteraction, and no renotify, so it neither sounds nor pops up again. The
    // person sees the outcome where the question was, and swipes it away. Any other
    // notification of the question (one without the tag) is closed first.
    await closeTagged(payload.tag);
    options.silent = true;
    options.actions = [];
    options.data = { ...payload, kind: null, options: [] };
    return self.registration.showNotification(payload.title || "Relaydeck", options);
  }
  if (payload.event === "question.created") {
    options.requireInteraction = true;
    options.actions = answerActions(payload);
  }
  return self.registration.showNotification(payload.title || "Relaydeck", options);
}

/** One button per option of a confirm or choice question, as many as the browser shows. */
function answerActions(payload) {
  if (payload.kind !== "confirm" && payload.kind !== "choice") return [];
  const most = (self.Notification && Notification.maxActions) || 2;
  return (payload.options || []).slice(0, most).map((option, index) => ({ action: `answer:${index}`, title: option }));
}

async function closeTagged(tag) {
  if (!tag) return;
  for (const shown of await self.registration.getNotifications({ tag })) shown.close();
}

self.addEventListener("notificationclick", (event) => {
  event.waitUntil(handleNotificationClick(event.notification, event.action));
});

/**
 * What a click does: a button answers the question from here, without opening the console;
 * a tap elsewhere opens the console at the payload's route. A top-level function so that the
 * browser tests can call it in this scope with a shown notification (a notification cannot
 * be clicked from outside the browser).
 */
async function handleNotificationClick(notification, action) {
  const data = notification.data || {};
  notification.close();
  const match = /^answer:(\d+)$/.exec(action || "");
  if (!match || !data.question_id) return openConsole(data.url);
  const answer = (data.options || [])[Number(match[1])];
  if (answer === undefined) return openConsole(data.url);
  return answerFromNotification(data, answer);
}

/**
 * POST /v1/questions/{id}/answer with the session cookie (rest-api.md#answer-a-question). A
 * changing request with the cookie must carry the server's own Origin (WebCookie.session,
 * OwnOrigin.require); the browser adds it to this same-origin POST itself.
 */
async function answerFromNotification(data, answer) {
  let response = null;
  try {
    response = await fetch(`/v1/questions/${encodeURIComponent(data.question_id)}/answer`, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ answer }),
    });
  } catch {
    response = null;
  }
  const tag = data.tag || data.question_id;
  const quiet = (title, body) => self.registration.showNotification(title, {
    body, tag, silent: true, icon: "icons/icon-192.png", badge: "icons/icon-96.png", timestamp: Date.now(),
    data: { ...data, kind: null, options: [] },
  });
  if (response && response.ok) return quiet(`Answered: ${answer}`, data.body || "");
  if (response && response.status === 409) return quiet("No longer waiting", "The question was answered, expired or was cancelled.");
  if (response && response.status === 401) {
    await quiet("Signed out", "Sign in to the console to answer.");
  } else {
    await quiet("The answer was not sent", response ? `The server answered ${response.status}.` : "The server cannot be reached.");
  }
  return openConsole(data.url);
}

/** Focuses a window of the console (moved to `url`), or opens one. */
async function openConsole(url) {
  const scope = self.registration.scope;
  const target = new URL(url || "./", scope);
  if (target.origin !== new URL(scope).origin) target.href = scope;
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const open = windows.find((client) => client.url.startsWith(scope));
  if (open) {
    // Moved first, then focused: focus() needs the click's user activation and throws
    // without it (or once it has run out), and the window should be at the route either way.
    let client = open;
    if (open.url !== target.href) {
      try { client = (await open.navigate(target.href)) || open; } catch { client = open; }
    }
    try { return await client.focus(); } catch { return client; }
  }
  return self.clients.openWindow(target.href);
}
