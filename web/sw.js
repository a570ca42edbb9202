// The service worker: keeps the shell (HTML, CSS, scripts, icons) so that the console opens
// without a network, and never touches API answers (/v1, /web): those always go to the
// server. Network first, so a new version of the console shows at once when online.

const CACHE = "relaydeck-shell-v1";
const SHELL = [
  "./", "index.html", "manifest.webmanifest", "css/app.css",
  "icons/icon.svg", "icons/icon-192.png", "icons/icon-512.png",
  "js/main.js", "js/announce.js", "js/api.js", "js/base64url.js", "js/clipboard.js", "js/components.js",
  "js/dialog.js", "js/dom.js", "js/live.js", "js/markdown.js", "js/mcp-config.js", "js/session.js",
  "js/store.js", "js/time.js", "js/viewed.js", "js/webauthn.js",
  "js/views/agents.js", "js/views/key.js", "js/views/keys.js", "js/views/message-dialog.js",
  "js/views/passkey-offer.js", "js/views/questions.js", "js/views/settings.js", "js/views/signin.js",
  "js/views/task-dialog.js", "js/views/task.js", "js/views/tasks.js",
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
  }).catch(() => caches.match(request, { ignoreSearch: true }).then((cached) => cached || caches.match("index.html"))));
});
