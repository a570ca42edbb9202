// Copy buttons. navigator.clipboard needs a secure context (HTTPS or localhost); without it
// the text is selected so that the person can copy it by hand.

import { announce } from "./announce.js";
import { h } from "./dom.js";

export function copyButton(getText, label, target, accessibleName) {
  return h("button", {
    type: "button",
    "aria-label": accessibleName,
    onclick: async (event) => {
      const button = event.currentTarget;
      try {
        await navigator.clipboard.writeText(getText());
        button.textContent = "Copied";
        announce("Copied to the clipboard.");
        setTimeout(() => { button.textContent = label; }, 2000);
      } catch {
        if (target) {
          const range = document.createRange();
          range.selectNodeContents(target);
          const selection = window.getSelection();
          selection.removeAllRanges();
          selection.addRange(range);
        }
        announce("Copying is not allowed here. The text is selected: press Control C or Command C.");
      }
    },
  }, label);
}
