// Signing in: with a passkey, or with the account token pasted once. A login link
// (`/app/#login=...`) signs in before this page shows.

import { h, replace, uid } from "../dom.js";
import { signInWithToken } from "../session.js";
import { passkeysSupported, signInWithPasskey } from "../webauthn.js";

export function mountSignIn(main, { onSignedIn, notice, noticeKind = "info" }) {
  const tokenId = uid("account-token");
  const errorId = uid("signin-error");
  const error = h("p", { class: "error-text", id: errorId, role: "alert", hidden: true });
  const showError = (text) => { error.textContent = text; error.hidden = false; };
  const passkeyButton = h("button", {
    type: "button", class: "primary",
    onclick: async () => {
      error.hidden = true;
      passkeyButton.disabled = true;
      try {
        const result = await signInWithPasskey();
        onSignedIn(result, "passkey");
      } catch (failure) {
        showError(failure.name === "NotAllowedError"
          ? "No passkey was used (cancelled, timed out, or none for this server on this device)."
          : failure.status === 401 ? "That passkey is not known to this server." : failure.message);
      } finally {
        passkeyButton.disabled = false;
      }
    },
  }, "Sign in with a passkey");
  const token = h("input", { id: tokenId, type: "password", autocomplete: "off", spellcheck: "false", "aria-describedby": errorId, placeholder: "mca_…" });
  const form = h("form", {
    onsubmit: async (event) => {
      event.preventDefault();
      error.hidden = true;
      if (!token.value.trim()) { showError("Paste the account token first."); token.focus(); return; }
      try {
        const result = await signInWithToken(token.value);
        token.value = "";
        onSignedIn(result, "token");
      } catch (failure) {
        showError(failure.status === 401 ? "That account token is not valid on this server." : failure.message);
        token.focus();
      }
    },
  },
  h("label", { for: tokenId }, "Account token"), token,
  h("div", { class: "row" }, h("button", { type: "submit" }, "Sign in with the token")));
  replace(main, h("div", { class: "signin card stack" },
    h("h1", null, "Sign in to Relaydeck"),
    notice ? noticeElement(notice, noticeKind) : null,
    passkeysSupported() ? passkeyButton : h("p", { class: "muted" }, "This browser cannot use passkeys."),
    error,
    h("h2", null, "Or with the account token"),
    form,
    h("p", { class: "small muted" }, "No passkey yet? Run ", h("code", null, "relaydeckd account login-link --account ACCOUNT_ID"),
      " on the server and open the link it prints: it signs you in once, within 15 minutes.")));
  main.querySelector("h1").setAttribute("tabindex", "-1");
  main.querySelector("h1").focus();
}

/** Why the sign-in page shows: an error (a login link refused) as an alert in the error style,
 * anything else as a status. The text goes in after the element is on the page, so that a
 * screen reader reads it. */
function noticeElement(text, kind) {
  const el = h("p", kind === "error" ? { class: "error-text", role: "alert" } : { role: "status" });
  setTimeout(() => { el.textContent = text; }, 50);
  return el;
}
