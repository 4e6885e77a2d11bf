// Finished sessions waiting to reach the server. Kept in localStorage until the server has them,
// so a session finished offline is never lost; the client-made id makes a repeat harmless.

import { api } from "../api.js";
import { storedJSON } from "../dom.js";

const KEY = "meditation-upload-queue";

function load() {
  return storedJSON(KEY, []);
}

function store(queue) {
  localStorage.setItem(KEY, JSON.stringify(queue));
}

export function enqueue(record) {
  const queue = load();
  if (!queue.some((item) => item.id === record.id)) queue.push(record);
  store(queue);
}

export function pendingCount() {
  return load().length;
}

let flushing = null;

/** Sends what is waiting, oldest first. Resolves with the number still waiting. */
export function flush() {
  if (flushing) return flushing;
  flushing = (async () => {
    for (const record of load()) {
      try {
        await api("/api/meditation-sessions", { method: "POST", body: record });
      } catch (problem) {
        // Offline or the server is down: try again later. A refusal (400) would never succeed.
        if (problem.status === 0 || problem.status >= 500 || problem.status === 401) break;
        console.warn(`A finished session was refused and dropped: ${problem.message}`);
      }
      store(load().filter((item) => item.id !== record.id));
    }
    return load().length;
  })().finally(() => { flushing = null; });
  return flushing;
}

window.addEventListener("online", () => { flush(); });
