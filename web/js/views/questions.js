// Questions: the pending ones with their answer controls and count-down, then the closed ones.

import { emptyLine, isRefused, questionCard, questionVersion, waitingQuestions } from "../components.js";
import { h, replace, syncList } from "../dom.js";

export function mount(main, params, { store }) {
  const pending = h("ul", { class: "list", "aria-label": "Pending questions" });
  const closed = h("ul", { class: "list", "aria-label": "Answered, expired and cancelled questions" });
  replace(main,
    h("h1", null, "Questions"),
    h("section", { "aria-labelledby": "q-pending" }, h("h2", { id: "q-pending" }, "Waiting for you"), pending),
    h("section", { "aria-labelledby": "q-closed" }, h("h2", { id: "q-closed" }, "Earlier"), closed));
  const render = () => {
    const open = waitingQuestions(store);
    if (open.length === 0) replace(pending, emptyLine(store.loaded ? "No question waits for you." : "Loading…"));
    else syncList(pending, open, (q) => q.id, (q) => questionVersion(q, store), (q) => questionCard(q, store));
    // A refused answer's card stays among the waiting ones until it is dismissed.
    const done = store.closedQuestions().filter((q) => !isRefused(q));
    if (done.length === 0) replace(closed, emptyLine("None yet."));
    else syncList(closed, done, (q) => q.id, (q) => questionVersion(q, store), (q) => questionCard(q, store));
  };
  // "#/questions/qst_…" (a notification's link): that question, scrolled to and focused once
  // it is loaded, marked for assistive technology as the current one.
  let wanted = params.get("id");
  const reveal = () => {
    if (!wanted) return;
    const card = main.querySelector(`li[data-key="${CSS.escape(wanted)}"]`);
    if (!card) return;
    wanted = null;
    card.setAttribute("tabindex", "-1");
    card.setAttribute("aria-current", "true");
    card.scrollIntoView({ block: "center" });
    card.focus({ preventScroll: true });
  };
  render();
  setTimeout(reveal);
  return store.on(() => { render(); reveal(); });
}
