// Drafts of songs being edited, kept in IndexedDB until the server has them: an edit made
// offline survives a closed tab and is sent when the connection returns. A draft remembers the
// version it was made from, so a song changed elsewhere meanwhile gets the usual rule: the
// server keeps the draft as a conflict copy.

const DB = "reverie-write";
const STORE = "drafts";

function open() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE, { keyPath: "id" });
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function run(mode, action) {
  const db = await open();
  try {
    return await new Promise((resolve, reject) => {
      const transaction = db.transaction(STORE, mode);
      const request = action(transaction.objectStore(STORE));
      transaction.oncomplete = () => resolve(request ? request.result : undefined);
      transaction.onerror = () => reject(transaction.error);
    });
  } finally {
    db.close();
  }
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

/** The ids of songs with an edit on this device that the server does not have yet. */
export async function pendingIDs() {
  return new Set((await all()).map((draft) => draft.id));
}

/**
 * Sends a draft: the saved song, { conflict } when it was changed elsewhere (the draft is then a
 * conflict copy on the server), or throws when the server cannot be reached.
 */
export async function send(draft) {
  const response = await fetch(`/api/compositions/${draft.id}`, {
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
      } catch {
        break;  // still offline
      }
    }
  })().finally(() => { syncing = null; });
  return syncing;
}

window.addEventListener("online", () => { syncAll(); });
