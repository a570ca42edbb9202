// The event stream (events.md) over EventSource with the session cookie. EventSource itself
// reconnects after the server ends a stream; when it gives up (an HTTP error, for example 401
// or 503), this reconnects after a growing pause, unless the session is gone.
//
// The lists load over REST at the start, without waiting for the stream: a stream that cannot
// connect, or a proxy that holds it back, must not leave the page at "Loading…". They load
// again after each `ready` (events.md#reconnect): whatever changed between the first answer
// and the stream's start comes with them, and the events after `ready` are newer than them.
// Events that arrive while lists load wait for them (Store.guarded); applying one that a list
// already holds only sets the same item again.

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
    // What the status line says is the worse of the two: the stream's state and the lists'.
    this.streamState = "connecting";
    this.synced = false;
    this.listsFailed = false;
    this.generation = 0;
  }

  start() {
    this.stopped = false;
    this.open();
    // An agent that only reads makes no event: the keys again each minute, for "Last used".
    clearInterval(this.keysInterval);
    this.keysInterval = setInterval(() => {
      if (document.visibilityState === "visible" && this.store.loaded) this.store.refreshKeys().catch(() => {});
    }, 60000);
    const generation = this.generation;
    this.refreshUntilDone(() => !this.stopped && this.generation === generation, 2000);
  }

  stop() {
    this.stopped = true;
    this.generation += 1;
    clearTimeout(this.timer);
    clearTimeout(this.readyTimer);
    clearInterval(this.keysInterval);
    if (this.source) this.source.close();
    this.source = null;
  }

  /** The status, and whether the lists were read again since the stream's last `ready`
   * (from then on every change reaches the page as an event). */
  report() {
    this.onStatus(this.listsFailed ? "error" : this.streamState, this.synced === true);
  }

  setStream(state) {
    this.streamState = state;
    if (state !== "live") this.synced = false;
    this.report();
  }

  open() {
    if (this.stopped) return;
    const source = new EventSource("/v1/events");
    this.source = source;
    // `ready` comes at once from the server; when it does not, something between holds the
    // stream (a buffering proxy) and the person should know that nothing updates by itself.
    // Armed at each connect (EventSource's own reconnects included), disarmed by an error.
    const expectReady = () => {
      clearTimeout(this.readyTimer);
      this.readyTimer = setTimeout(() => {
        if (this.source === source && this.streamState !== "live") this.setStream("stalled");
      }, 5000);
    };
    expectReady();
    source.addEventListener("open", expectReady);
    source.addEventListener("ready", (event) => {
      this.retry = 1000;
      clearTimeout(this.readyTimer);
      const data = JSON.parse(event.data);
      this.store.accountId = data.account_id;
      this.setStream("live");
      this.refreshUntilDone(() => !this.stopped && this.source === source, 2000, () => { this.synced = true; });
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
      clearTimeout(this.readyTimer);
      this.setStream("reconnecting");
      if (source.readyState === EventSource.CLOSED) this.scheduleReopen();
    });
  }

  /** The lists, at the start and after `ready`; a failure (for example a 503) tries again
   * while `current()` holds (the page is signed in, and for `ready` its stream still lives). */
  refreshUntilDone(current, delay, done = () => {}) {
    this.store.refresh().then(() => {
      if (!current()) return;
      this.listsFailed = false;
      done();
      this.report();
    }, () => {
      if (!current()) return;
      this.listsFailed = true;
      this.report();
      setTimeout(() => {
        if (current()) this.refreshUntilDone(current, Math.min(delay * 2, 30000), done);
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
