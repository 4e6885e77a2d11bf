// Listening progress, shared by every area that plays something (Wind Down, Listen, Bedside).
// Each event (play, pause, seek, ended, timer) gets a client id and waits in localStorage until
// the server has it, so progress made offline, or in a page that closes, is never lost; the
// server counts a repeated id once and works out the position from the whole log.

import { api } from "../api.js";
import { storedJSON as load } from "../dom.js";
import { uuid } from "../ids.js";

const QUEUE = "progress-queue";
const DEVICE = "reverie-device";
const LOCAL = "progress-local";

/** This device's name, as other devices will see it ("Continue from 12:40 (phone)"). */
export function deviceName() {
  let name = localStorage.getItem(DEVICE);
  if (!name) {
    const ua = navigator.userAgent;
    name = /iPad|Tablet/i.test(ua) ? "tablet" : /Mobi|iPhone|Android/i.test(ua) ? "phone" : "computer";
    localStorage.setItem(DEVICE, name);
  }
  return name;
}

/** Whether a saved `place` (seconds) is an item's end: within a second of its `duration`, or past
 *  it (an ended event's place is the item's length). A play from there starts the item again. */
export function heardThrough(place, duration) {
  return duration > 0 && place >= duration - 1;
}

/** The position this device last reached in an item (seconds), or null. */
export function localPosition(item) {
  return load(LOCAL, {})[item] ?? null;
}

/** Records an event and sends what is waiting; `keepalive` for a page that is closing. */
export function record(item, kind, position, { keepalive = false } = {}) {
  const event = { id: uuid(), item, device: deviceName(), at: new Date().toISOString(), position: Math.max(0, position || 0), kind };
  const queue = load(QUEUE, []);
  queue.push(event);
  localStorage.setItem(QUEUE, JSON.stringify(queue.slice(-500)));
  if (event.position > 0 || kind === "restart" || kind === "unplayed") {
    const local = load(LOCAL, {});
    local[item] = event.position;
    localStorage.setItem(LOCAL, JSON.stringify(local));
  }
  return flush({ keepalive });
}

let flushing = null;

/** Sends the waiting events; they stay queued until the server has answered. */
export function flush({ keepalive = false } = {}) {
  const queue = load(QUEUE, []);
  if (!queue.length) return Promise.resolve();
  if (keepalive) {
    // A closing page cannot wait for an answer; the events stay queued and a retry counts once.
    fetch("/api/progress/events", {
      method: "POST", credentials: "same-origin", keepalive: true,
      headers: { "Content-Type": "application/json" }, body: JSON.stringify({ events: queue }),
    }).catch(() => {});
    return Promise.resolve();
  }
  if (flushing) return flushing.then(() => flush());
  flushing = api("/api/progress/events", { method: "POST", body: { events: queue } })
    .then(() => {
      const sent = new Set(queue.map((event) => event.id));
      localStorage.setItem(QUEUE, JSON.stringify(load(QUEUE, []).filter((event) => !sent.has(event.id))));
    })
    .catch(() => {})
    .finally(() => { flushing = null; });
  return flushing;
}

/** The server's idea of the item's progress, after this device's waiting events have gone up:
 *  {position, at, device, finished, devicePosition, offer} (the offer of another device's place
 *  is the server's rule, ListeningProgress.offer). */
export async function serverProgress(item) {
  try {
    await flush();
    return await api(`/api/progress/${encodeURIComponent(item)}?device=${encodeURIComponent(deviceName())}`);
  } catch {
    return null;
  }
}

window.addEventListener("online", () => flush());
