// The two live regions of index.html: a polite one for what changed, an assertive one with
// short-lived toasts for errors.

export function announce(text) {
  const region = document.getElementById("announcer");
  // Clearing first makes a screen reader read the same sentence again.
  region.textContent = "";
  setTimeout(() => { region.textContent = text; }, 50);
}

export function toast(text, kind = "info") {
  const box = document.getElementById("toasts");
  const el = document.createElement("div");
  el.className = `toast ${kind}`;
  el.textContent = text;
  box.append(el);
  setTimeout(() => el.remove(), kind === "error" ? 8000 : 4000);
}

export function showError(error) {
  toast(error?.message || String(error), "error");
}
