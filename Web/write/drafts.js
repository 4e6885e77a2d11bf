// Drafts of songs being edited, kept in IndexedDB until the server has them: an edit made
// offline survives a closed tab and is sent when the connection returns. A draft remembers the
// version it was made from, so a song changed elsewhere meanwhile gets the usual rule: the
// server keeps the draft as a conflict copy.

//
// With sync off (a switch in Settings, for this device), songs live in the "songs" store only:
// { id, title, lyrics, baseVersion (the server's version it came from; null for a song made
// here), changed (edited since), deleted, updatedAt }. Turning sync on again sends what changed
// under the same rule.

import { connection } from "../api.js";
import { database } from "../idb.js";

const DB = "reverie-write";
const STORE = "drafts";
const SONGS = "songs";
const SYNC_KEY = "write.sync";

const stores = database(DB, 2, (db) => {
  if (!db.objectStoreNames.contains(STORE)) db.createObjectStore(STORE, { keyPath: "id" });
  if (!db.objectStoreNames.contains(SONGS)) db.createObjectStore(SONGS, { keyPath: "id" });
}, "The draft could not be kept: the device's storage refused it.");

/** Runs `action(store)` in one transaction over `store`; resolves with its request's result. */
function run(mode, action, store = STORE) {
  return stores([store], mode, (byName) => action(byName[store]));
}

/** Keeps the latest text of a song: { id, title, lyrics, baseVersion, changedAt }. */
export async function keep(draft) {
  const record = { ...draft, changedAt: Date.now() };
  await run("readwrite", (store) => store.put(record));
  return record;
}

export function find(id) {
  return run("readonly", (store) => store.get(id));
}

/** Forgets a draft, unless it changed after `changedAt` (a newer edit is still on its way). */
export async function forget(id, changedAt) {
  const draft = await find(id);
  if (draft && (changedAt == null || draft.changedAt <= changedAt)) await run("readwrite", (store) => store.delete(id));
}

function all() {
  return run("readonly", (store) => store.getAll());
}

/** Songs made on this device that the server has not made yet (sync on), newest first. */
export async function newSongs() {
  return (await all()).filter((draft) => draft.baseVersion == null).sort((a, b) => b.changedAt - a.changedAt);
}

/** The ids of songs with an edit on this device that the server does not have yet. */
export async function pendingIDs() {
  return new Set((await all()).map((draft) => String(draft.id).toLowerCase()));
}

/** Control characters (but tab and line ends) that pasted text can carry (a PDF's, a
 *  terminal's): the server refuses a title or lyrics holding one, so they are left out here. */
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;

export function withoutControls(text) {
  return String(text ?? "").replace(CONTROL, "");
}

/** A save's request, telling `connection` whether the server answered (as `api` does), so the
 *  app asks again while it is away and says "reverie:connection" when it is back. */
async function reach(path, init) {
  try {
    const response = await fetch(path, init);
    connection.report(true);
    return response;
  } catch (problem) {
    connection.report(false);
    throw problem;
  }
}

/**
 * Sends a draft: the saved song, { conflict } when it was changed elsewhere (the draft is then a
 * conflict copy on the server), or throws when the server cannot be reached.
 */
export async function send(draft) {
  draft = { ...draft, title: withoutControls(draft.title), lyrics: withoutControls(draft.lyrics) };
  if (draft.baseVersion == null) return create(draft);
  const response = await reach(`/api/compositions/${draft.id}`, {
    method: "PUT", credentials: "same-origin",
    headers: { "Content-Type": "application/json", Accept: "application/json", "If-Match": `"${draft.baseVersion}"` },
    body: JSON.stringify({ title: draft.title, lyrics: draft.lyrics }),
  });
  const body = await response.json().catch(() => ({}));
  if (response.status === 412) {
    await forget(draft.id, draft.changedAt);
    return { conflict: body };
  }
  if (response.status === 404) {
    await forget(draft.id);  // the song was deleted; nothing to save it into
    return { gone: true };
  }
  if (!response.ok) throw new Error(body.error ? body.error.message : `The server answered ${response.status}.`);
  await forget(draft.id, draft.changedAt);
  return { saved: body };
}

/**
 * A song made on this device and not yet on the server (`baseVersion` null): created with the id
 * the device gave it, so sending it again (a retry, another tab) never makes a second one. Made
 * before with older words: those words are then saved into it with its version. Answers as `send`
 * does (`{ gone }` when the id names a song deleted elsewhere).
 */
async function create(draft) {
  const response = await reach("/api/compositions", {
    method: "POST", credentials: "same-origin",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify({ id: draft.id, title: draft.title, lyrics: draft.lyrics }),
  });
  const body = await response.json().catch(() => ({}));
  if (response.status === 409) {
    await forget(draft.id);
    return { gone: true };
  }
  if (!response.ok) throw new Error(body.error ? body.error.message : `The server answered ${response.status}.`);
  if (response.status === 200 && (body.title !== (draft.title.trim() || "Untitled") || body.lyrics !== draft.lyrics)) {
    return send({ ...draft, baseVersion: body.version });
  }
  await forget(draft.id, draft.changedAt);
  return { saved: body, created: response.status === 201 };
}

let syncing = null;
/** The song open in the editor, which saves its own draft. */
let editing = null;

export function setEditing(id) {
  editing = id;
}

/** Sends every waiting draft (but the one the editor is saving itself). */
export function syncAll() {
  if (syncing) return syncing;
  syncing = (async () => {
    for (const draft of await all()) {
      if (draft.id === editing) continue;
      try {
        await send(draft);
      } catch (problem) {
        if (problem instanceof TypeError) break;  // still offline
        // The server refused this one (it says why when the song is opened): the rest still go.
      }
    }
  })().finally(() => { syncing = null; });
  return syncing;
}

window.addEventListener("online", () => { if (syncEnabled()) syncAll(); });
// The server is back (the network may never have gone: the server was down or restarting).
window.addEventListener("reverie:connection", (event) => { if (event.detail?.online && syncEnabled()) syncAll(); });

// MARK: - Sync off: songs on this device only

/** Whether this device syncs its songs with the server (on unless turned off here). */
export function syncEnabled() {
  return localStorage.getItem(SYNC_KEY) !== "off";
}

/** This device's songs (sync off), newest edit first, deleted ones left out. */
export async function localSongs() {
  const songs = await run("readonly", (store) => store.getAll(), SONGS);
  return songs.filter((song) => !song.deleted).sort((a, b) => b.updatedAt - a.updatedAt);
}

export function localSong(id) {
  return run("readonly", (store) => store.get(id), SONGS);
}

/** Saves a song on this device: `{ id, title, lyrics }` (a new id makes a new song). */
export async function saveLocal({ id, title, lyrics }) {
  const existing = await localSong(id);
  const song = { baseVersion: null, ...existing, id, title, lyrics, changed: true, deleted: false, updatedAt: Date.now() };
  await run("readwrite", (store) => store.put(song), SONGS);
  return song;
}

/** Deletes (or with `deleted: false`, restores) a song on this device; the server's copy goes only when sync is on again. */
export async function markLocalDeleted(id, deleted = true) {
  const song = await localSong(id);
  if (!song) return;
  await run("readwrite", (store) => store.put({ ...song, deleted, updatedAt: deleted ? song.updatedAt : Date.now() }), SONGS);
}

async function fetchJSON(path, init = {}) {
  const response = await fetch(path, { credentials: "same-origin", ...init, headers: { Accept: "application/json", ...(init.headers || {}) } });
  const body = await response.json().catch(() => null);
  return { response, body };
}

/**
 * Sync off: every song of the server is copied to this device (with what waited in drafts), and
 * from now on nothing is sent. Nothing is deleted. Resolves with the number of songs kept here.
 */
export async function turnSyncOff() {
  await syncAll();  // edits still waiting go up first, under the usual rule
  let answer;
  try {
    answer = await fetchJSON("/api/compositions/whole");
  } catch {
    throw new Error("Reverie's server cannot be reached to copy your songs to this device; try again when it can.");
  }
  const { response, body } = answer;
  if (!response.ok) throw new Error(body && body.error ? body.error.message : `The server answered ${response.status}.`);
  for (const song of body) {
    const existing = await localSong(song.id);
    if (existing && existing.changed) continue;  // this device's edit from an earlier time off stays
    await run("readwrite", (store) => store.put({
      id: song.id, title: song.title, lyrics: song.lyrics, baseVersion: song.version, changed: false, deleted: false,
      updatedAt: Date.parse(song.updatedAt) || Date.now(),
    }), SONGS);
  }
  localStorage.setItem(SYNC_KEY, "off");
  return (await localSongs()).length;
}

/**
 * Sync on again: songs made here are created on the server, songs edited here are saved with the
 * version they came from (changed on the server meanwhile: the server keeps this device's edit as
 * a conflict copy), songs deleted here are deleted there (restorable). Only then is this device's
 * copy let go. Resolves with `{ created, saved, conflicts, deleted, summary }`.
 */
export async function turnSyncOn() {
  const all = await run("readonly", (store) => store.getAll(), SONGS);
  const result = { created: 0, saved: 0, conflicts: [], deleted: 0 };
  const create = async (song) => {
    const { response } = await fetchJSON("/api/compositions", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ title: song.title, lyrics: song.lyrics }),
    });
    if (response.ok) result.created += 1;
    return response.ok;
  };
  try {
    for (const song of all) {
      let done = true;
      if (song.deleted) {
        if (song.baseVersion !== null) {
          const { response } = await fetchJSON(`/api/compositions/${song.id}`, { method: "DELETE" });
          done = response.ok || response.status === 404;
          if (response.ok) result.deleted += 1;
        }
      } else if (song.baseVersion === null) {
        done = await create(song);
      } else if (song.changed) {
        // The same rule as an offline edit: sent with the version it was made from.
        const sent = await send(song);
        if (sent.conflict) result.conflicts.push(sent.conflict.conflictCopy.title);
        else if (sent.gone) done = await create(song);  // deleted on the server meanwhile: it comes back as new
        else result.saved += 1;
      }
      if (!done) throw new Error("the server refused a song");
      await run("readwrite", (store) => store.delete(song.id), SONGS);
    }
  } catch (problem) {
    throw new Error(`${problem instanceof TypeError ? "Reverie's server cannot be reached" : problem.message}. The songs not sent stay on this device; try again when it can be reached.`);
  }
  localStorage.setItem(SYNC_KEY, "on");
  const parts = [];
  if (result.created) parts.push(`${result.created} new song${result.created === 1 ? "" : "s"} sent`);
  if (result.saved) parts.push(`${result.saved} edit${result.saved === 1 ? "" : "s"} saved`);
  if (result.deleted) parts.push(`${result.deleted} deletion${result.deleted === 1 ? "" : "s"} made`);
  for (const title of result.conflicts) parts.push(`changed on both sides: this device's version is kept as “${title}”`);
  result.summary = `Sync is on. ${parts.length ? `${parts.join("; ")}.` : "Nothing had changed on this device."}`;
  return result;
}
