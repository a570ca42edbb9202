// Every call of the page goes through here: same-origin fetch with the session cookie, JSON
// in and out, and errors in the contract's shape turned into ApiError. A 401 on an account
// route means the session ended elsewhere; the app listens for "relaydeck:signed-out".

export class ApiError extends Error {
  constructor(status, code, message, fields) {
    super(message || `Request failed (${status})`);
    this.status = status;
    this.code = code;
    this.fields = fields || {};
  }
}

export async function api(method, path, body, { quietUnauthorized = false } = {}) {
  const init = { method, credentials: "same-origin", headers: { Accept: "application/json" }, cache: "no-store" };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new ApiError(0, "network", "The server cannot be reached. Check the connection.");
  }
  if (response.status === 204) return null;
  let data = null;
  const text = await response.text();
  if (text) {
    try { data = JSON.parse(text); } catch { data = null; }
  }
  if (!response.ok) {
    const error = data && data.error ? data.error : {};
    const failure = new ApiError(response.status, error.code || "http_error", error.message, error.fields);
    if (response.status === 401 && !quietUnauthorized) {
      window.dispatchEvent(new CustomEvent("relaydeck:signed-out"));
    }
    throw failure;
  }
  return data;
}

/** "?a=1&b=2" from an object, skipping empty values. */
export function query(params) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

export const enc = encodeURIComponent;
