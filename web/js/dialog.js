// Modal dialogs on the native <dialog>: showModal makes the rest of the page inert (so focus
// stays inside), Escape closes it, and focus goes back to what opened it.

import { h, uid } from "./dom.js";

/**
 * openDialog({title, body: [nodes], actions: [{label, kind, onClick}]}) -> {dialog, close}
 * An action's onClick may return false to keep the dialog open (for example on an error).
 */
export function openDialog({ title, body = [], actions = [], onClose, label }) {
  const opener = document.activeElement;
  const titleId = uid("dialog-title");
  const dialog = h("dialog", { "aria-labelledby": titleId, "aria-label": label });
  const close = () => {
    if (dialog.open) dialog.close();
  };
  const buttons = actions.map((action) =>
    h("button", {
      type: "button",
      class: action.kind || "",
      onclick: async (event) => {
        const button = event.currentTarget;
        button.disabled = true;
        try {
          const keep = action.onClick ? await action.onClick() : undefined;
          if (keep !== false) close();
        } finally {
          button.disabled = false;
        }
      },
    }, action.label));
  dialog.append(
    h("h2", { id: titleId }, title),
    ...body,
    h("div", { class: "dialog-actions" }, buttons),
  );
  dialog.addEventListener("close", () => {
    dialog.remove();
    if (onClose) onClose();
    if (opener && opener.isConnected && typeof opener.focus === "function") opener.focus();
  });
  // Enter in a one-line field runs the last (main) action, as a form would.
  dialog.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && event.target instanceof HTMLInputElement && buttons.length) {
      event.preventDefault();
      buttons[buttons.length - 1].click();
    }
  });
  document.body.append(dialog);
  dialog.showModal();
  const first = dialog.querySelector("[autofocus], input, textarea, select, button");
  if (first) first.focus();
  return { dialog, close };
}

/** Resolves true when the person confirms, false when they cancel or press Escape. */
export function confirmDialog({ title, message, confirmLabel = "Confirm", danger = false, extra = [] }) {
  return new Promise((resolve) => {
    let answered = false;
    openDialog({
      title,
      body: [h("p", null, message), ...extra],
      actions: [
        { label: "Cancel", onClick: () => { answered = true; resolve(false); } },
        { label: confirmLabel, kind: danger ? "danger solid" : "primary", onClick: () => { answered = true; resolve(true); } },
      ],
      onClose: () => { if (!answered) resolve(false); },
    });
  });
}
