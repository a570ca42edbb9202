// A small Markdown renderer that builds DOM nodes and never parses HTML: paragraphs, headings,
// lists, block quotes, fenced and indented code, emphasis, strong, inline code and links.
// Anything it does not understand, raw HTML included, stays visible as plain text. A link
// becomes an <a> only for http: and https: URLs, opening in a new tab without a referrer.

import { h } from "./dom.js";

export function renderMarkdown(source) {
  const root = h("div", { class: "markdown" });
  const lines = String(source ?? "").replace(/\r\n?/g, "\n").split("\n");
  let i = 0;
  let paragraph = [];
  const flushParagraph = () => {
    if (paragraph.length) root.append(h("p", null, inline(paragraph.join("\n"))));
    paragraph = [];
  };
  while (i < lines.length) {
    const line = lines[i];
    const fence = line.match(/^\s{0,3}(```+|~~~+)\s*([\w+-]*)\s*$/);
    if (fence) {
      flushParagraph();
      const closing = fence[1];
      const body = [];
      i += 1;
      while (i < lines.length && !lines[i].trim().startsWith(closing)) {
        body.push(lines[i]);
        i += 1;
      }
      i += 1;
      const code = h("code", null, body.join("\n"));
      if (fence[2]) code.dataset.language = fence[2];
      root.append(h("pre", null, code));
      continue;
    }
    const heading = line.match(/^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/);
    if (heading) {
      flushParagraph();
      // Headings inside a task start at level 3: the page's own h1 and h2 stay above them.
      const level = Math.min(6, heading[1].length + 2);
      root.append(h(`h${level}`, null, inline(heading[2])));
      i += 1;
      continue;
    }
    if (/^\s*$/.test(line)) {
      flushParagraph();
      i += 1;
      continue;
    }
    if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flushParagraph();
      root.append(h("hr"));
      i += 1;
      continue;
    }
    if (/^\s{0,3}>/.test(line)) {
      flushParagraph();
      const quoted = [];
      while (i < lines.length && /^\s{0,3}>/.test(lines[i])) {
        quoted.push(lines[i].replace(/^\s{0,3}>\s?/, ""));
        i += 1;
      }
      const quote = renderMarkdown(quoted.join("\n"));
      root.append(h("blockquote", null, ...Array.from(quote.childNodes)));
      continue;
    }
    const bullet = /^\s{0,3}([-*+])\s+(.*)$/;
    const ordered = /^\s{0,3}(\d{1,9})[.)]\s+(.*)$/;
    if (bullet.test(line) || ordered.test(line)) {
      flushParagraph();
      const isOrdered = ordered.test(line) && !bullet.test(line);
      const pattern = isOrdered ? ordered : bullet;
      const list = h(isOrdered ? "ol" : "ul");
      if (isOrdered) {
        const start = Number(line.match(ordered)[1]);
        if (start !== 1) list.setAttribute("start", String(start));
      }
      const items = [];
      while (i < lines.length) {
        const match = lines[i].match(pattern);
        if (match) {
          items.push([match[2]]);
        } else if (items.length && /^\s{2,}\S/.test(lines[i])) {
          items[items.length - 1].push(lines[i].trim());
        } else {
          break;
        }
        i += 1;
      }
      for (const item of items) list.append(h("li", null, inline(item.join("\n"))));
      root.append(list);
      continue;
    }
    if (/^( {4}|\t)/.test(line) && paragraph.length === 0) {
      const body = [];
      while (i < lines.length && (/^( {4}|\t)/.test(lines[i]) || /^\s*$/.test(lines[i]))) {
        body.push(lines[i].replace(/^( {4}|\t)/, ""));
        i += 1;
      }
      while (body.length && body[body.length - 1].trim() === "") body.pop();
      root.append(h("pre", null, h("code", null, body.join("\n"))));
      continue;
    }
    paragraph.push(line.trim());
    i += 1;
  }
  flushParagraph();
  return root;
}

// Sticky patterns, tried at one position of the text without copying the rest of it. Spans
// are bounded (an emphasis of 1,000 characters, a link label of 500), so that text full of
// openers without closers costs linear time rather than a scan to the end for each opener.
const STRONG = /(\*\*|__)(?=\S)([\s\S]{0,998}?\S)\1/y;
const EM = /(\*|_)(?=\S)([\s\S]{0,998}?\S)\1(?!\1)/y;
const LINK = /\[([^\]\n]{0,500})\]\(\s*<?([^\s()<>]{0,2000})>?(?:\s+"[^"\n]{0,500}")?\s*\)/y;
const AUTOLINK = /<(https?:\/\/[^\s<>]{1,2000})>/iy;
const TICKS = /`+/y;

function matchAt(pattern, text, index) {
  pattern.lastIndex = index;
  return pattern.exec(text);
}

/** The inline nodes of one block of text. */
export function inline(text) {
  const nodes = [];
  let plain = "";
  const pushPlain = () => {
    if (plain) nodes.push(...withBreaks(plain));
    plain = "";
  };
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === "\\" && i + 1 < text.length && /[\\`*_{}[\]()#+\-.!>~|<]/.test(text[i + 1])) {
      plain += text[i + 1];
      i += 2;
      continue;
    }
    if (ch === "`") {
      const ticks = matchAt(TICKS, text, i)[0];
      const end = text.indexOf(ticks, i + ticks.length);
      if (end > 0) {
        pushPlain();
        nodes.push(h("code", null, text.slice(i + ticks.length, end).trim()));
        i = end + ticks.length;
        continue;
      }
      plain += ticks;
      i += ticks.length;
      continue;
    }
    if (ch === "*" || ch === "_") {
      const strong = matchAt(STRONG, text, i);
      if (strong) {
        pushPlain();
        nodes.push(h("strong", null, inline(strong[2])));
        i += strong[0].length;
        continue;
      }
      const em = matchAt(EM, text, i);
      if (em && !(ch === "_" && /\w/.test(text[i - 1] || ""))) {
        pushPlain();
        nodes.push(h("em", null, inline(em[2])));
        i += em[0].length;
        continue;
      }
    }
    if (ch === "[") {
      const link = matchAt(LINK, text, i);
      if (link) {
        pushPlain();
        nodes.push(linkNode(link[1], link[2]));
        i += link[0].length;
        continue;
      }
    }
    if (ch === "<") {
      const auto = matchAt(AUTOLINK, text, i);
      if (auto) {
        pushPlain();
        nodes.push(linkNode(auto[1], auto[1]));
        i += auto[0].length;
        continue;
      }
    }
    plain += ch;
    i += 1;
  }
  pushPlain();
  return nodes;
}

/** An <a> for http(s) URLs; anything else (javascript:, data:, relative) stays text. */
function linkNode(label, target) {
  const url = safeURL(target);
  const content = label ? inline(label) : [target];
  if (!url) return h("span", null, `[${label}](${target})`);
  return h("a", { href: url, rel: "noopener noreferrer", target: "_blank" }, content);
}

export function safeURL(text) {
  let url;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
}

function withBreaks(text) {
  const parts = text.split("\n");
  const nodes = [];
  parts.forEach((part, index) => {
    if (index > 0) nodes.push(document.createTextNode(" "));
    if (part) nodes.push(document.createTextNode(part));
  });
  return nodes;
}
