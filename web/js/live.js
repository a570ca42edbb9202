// The event stream (events.md) over EventSource with the session cookie. EventSource itself
// reconnects after the server ends a stream; when it gives up (an HTTP error, for example 401
// or 503), this reconnects after a growing pause, unless the session is gone.

import { currentSession } from "./session.js";

const EVENTS = [
  "task.created", "task.updated", "task.deleted",
  "key.created", "key.updated", "key.deleted",
  "question.created", "question.updated", "inbox.updated",
];

export class LiveConnection {
  constructor(store, { onStatus, onSignedOut, onAccountDeleted }) {
    this.store = store;
    this.onStatus = onStatus;
    this.onSignedOut = onSignedOut;
    this.onAccountDeleted = onAccountDeleted;
    this.source = null;
    this.retry = 1000;
    this.timer = null;
    this.stopped = false;
  }

  start() {
    this.stopped = false;
    this.open();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.source) this.source.close();
    this.source = null;
  }

  open() {
    if (this.stopped) return;
    const source = new EventSource("/v1/events");
    this.source = source;
    source.addEventListener("ready", (event) => {
      this.retry = 1000;
      const data = JSON.parse(event.data);
      this.store.accountId = data.account_id;
      this.onStatus("live");
      this.refreshUntilDone(source, 2000);
    });
    for (const name of EVENTS) {
      source.addEventListener(name, (event) => {
        let data;
        try { data = JSON.parse(event.data); } catch { return; }
        this.store.apply(name, data);
      });
    }
    source.addEventListener("account.deleted", () => {
      this.stop();
      this.onAccountDeleted();
    });
    source.addEventListener("error", () => {
      if (this.source !== source) return;
      if (source.readyState === EventSource.CLOSED) {
        this.onStatus("reconnecting");
        this.scheduleReopen();
      } else {
        this.onStatus("reconnecting");
      }
    });
  }

  /** The lists after `ready`; a failure (for example a 503) tries again while this stream lives. */
  refreshUntilDone(source, delay) {
    this.store.refresh().then(() => this.onStatus("live"), () => {
      this.onStatus("error");
      setTimeout(() => {
        if (!this.stopped && this.source === source) this.refreshUntilDone(source, Math.min(delay * 2, 30000));
      }, delay);
    });
  }

  scheduleReopen() {
    clearTimeout(this.timer);
    const delay = this.retry;
    this.retry = Math.min(this.retry * 2, 30000);
    this.timer = setTimeout(async () => {
      if (this.stopped) return;
      try {
        if (!(await currentSession())) {
          this.stop();
          this.onSignedOut();
          return;
        }
      } catch {
        // The server is unreachable: try the stream again after the next pause.
      }
      this.open();
    }, delay);
  }
}
