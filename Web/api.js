// Talking to the Reverie server: JSON in and out, one error type.

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
 * @param {{method?: string, body?: unknown}} [options]
 */
export async function api(path, { method = "GET", body } = {}) {
  const init = { method, credentials: "same-origin", headers: { Accept: "application/json" } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new ApiError(0, "offline", "Reverie's server cannot be reached. Check your connection and try again.");
  }
  if (response.status === 204) return null;
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    const error = data && data.error;
    throw new ApiError(
      response.status,
      error ? error.code : "http_" + response.status,
      error ? error.message : `The server answered ${response.status}.`,
    );
  }
  return data;
}
