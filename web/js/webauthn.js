// Passkeys: the server sends WebAuthn options as JSON (binary fields in base64url), the page
// turns them into ArrayBuffers itself (PublicKeyCredential.parse*FromJSON is not everywhere),
// and sends the credential back as JSON with exactly the fields of the contract.

import { api } from "./api.js";
import { fromBuffer, toBuffer } from "./base64url.js";

export function passkeysSupported() {
  return typeof window.PublicKeyCredential === "function" && !!navigator.credentials;
}

function descriptors(list) {
  return (list || []).map((item) => ({ ...item, id: toBuffer(item.id) }));
}

export async function registerPasskey(name) {
  const { publicKey } = await api("POST", "/web/passkeys/registration-options", {});
  const options = {
    ...publicKey,
    challenge: toBuffer(publicKey.challenge),
    user: { ...publicKey.user, id: toBuffer(publicKey.user.id) },
    excludeCredentials: descriptors(publicKey.excludeCredentials),
  };
  const credential = await navigator.credentials.create({ publicKey: options });
  const response = {
    clientDataJSON: fromBuffer(credential.response.clientDataJSON),
    attestationObject: fromBuffer(credential.response.attestationObject),
  };
  if (typeof credential.response.getTransports === "function") {
    response.transports = credential.response.getTransports();
  }
  const body = {
    name,
    credential: { id: credential.id, rawId: fromBuffer(credential.rawId), type: credential.type, response },
  };
  return api("POST", "/web/passkeys", body);
}

export async function signInWithPasskey() {
  const { publicKey } = await api("POST", "/web/passkeys/authentication-options", {}, { quietUnauthorized: true });
  const options = {
    ...publicKey,
    challenge: toBuffer(publicKey.challenge),
    allowCredentials: descriptors(publicKey.allowCredentials),
  };
  const credential = await navigator.credentials.get({ publicKey: options });
  const r = credential.response;
  const body = {
    credential: {
      id: credential.id,
      rawId: fromBuffer(credential.rawId),
      type: credential.type,
      response: {
        clientDataJSON: fromBuffer(r.clientDataJSON),
        authenticatorData: fromBuffer(r.authenticatorData),
        signature: fromBuffer(r.signature),
        userHandle: r.userHandle ? fromBuffer(r.userHandle) : null,
      },
    },
  };
  return api("POST", "/web/passkeys/authentication", body, { quietUnauthorized: true });
}

/** A default name for a new passkey: the kind of device the browser runs on. */
export function defaultPasskeyName() {
  const ua = navigator.userAgent;
  if (/iPhone/.test(ua)) return "iPhone";
  if (/iPad/.test(ua)) return "iPad";
  if (/Android/.test(ua)) return "Android phone";
  if (/Mac OS X/.test(ua)) return "Mac";
  if (/Windows/.test(ua)) return "Windows PC";
  if (/Linux/.test(ua)) return "Linux computer";
  return "This device";
}
