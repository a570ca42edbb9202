// Building elements without HTML strings: every piece of user text goes in as a text node,
// so a title like "<img onerror=...>" shows as those characters and never runs.

/** h("button", {class: "primary", onclick: fn, "aria-label": "Close"}, "text", node, ...) */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [name, value] of Object.entries(attrs)) {
      if (value === undefined || value === null || value === false) continue;
      if (name.startsWith("on") && typeof value === "function") {
        el.addEventListener(name.slice(2), value);
      } else if (name === "class") {
        el.className = value;
      } else if (name === "text") {
        el.textContent = String(value);
      } else if (name === "dataset") {
        Object.assign(el.dataset, value);
      } else if (name === "value" || name === "checked" || name === "selected" || name === "disabled") {
        el[name] = value;
      } else {
        // setAttribute never parses markup; "style" and on* strings are refused on purpose.
        if (name === "style" || name.startsWith("on")) throw new Error(`refused attribute ${name}`);
        el.setAttribute(name, value === true ? "" : String(value));
      }
    }
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export function clear(el) {
  while (el.firstChild) el.firstChild.remove();
  return el;
}

/** Replaces the children of `el` with `children`. */
export function replace(el, ...children) {
  clear(el);
  return append(el, children);
}

let idCounter = 0;
export function uid(prefix = "id") {
  idCounter += 1;
  return `${prefix}-${idCounter}`;
}

/**
 * Keeps the children of `list` in the order of `items`, reusing the element of an item whose
 * version did not change (so a half-typed answer or the focus inside it survives a live
 * update), and building one with `render(item)` otherwise.
 */
export function syncList(list, items, keyOf, versionOf, render) {
  const existing = new Map();
  for (const child of Array.from(list.children)) {
    if (child.dataset.key) existing.set(child.dataset.key, child);
  }
  const wanted = items.map((item) => {
    const key = keyOf(item);
    const version = String(versionOf(item));
    const old = existing.get(key);
    if (old && old.dataset.version === version) return old;
    const fresh = render(item);
    fresh.dataset.key = key;
    fresh.dataset.version = version;
    if (old && old.contains(document.activeElement)) fresh.dataset.refocus = "1";
    return fresh;
  });
  const keep = new Set(wanted);
  const focusedBefore = document.activeElement;
  const focusedIndex = Array.from(list.children).findIndex((child) => child.contains(focusedBefore));
  for (const child of Array.from(list.children)) {
    if (!keep.has(child)) child.remove();
  }
  wanted.forEach((el, index) => {
    if (list.children[index] !== el) list.insertBefore(el, list.children[index] || null);
  });
  for (const el of wanted) {
    if (el.dataset.refocus) {
      delete el.dataset.refocus;
      el.querySelector("a, button, input, select, textarea")?.focus();
    }
  }
  // Moving a node with the focus inside loses the focus: put it back.
  if (focusedBefore && focusedBefore.isConnected && document.activeElement !== focusedBefore && list.contains(focusedBefore)) {
    focusedBefore.focus();
  }
  // The row with the focus went away (say, a question just answered): the focus goes to the
  // row that took its place, else to the page's heading, never to nowhere.
  if (focusedIndex >= 0 && !focusedBefore.isConnected && (document.activeElement === document.body || !document.activeElement)) {
    const next = wanted[Math.min(focusedIndex, wanted.length - 1)];
    const target = next?.querySelector(FOCUSABLE) ?? list.closest("main")?.querySelector("h1");
    if (target) {
      if (!target.matches(FOCUSABLE)) target.setAttribute("tabindex", "-1");
      target.focus();
    }
  }
}

const FOCUSABLE = "a[href], button:not([disabled]), input:not([disabled]), select, textarea";
