// The consent page of OAuth (issue 24): a connector asks to act as one of your keys. It shows
// who asks (the client's name, and the host it will send you back to, in full), what it asks
// for; you choose the key it acts as (or make a new one) and what it may do, then allow or
// deny. The request itself stays in the page's address (#/authorize?...): the server checks it
// again at each step and keeps nothing of it meanwhile.

import { api, enc } from "../api.js";
import { showError } from "../announce.js";
import { h, replace, uid } from "../dom.js";
import { SCOPES, scopeFieldset } from "../scopes.js";

const NEW_KEY = "new";

export function mount(main, params, { store }) {
  const request = params.toString();
  const heading = h("h1", null, "Connect an application");
  replace(main, heading, h("p", { class: "muted" }, "Loading the request…"));
  let gone = false;

  // The keys as the server has them now: the store may still be loading them.
  Promise.all([api("GET", `/web/oauth/authorization?${request}`), api("GET", "/v1/keys")]).then(([asked, listed]) => {
    if (!gone) show(asked, listed.keys);
  }, (error) => {
    if (gone) return;
    replace(main, h("h1", null, "This sign-in cannot go on"),
      h("p", { role: "alert" }, error.message),
      h("p", null, "Nothing was shared. Go back to the application and connect again."));
  });

  function show(asked, keys) {
    const client = asked.client;
    heading.textContent = `Connect ${client.name}?`;
    const offered = SCOPES.filter((scope) => asked.scopes.includes(scope.name)).map((scope) => scope.name);
    const scopes = scopeFieldset(offered, { legend: `What ${client.name} may do` });
    // Only what the client asked for can be given; the others are not offered.
    for (const row of scopes.element.querySelectorAll(".scope")) {
      const box = row.querySelector("input");
      if (!offered.includes(box.value)) row.remove();
    }
    const keyId = uid("consent-key");
    const labelId = uid("consent-label");
    const select = h("select", { id: keyId },
      keys.map((key) => h("option", { value: key.id }, key.label)),
      h("option", { value: NEW_KEY }, "A new key…"));
    if (keys.length === 0) select.value = NEW_KEY;
    const label = h("input", { id: labelId, type: "text", maxlength: "40", value: client.name.slice(0, 40), autocomplete: "off" });
    const labelField = h("div", { class: "field" }, h("label", { for: labelId }, "Name of the new key"), label);
    const syncLabel = () => { labelField.hidden = select.value !== NEW_KEY; };
    select.addEventListener("change", syncLabel);
    syncLabel();
    const error = h("p", { class: "error-text", role: "alert", hidden: true });
    const allow = h("button", { type: "button", class: "primary" }, "Allow");
    const deny = h("button", { type: "button" }, "Deny");

    allow.addEventListener("click", async () => {
      error.hidden = true;
      const chosen = scopes.chosen();
      if (chosen.length === 0) {
        error.textContent = "Choose at least one thing the application may do.";
        error.hidden = false;
        scopes.focus();
        return;
      }
      allow.disabled = true;
      deny.disabled = true;
      try {
        let key = select.value;
        if (key === NEW_KEY) {
          const made = await api("POST", "/v1/keys", { label: label.value, scopes: chosen });
          store.apply("key.created", { key: made.key });
          key = made.key.id;
        }
        const answer = await api("POST", "/web/oauth/authorization", { request, decision: "allow", key_id: key, scopes: chosen });
        leave(answer.redirect);
      } catch (failure) {
        const field = Object.entries(failure.fields || {})[0];
        error.textContent = field ? `${field[0]}: ${field[1]}` : failure.message;
        error.hidden = false;
        allow.disabled = false;
        deny.disabled = false;
      }
    });
    deny.addEventListener("click", async () => {
      allow.disabled = true;
      deny.disabled = true;
      try {
        const answer = await api("POST", "/web/oauth/authorization", { request, decision: "deny" });
        leave(answer.redirect);
      } catch (failure) {
        showError(failure);
        allow.disabled = false;
        deny.disabled = false;
      }
    });

    replace(main, heading,
      h("section", { class: "card", "aria-labelledby": "consent-who" },
        h("h2", { id: "consent-who" }, "Who asks"),
        h("p", null, h("strong", null, client.name), " asks to act as one of your keys."),
        h("p", null, "After you answer, you go back to ", h("strong", { class: "consent-host" }, client.redirect_host ?? client.redirect_uri), "."),
        h("p", { class: "small muted" }, "The full address: ", h("code", { class: "consent-redirect" }, client.redirect_uri)),
        h("p", { class: "small muted" }, "Only allow it if you started this from that application.")),
      h("section", { class: "card", "aria-labelledby": "consent-key-heading" },
        h("h2", { id: "consent-key-heading" }, "The key it acts as"),
        h("p", { class: "small muted" }, "It sees and changes that key's tasks and inbox, with no more than the key itself may do."),
        h("div", { class: "field" }, h("label", { for: keyId }, "Key"), select), labelField),
      scopes.element,
      error,
      h("div", { class: "row" }, allow, deny));
  }

  /** To the client's address: the code, or the refusal. */
  function leave(url) {
    replace(main, h("h1", null, "Going back to the application…"));
    location.assign(url);
  }

  return () => { gone = true; };
}

/** The address's consent request, kept while the person signs in (a login link may open in
 * another tab, and signing out clears the address). Ten minutes at most. */
const KEPT = "relaydeck.authorize";

export function keepRequest(hash) {
  try { localStorage.setItem(KEPT, JSON.stringify({ hash, at: Date.now() })); } catch { /* private mode */ }
}

export function takeRequest() {
  let kept = null;
  try {
    kept = JSON.parse(localStorage.getItem(KEPT) || "null");
    localStorage.removeItem(KEPT);
  } catch { kept = null; }
  if (!kept || typeof kept.hash !== "string" || !kept.hash.startsWith("#/authorize?")) return null;
  return Date.now() - kept.at < 10 * 60 * 1000 ? kept.hash : null;
}
