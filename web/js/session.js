// The web session: signing in with a login link, a pasted account token or a passkey, and
// signing out. The session itself is an HttpOnly cookie the page never sees.

import { api } from "./api.js";

/** The one-time token of a login link (`/app/#login=<token>`), removed from the address bar
 * at once so that it never lands in the history or a bookmark. */
export function takeLoginToken() {
  const match = location.hash.match(/^#login=([^&]+)/);
  if (!match) return null;
  history.replaceState(null, "", location.pathname + location.search);
  return decodeURIComponent(match[1]);
}

export function signInWithLink(token) {
  return api("POST", "/web/session", { login_token: token }, { quietUnauthorized: true });
}

export function signInWithToken(token) {
  return api("POST", "/web/session", { account_token: token.trim() }, { quietUnauthorized: true });
}

/** The current session, or null when there is none. */
export async function currentSession() {
  try {
    return await api("GET", "/web/session", undefined, { quietUnauthorized: true });
  } catch (error) {
    if (error.status === 401) return null;
    throw error;
  }
}

export function signOut() {
  return api("DELETE", "/web/session", undefined, { quietUnauthorized: true });
}
