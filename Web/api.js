// Talking to the Reverie server: JSON in and out, one error type, and whether the server can be
// reached right now.

/**
 * Whether the server answered the last request. Screens listen to the "reverie:connection" event
 * on window ({ detail: { online, savedAt } }); `savedAt` is when the copy shown offline was saved.
 */
export const connection = {
  online: true,
  savedAt: null,
  report(online, savedAt = null) {
    const changed = online !== this.online || (savedAt && !this.savedAt);
    this.online = online;
    if (online) this.savedAt = null;
    else if (savedAt && (!this.savedAt || savedAt < this.savedAt)) this.savedAt = savedAt;
    if (changed) window.dispatchEvent(new CustomEvent("reverie:connection", { detail: { online, savedAt: this.savedAt } }));
  },
};

/** The service worker's copy of API answers, kept for opening the app offline. */
export const API_CACHE = "reverie-api-v1";

/** Forgets every API answer this device kept (on signing out, or when someone else signs in). */
export async function forgetSavedAnswers() {
  // The worker may be writing a copy right now: it stops keeping copies, waits for those under
  // way, then deletes (at most two seconds, so signing out never hangs on a stuck worker).
  const worker = "serviceWorker" in navigator && navigator.serviceWorker.controller;
  if (worker) {
    await new Promise((resolve) => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => resolve();
      worker.postMessage({ type: "forget" }, [channel.port2]);
      setTimeout(resolve, 2000);
    });
  }
  if ("caches" in window) await caches.delete(API_CACHE).catch(() => false);
}

/** An error answered by the server ({"error":{"code","message"}}) or the network. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/**
 * Calls the API. Resolves with the parsed JSON (or null for 204); rejects with ApiError.
 * @param {string} path  e.g. "/api/settings"
 * @param {{method?: string, body?: unknown, keepalive?: boolean}} [options]  keepalive: the request
 *   outlives the page (sent as it closes)
 */
export async function api(path, { method = "GET", body, keepalive = false } = {}) {
  const init = { method, credentials: "same-origin", headers: { Accept: "application/json" } };
  if (keepalive) init.keepalive = true;
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    connection.report(false);
    throw new ApiError(0, "offline", "Reverie's server cannot be reached. Check your connection and try again.");
  }
  // The service worker answers a GET from this device's copy when the server cannot be reached.
  const savedAt = response.headers.get("X-Reverie-Saved-At");
  connection.report(!savedAt, savedAt);
  if (response.status === 204) return null;
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) throw errorFromAnswer(response.status, data);
  return data;
}

/** The ApiError for a failed answer: its {"error":{"code","message"}} body, else its status. */
export function errorFromAnswer(status, data) {
  const error = data && data.error;
  return new ApiError(status, error ? error.code : "http_" + status, error ? error.message : `The server answered ${status}.`);
}
