// Which task changes the person has looked at, on this browser: a task shows as "New" or
// "Updated" until it is opened. (seen_at on the task is the agent's side: inbox.md.) The first
// visit sets a baseline, so an old account does not start with everything marked new.

const KEY = "relaydeck.viewed.v1";

function load() {
  try {
    const data = JSON.parse(localStorage.getItem(KEY) || "null");
    if (data && typeof data.baseline === "number" && data.tasks) return data;
  } catch {
    // A broken entry starts over.
  }
  return { baseline: Date.now() / 1000, tasks: {} };
}

let state = load();

function save() {
  try {
    const ids = Object.keys(state.tasks);
    if (ids.length > 2000) {
      ids.sort((a, b) => state.tasks[a] - state.tasks[b]).slice(0, ids.length - 2000).forEach((id) => delete state.tasks[id]);
    }
    localStorage.setItem(KEY, JSON.stringify(state));
  } catch {
    // Private mode or a full storage: the marks live for this page only.
  }
}

/** "new", "updated" or null. */
export function unviewedState(task) {
  const viewedAt = state.tasks[task.id];
  if (viewedAt === undefined) return task.updated_at > state.baseline ? (task.created_at > state.baseline ? "new" : "updated") : null;
  return task.updated_at > viewedAt ? "updated" : null;
}

export function markViewed(task) {
  state.tasks[task.id] = Math.max(task.updated_at, state.tasks[task.id] ?? 0);
  save();
}

export function forgetViewed() {
  state = { baseline: Date.now() / 1000, tasks: {} };
  try { localStorage.removeItem(KEY); } catch { /* nothing stored */ }
}
