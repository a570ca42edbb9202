// Pieces that several views show: a task row, a question card with its answer controls and
// count-down, and the small chips.

import { api, enc } from "./api.js";
import { announce, showError } from "./announce.js";
import { h, uid } from "./dom.js";
import { formatRemaining, nowSeconds, timeElement } from "./time.js";
import { unviewedState } from "./viewed.js";

export const STATUS_LABELS = { todo: "To do", in_progress: "In progress", done: "Done", cancelled: "Cancelled" };
export const PRIORITY_LABELS = { low: "Low", medium: "Medium", high: "High", urgent: "Urgent" };
export const QUESTION_LABELS = { pending: "Waiting for you", answered: "Answered", expired: "Expired", cancelled: "Cancelled" };

export function statusChip(status) {
  return h("span", { class: `chip status-${status}` }, STATUS_LABELS[status] ?? status);
}

export function priorityChip(priority) {
  return h("span", { class: `chip prio-${priority}` }, `${PRIORITY_LABELS[priority] ?? priority} priority`);
}

export function progressBar(task) {
  if (task.progress === null || task.progress === undefined) return null;
  return h("progress", { max: "100", value: String(task.progress), "aria-label": `Progress of ${task.title}`, "aria-valuetext": `${task.progress} percent` });
}

export function taskRow(task, store, { showKey = true } = {}) {
  const fresh = unviewedState(task);
  return h("li", { class: "card task" },
    h("div", { class: "row spread" },
      h("a", { class: "item-title", href: `#/task/${enc(task.id)}` }, task.title),
      fresh ? h("span", { class: "chip new" }, fresh === "new" ? "New" : "Updated") : null),
    h("div", { class: "meta" },
      statusChip(task.status), priorityChip(task.priority),
      showKey ? h("span", null, store.keyLabel(task.key_id)) : null,
      task.progress !== null && task.progress !== undefined ? h("span", null, `${task.progress}%`) : null,
      h("span", null, "Updated ", timeElement(task.updated_at)),
      task.seen_at ? h("span", null, "Agent has it") : (task.source === "app" ? h("span", null, "Not picked up yet") : null)),
    progressBar(task),
    task.status_note ? h("p", { class: "note" }, task.status_note) : null);
}

/** The label of a key as an element that `relabelKeys` keeps current: a page opened by reload
 * or link draws before the store has the keys, and a key can be renamed while it shows. */
export function keyLabelElement(store, keyId, tag = "span", attrs = {}) {
  return h(tag, { ...attrs, class: `key-label${attrs.class ? ` ${attrs.class}` : ""}`, dataset: { keyId } }, store.keyLabel(keyId));
}

export function relabelKeys(root, store) {
  for (const el of root.querySelectorAll(".key-label[data-key-id]")) {
    const label = store.keyLabel(el.dataset.keyId);
    if (el.textContent !== label) el.textContent = label;
  }
}

export function emptyLine(text) {
  return h("li", { class: "muted" }, text);
}

// One timer for every count-down on the page.
setInterval(tickCountdowns, 1000);

export function tickCountdowns() {
  for (const el of document.querySelectorAll("[data-expires]")) {
    const expires = Number(el.dataset.expires);
    const left = expires - nowSeconds();
    const card = el.closest(".question");
    if (left <= 0) {
      if (el.dataset.done) continue;
      el.dataset.done = "1";
      el.textContent = "Expired";
      el.classList.remove("soon");
      if (card) {
        card.classList.add("closed");
        for (const control of card.querySelectorAll("button, input, textarea")) control.disabled = true;
        const status = card.querySelector(".q-status");
        if (status) { status.textContent = QUESTION_LABELS.expired; status.className = "chip q-status q-expired"; }
        announce(`A question expired: ${card.querySelector(".prompt")?.textContent ?? ""}`);
      }
    } else {
      el.textContent = `Expires in ${formatRemaining(expires)}`;
      el.classList.toggle("soon", left < 60);
    }
  }
}

// The questions whose answer the server refused (409: answered elsewhere, expired or
// cancelled first). Their card stays where the person was looking and says what happened, until
// the person dismisses it; redrawing it as just "answered" would take the explanation away.
const refused = new Set();

const REFUSED_BECAUSE = {
  answered: "It was answered elsewhere.",
  expired: "It expired.",
  cancelled: "The agent cancelled it.",
};

/** The pending questions, and the refused ones not dismissed yet, soonest to expire first. */
export function waitingQuestions(store) {
  return Array.from(store.questions.values())
    .filter((q) => q.status === "pending" || refused.has(q.id))
    .sort((a, b) => a.expires_at - b.expires_at);
}

export function isRefused(question) {
  return refused.has(question.id);
}

/** What a question card shows, for syncList: a card is drawn again when this changes. */
export function questionVersion(question, store) {
  return `${question.status}|${store.keyLabel(question.key_id)}|${refused.has(question.id) ? "refused" : ""}`;
}

function refusedNotice(question, store) {
  // Filled after the card is in the document, so that the alert is read out.
  const text = `This question is no longer waiting for an answer. ${REFUSED_BECAUSE[question.status] ?? ""}`.trim();
  const alert = h("p", { class: "error-text", role: "alert" });
  setTimeout(() => { alert.textContent = text; }, 50);
  const dismiss = h("button", {
    type: "button",
    class: "refused-dismiss",
    dataset: { questionId: question.id },
    onclick: () => {
      refused.delete(question.id);
      store.emit("question.dismissed", { question_id: question.id });
    },
  }, "Dismiss", h("span", { class: "visually-hidden" }, ` the notice about ${question.prompt}`));
  return [alert, h("div", { class: "row" }, dismiss)];
}

export function questionCard(question, store, { showTask = true } = {}) {
  const pending = question.status === "pending" && question.expires_at > nowSeconds();
  const promptId = uid("prompt");
  const card = h("li", { class: `card question${pending ? "" : " closed"}`, "aria-labelledby": promptId },
    h("div", { class: "meta" },
      h("span", { class: `chip q-status q-${pending ? "pending" : question.status === "pending" ? "expired" : question.status}` },
        QUESTION_LABELS[pending ? "pending" : question.status === "pending" ? "expired" : question.status]),
      h("span", null, "From ", store.keyLabel(question.key_id)),
      h("span", null, "Asked ", timeElement(question.created_at)),
      showTask && question.task_id ? h("a", { href: `#/task/${enc(question.task_id)}` }, "Open the task") : null),
    h("p", { class: "prompt", id: promptId }, question.prompt));
  if (pending) {
    const countdown = h("p", { class: "countdown small", role: "timer", "aria-live": "off", dataset: { expires: String(question.expires_at) } },
      `Expires in ${formatRemaining(question.expires_at)}`);
    card.append(answerControls(question, store, promptId), countdown);
  } else if (question.status === "answered") {
    card.append(h("p", null, h("span", { class: "muted" }, "Answer: "), h("span", { class: "answer" }, question.answer)));
  }
  if (!pending && refused.has(question.id)) card.append(...refusedNotice(question, store));
  return card;
}

function answerControls(question, store, promptId) {
  const errorId = uid("answer-error");
  const error = h("p", { class: "error-text", id: errorId, hidden: true });
  // While an answer is on its way the controls say so with aria-disabled instead of disabled,
  // which would throw the keyboard focus out of the card.
  let busy = false;
  const send = async (answer, controls) => {
    if (busy) return;
    busy = true;
    controls.forEach((c) => c.setAttribute("aria-disabled", "true"));
    error.hidden = true;
    try {
      const updated = await api("POST", `/v1/questions/${enc(question.id)}/answer`, { answer });
      store.apply("question.updated", { question: updated });
      announce(`Answer sent: ${answer}`);
    } catch (failure) {
      if (failure.status === 409) {
        error.textContent = "This question is no longer waiting for an answer.";
        error.hidden = false;
        refused.add(question.id);
        const fresh = await api("GET", `/v1/questions/${enc(question.id)}`).catch(() => null);
        // The card is drawn again with what happened instead, and the notice in it.
        // Without it the card stays as it is, with the sentence above.
        if (fresh) store.apply("question.updated", { question: fresh });
        else refused.delete(question.id);
        // The card was drawn again (perhaps after the stream's event took the old one away):
        // the focus goes to it rather than staying lost on the heading.
        const dismiss = document.querySelector(`button.refused-dismiss[data-question-id="${CSS.escape(question.id)}"]`);
        const active = document.activeElement;
        if (dismiss && (!active || active === document.body || active.matches("h1") || !active.isConnected)) dismiss.focus();
      } else if (failure.status === 422) {
        error.textContent = failure.fields.answer || failure.message;
        error.hidden = false;
      } else {
        showError(failure);
      }
    } finally {
      busy = false;
      controls.forEach((c) => c.removeAttribute("aria-disabled"));
    }
  };
  if (question.kind === "text") {
    const fieldId = uid("answer");
    const input = h("textarea", { id: fieldId, name: "answer", maxlength: "1000", "aria-required": "true", "aria-describedby": errorId });
    const button = h("button", { type: "submit", class: "primary" }, "Send answer");
    const form = h("form", {
      class: "answer-form",
      onsubmit: (event) => {
        event.preventDefault();
        if (!input.value.trim()) {
          error.textContent = "Type an answer first.";
          error.hidden = false;
          input.focus();
          return;
        }
        send(input.value, [input, button]);
      },
    },
    h("label", { for: fieldId }, "Your answer"), input, h("div", { class: "row" }, button), error);
    return form;
  }
  const buttons = [];
  const group = h("div", { class: "choices", role: "group", "aria-labelledby": promptId });
  // Yes and No differ in fill and in a mark, not by colour alone; the mark is not read out.
  const confirm = question.kind === "confirm";
  question.options.forEach((option, index) => {
    const mark = confirm ? h("span", { class: "choice-mark", "aria-hidden": "true" }, index === 0 ? "✓" : "✕") : null;
    const kind = confirm ? (index === 0 ? "primary choice-yes" : "choice-no") : "primary";
    const button = h("button", { type: "button", class: kind, onclick: () => send(option, buttons) }, mark, option);
    buttons.push(button);
    group.append(button);
  });
  return h("div", null, group, error);
}
