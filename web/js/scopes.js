// A key's scopes: what the agent with the key may do. The names are the server's; the order
// is the order the server lists them in (Key.scopes).

import { h, uid } from "./dom.js";

export const SCOPES = [
  { name: "tasks:read", explanation: "Read the key's tasks." },
  { name: "tasks:write", explanation: "Create, change and delete the key's tasks." },
  { name: "questions", explanation: "Ask you questions and read your answers." },
  { name: "notify", explanation: "Send you notifications." },
  { name: "messages", explanation: "See your other agents and send them messages." },
  { name: "inbox", explanation: "Read the key's inbox: tasks you assign, change or delete, answers, messages." },
];

export const ALL_SCOPES = SCOPES.map((scope) => scope.name);

/** "All scopes", or the names, for a line about a key. */
export function scopesSummary(scopes) {
  const held = scopes ?? ALL_SCOPES;
  return held.length === ALL_SCOPES.length ? "All scopes" : `Scopes: ${held.join(", ")}`;
}

/**
 * A fieldset of one checkbox per scope, each with its one-line explanation as its
 * description. `chosen()` gives the checked names in the server's order.
 */
export function scopeFieldset(selected = ALL_SCOPES, { legend = "What the agent may do" } = {}) {
  const boxes = [];
  const rows = SCOPES.map((scope) => {
    const id = uid("scope");
    const hintId = uid("scope-hint");
    const box = h("input", { type: "checkbox", id, value: scope.name, checked: selected.includes(scope.name), "aria-describedby": hintId });
    boxes.push(box);
    return h("div", { class: "scope" },
      h("div", { class: "field-inline" }, box, h("label", { for: id }, h("code", null, scope.name))),
      h("p", { class: "small muted scope-hint", id: hintId }, scope.explanation));
  });
  const element = h("fieldset", { class: "scopes" }, h("legend", null, legend), rows);
  return {
    element,
    chosen: () => boxes.filter((box) => box.checked).map((box) => box.value),
    focus: () => boxes[0].focus(),
  };
}
