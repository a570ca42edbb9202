// Registering a passkey: offered after a sign-in without one, and from the settings.

import { announce } from "../announce.js";
import { openDialog } from "../dialog.js";
import { h, uid } from "../dom.js";
import { defaultPasskeyName, passkeysSupported, registerPasskey } from "../webauthn.js";

export function offerPasskey({ first = false, onDone } = {}) {
  if (!passkeysSupported()) {
    openDialog({ title: "Passkeys", body: [h("p", null, "This browser cannot use passkeys.")], actions: [{ label: "Close" }] });
    return;
  }
  const fieldId = uid("passkey-name");
  const input = h("input", { id: fieldId, type: "text", maxlength: "40", value: defaultPasskeyName(), autocomplete: "off" });
  const error = h("p", { class: "error-text", role: "alert", hidden: true });
  openDialog({
    title: first ? "Sign in faster next time" : "Add a passkey",
    body: [
      h("p", null, first
        ? "Register a passkey on this device: the next sign-in takes your fingerprint, face or device PIN instead of a link or the account token."
        : "The passkey is kept by this device or your password manager."),
      h("label", { for: fieldId }, "Name of the passkey"), input, error,
    ],
    actions: [
      { label: first ? "Not now" : "Cancel" },
      {
        label: "Register a passkey",
        kind: "primary",
        onClick: async () => {
          error.hidden = true;
          try {
            await registerPasskey(input.value.trim() || defaultPasskeyName());
            announce("Passkey registered.");
            if (onDone) onDone();
            return true;
          } catch (failure) {
            error.textContent = failure.name === "NotAllowedError"
              ? "The passkey was not created (cancelled or timed out)."
              : failure.name === "InvalidStateError" ? "This device already has a passkey for this account." : failure.message;
            error.hidden = false;
            return false;
          }
        },
      },
    ],
  });
}
