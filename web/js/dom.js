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
  let cursor = list.firstElementChild;
  for (const item of items) {
    const key = keyOf(item);
    const version = String(versionOf(item));
    let el = existing.get(key);
    if (el && el.dataset.version === version) {
      existing.delete(key);
    } else {
      const fresh = render(item);
      fresh.dataset.key = key;
      fresh.dataset.version = version;
      if (el) {
        const hadFocus = el.contains(document.activeElement);
        el.replaceWith(fresh);
        existing.delete(key);
        if (hadFocus) fresh.querySelector("a, button, input, select, textarea")?.focus();
      }
      el = fresh;
    }
    if (el !== cursor) list.insertBefore(el, cursor);
    else cursor = cursor.nextElementSibling;
  }
  for (const stale of existing.values()) stale.remove();
  // Anything left after the cursor that is not an item (for example an empty-list line).
  for (const child of Array.from(list.children)) {
    if (!child.dataset.key) child.remove();
  }
}
