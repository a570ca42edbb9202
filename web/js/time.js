// Timestamps of the API are Unix seconds with a fraction.

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
const absolute = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

export function nowSeconds() {
  return Date.now() / 1000;
}

export function formatDate(seconds) {
  if (seconds === null || seconds === undefined) return "never";
  return absolute.format(new Date(seconds * 1000));
}

export function formatAgo(seconds) {
  if (seconds === null || seconds === undefined) return "never";
  const delta = seconds - nowSeconds();
  const abs = Math.abs(delta);
  if (abs < 45) return relative.format(Math.round(delta), "second");
  if (abs < 45 * 60) return relative.format(Math.round(delta / 60), "minute");
  if (abs < 22 * 3600) return relative.format(Math.round(delta / 3600), "hour");
  return relative.format(Math.round(delta / 86400), "day");
}

/** "4:05" or "1:02:03" left until `seconds`; "0:00" once it passed. */
export function formatRemaining(seconds) {
  let left = Math.max(0, Math.floor(seconds - nowSeconds()));
  const h = Math.floor(left / 3600);
  left -= h * 3600;
  const m = Math.floor(left / 60);
  const s = left - m * 60;
  const pad = (n) => String(n).padStart(2, "0");
  return h > 0 ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
}

/** A <time> element with the absolute time as its title and machine value. Without `text`
 * it says how long ago, and moves on by itself (tickRelativeTimes). */
export function timeElement(seconds, text) {
  const el = document.createElement("time");
  if (seconds !== null && seconds !== undefined) {
    el.dateTime = new Date(seconds * 1000).toISOString();
    el.title = formatDate(seconds);
    if (text === undefined) el.dataset.ago = String(seconds);
  }
  el.textContent = text ?? formatAgo(seconds);
  return el;
}

// One timer for every relative time on the page: "now" becomes "1 minute ago" without an event.
setInterval(tickRelativeTimes, 15000);

export function tickRelativeTimes() {
  for (const el of document.querySelectorAll("time[data-ago]")) {
    const text = formatAgo(Number(el.dataset.ago));
    if (el.textContent !== text) el.textContent = text;
  }
}
