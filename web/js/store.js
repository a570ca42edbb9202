// What the page knows of the account, kept current by the event stream (events.md): the
// keys, the open tasks of every key, the questions, and the unread count of each inbox.
// Views read from here and subscribe with on(); each event is passed on after it is applied.

import { api, enc, query } from "./api.js";

const OPEN = new Set(["todo", "in_progress"]);

export class Store {
  constructor() {
    this.accountId = null;
    this.keys = new Map();
    this.openTasks = new Map();
    this.questions = new Map();
    this.unread = new Map();
    // The newest `updated_at` applied for each task, whether it came from the stream or from an
    // answer to the page's own change: the two travel apart, so the older one can arrive last.
    this.taskVersions = new Map();
    this.loaded = false;
    this.listeners = new Set();
    this.refreshing = null;
    this.queued = [];
    this.keysTimer = null;
  }

  on(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(name, data) {
    for (const listener of Array.from(this.listeners)) {
      try { listener(name, data); } catch (error) { console.error(error); }
    }
  }

  reset() {
    this.keys.clear();
    this.openTasks.clear();
    this.questions.clear();
    this.unread.clear();
    this.loaded = false;
    clearTimeout(this.keysTimer);
    this.keysTimer = null;
  }

  /** The full lists again (after each `ready`, as events.md asks). Events that arrive while
   * the lists load are newer than them, so they are applied after the lists. */
  refresh() {
    return this.guarded(() => this.load());
  }

  /** Runs one fetch of lists at a time; the events that arrive meanwhile wait for it, since a
   * list asked for before an event must not overwrite what the event brought. */
  guarded(fetchLists) {
    // One after the other: a full refresh asked for during a smaller one still happens.
    if (this.refreshing) return this.refreshing.catch(() => {}).then(() => this.guarded(fetchLists));
    this.refreshing = fetchLists().finally(() => {
      this.refreshing = null;
      const queued = this.queued;
      this.queued = [];
      for (const [name, data] of queued) this.apply(name, data);
    });
    return this.refreshing;
  }

  async load() {
    const [keys, tasks, pending, closed] = await Promise.all([
      api("GET", "/v1/keys"),
      this.allOpenTasks(),
      api("GET", "/v1/questions"),
      api("GET", `/v1/questions${query({ status: "answered,expired,cancelled" })}`),
    ]);
    const inboxes = await Promise.all(keys.keys.map((key) =>
      api("GET", `/v1/keys/${enc(key.id)}/inbox`).then((inbox) => [key.id, inbox.unread], () => [key.id, 0])));
    this.keys = new Map(keys.keys.map((key) => [key.id, key]));
    this.openTasks = new Map(tasks.map((task) => [task.id, task]));
    this.questions = new Map([...closed.questions, ...pending.questions].map((q) => [q.id, q]));
    this.unread = new Map(inboxes);
    this.loaded = true;
    this.emit("refreshed", {});
  }

  /** The keys again, for their current counts and `last_used_at` (events.md: key.updated
   * carries neither). "key.refreshed", not "refreshed": the other lists did not change. */
  refreshKeys() {
    return this.guarded(async () => {
      const result = await api("GET", "/v1/keys");
      this.keys = new Map(result.keys.map((key) => [key.id, key]));
      this.emit("key.refreshed", {});
    });
  }

  /** An event about a key's task, question or inbox: most come from its agent, which used the
   * key. `last_used_at` moves once a minute at most (rest-api.md#objects), so the keys are
   * fetched again (once for a burst of events) only when the one shown is older than that. */
  noteKeyActivity(keyId) {
    const key = this.keys.get(keyId);
    if (!key || (key.last_used_at ?? 0) > Date.now() / 1000 - 60 || this.keysTimer) return;
    this.keysTimer = setTimeout(() => {
      this.keysTimer = null;
      if (this.loaded) this.refreshKeys().catch(() => {});
    }, 500);
  }

  async allOpenTasks() {
    const tasks = [];
    let cursor = null;
    // Up to 20 pages of 500: more open tasks than 20 keys can hold would be a defect.
    for (let page = 0; page < 20; page += 1) {
      const result = await api("GET", `/v1/tasks${query({ status: "todo,in_progress", limit: 500, cursor })}`);
      tasks.push(...result.tasks);
      cursor = result.next_cursor;
      if (!cursor) break;
    }
    return tasks;
  }

  /** One event of the stream (or a change the page made itself, applied the same way). */
  apply(name, data) {
    if (this.refreshing && name !== "ready") {
      this.queued.push([name, data]);
      return;
    }
    switch (name) {
      case "task.created":
      case "task.updated":
        if (this.isOlder(data.task)) return;
        this.taskVersions.set(data.task.id, data.task.updated_at);
        if (OPEN.has(data.task.status)) this.openTasks.set(data.task.id, data.task);
        else this.openTasks.delete(data.task.id);
        break;
      case "task.deleted":
        this.openTasks.delete(data.task_id);
        this.taskVersions.set(data.task_id, Infinity);
        break;
      case "key.created":
      case "key.updated":
        this.keys.set(data.key.id, { ...this.keys.get(data.key.id), ...data.key });
        break;
      case "key.deleted":
        this.keys.delete(data.key_id);
        this.unread.delete(data.key_id);
        for (const [id, task] of this.openTasks) if (task.key_id === data.key_id) this.openTasks.delete(id);
        for (const [id, q] of this.questions) if (q.key_id === data.key_id) this.questions.delete(id);
        break;
      case "question.created":
      case "question.updated":
        this.questions.set(data.question.id, data.question);
        break;
      case "inbox.updated":
        this.unread.set(data.key_id, data.unread);
        break;
      default:
        break;
    }
    if (!name.startsWith("key.")) {
      const keyId = data.task?.key_id ?? data.question?.key_id ?? data.key_id;
      if (keyId) this.noteKeyActivity(keyId);
    }
    this.emit(name, data);
  }

  /** Whether a newer copy of this task (or its deletion) was applied already. */
  isOlder(task) {
    const applied = this.taskVersions.get(task.id);
    return applied !== undefined && task.updated_at < applied;
  }

  keyLabel(keyId) {
    return this.keys.get(keyId)?.label ?? "Deleted key";
  }

  sortedKeys() {
    return Array.from(this.keys.values()).sort((a, b) => b.created_at - a.created_at);
  }

  tasksOfKey(keyId) {
    return Array.from(this.openTasks.values())
      .filter((task) => task.key_id === keyId)
      .sort((a, b) => b.updated_at - a.updated_at);
  }

  pendingQuestions() {
    return Array.from(this.questions.values())
      .filter((q) => q.status === "pending")
      .sort((a, b) => a.expires_at - b.expires_at);
  }

  closedQuestions() {
    return Array.from(this.questions.values())
      .filter((q) => q.status !== "pending")
      .sort((a, b) => (b.answered_at ?? b.expires_at) - (a.answered_at ?? a.expires_at));
  }

  questionsOfTask(taskId) {
    return Array.from(this.questions.values())
      .filter((q) => q.task_id === taskId)
      .sort((a, b) => b.created_at - a.created_at);
  }
}

export const store = new Store();
