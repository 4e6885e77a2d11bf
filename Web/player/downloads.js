// Downloads for offline (issue 34): a Wind Down item, a book, a podcast episode, a LibriVox book
// kept on this device, so it plays with no network.
//
// - A download is a list of files (a book is one; a LibriVox book one per section), each fetched
//   a piece at a time with Range requests. Every piece is kept in IndexedDB as it arrives, so a
//   lost connection costs at most the piece under way: the download waits ("Waiting for the
//   connection") and goes on from there when the browser is online again, or when Reverie next
//   opens. A finished file goes into the download's own Cache Storage cache (`reverie-download:`
//   and its key) under its own address (/api/library/{id}/audio), where the service worker
//   (Web/sw.js) answers the players' Range requests from it, online or not.
// - The first download asks the browser to keep the data (`navigator.storage.persist()`), and
//   none starts that would take the device past 90% of what the browser allows: the person frees
//   space in Settings → Storage first.
// - Records ({ key, area, title, files, meta, status, received, total, added }) are in the
//   IndexedDB store "items"; the pieces of files under way in "parts".

import { fileSize, insecureSentence } from "../dom.js";
import { errorFromAnswer } from "../api.js";
import { database } from "../idb.js";
import { itemKey } from "../item-key.js";
import { RENDITION_PARAMS } from "./rendition.js";

/** Each download's files are in a cache of their own, named this and its key: removing the
 *  download deletes the whole cache, which frees its space at once (the browser gives back a
 *  cache's space when the cache goes, not when an entry does). */
export const DOWNLOADS_CACHE = "reverie-download:";
const cacheName = (key) => DOWNLOADS_CACHE + key;
const DB = "reverie-downloads";
/** Whose downloads the device holds (an account id), set at a download. */
const OWNER = "downloads.owner";
/** Bytes asked for at once: a lost connection costs at most this much again. */
const PIECE = 2 * 1024 * 1024;
/** The share of the browser's quota downloads may bring the device to. */
const FULL = 0.9;

/** The areas downloads are counted under in Settings → Storage, in order. */
export const AREAS = [
  { id: "winddown", name: "Wind Down" },
  { id: "books", name: "Books" },
  { id: "music", name: "Music" },
  { id: "podcasts", name: "Podcasts" },
  { id: "librivox", name: "LibriVox" },
  { id: "articles", name: "Articles" },
  { id: "bedside", name: "Bedside" },
  { id: "meditate", name: "Meditate" },
];

/** Runs `action(stores)` in one transaction over `names`; resolves with its request's result. */
const run = database(DB, 1, (db) => {
  db.createObjectStore("items", { keyPath: "key" });
  db.createObjectStore("parts", { keyPath: ["url", "index"] });
}, "The download could not be kept: the device's storage refused it.");

/** A file's address as the cache keeps it: without a rendition's `until`, `level` and `boost`
 *  (the rendition is the same file), with the rest of its query (a meditation's session, length
 *  and seed name its sound). The service worker's `keyOf` (Web/sw.js) is its twin. */
export function fileKey(url) {
  const parsed = new URL(url, location.origin);
  for (const name of RENDITION_PARAMS) parsed.searchParams.delete(name);
  return new URL(parsed.pathname + parsed.search, location.origin).href;
}

/** Whether this page can keep files: Cache Storage and IndexedDB (a secure address only). */
function offlineCapable() {
  return typeof caches !== "undefined" && typeof indexedDB !== "undefined" && window.isSecureContext !== false;
}

class DownloadError extends Error {
  constructor(message, { waiting = false } = {}) {
    super(message);
    this.waiting = waiting;
  }
}

/** This device's downloads. Listeners hear "change" and "progress" (detail: the key, or null for all). */
class Downloads extends EventTarget {
  constructor() {
    super();
    this.items = new Map();
    this.running = new Map();   // key → AbortController
    this.removing = new Map();  // key → the timer of a removal waiting out its Undo
    this.loaded = null;
    if (typeof window !== "undefined") {
      window.addEventListener("online", () => this.resume());
      // The server answers again (the device may have been online all along).
      window.addEventListener("reverie:connection", (event) => { if (event.detail?.online) this.resume(); });
    }
  }

  /** Reads the records once, and starts again any download that was under way. */
  ready() {
    if (!offlineCapable()) return Promise.resolve();
    if (!this.loaded) {
      this.loaded = run(["items"], "readonly", (stores) => stores.items.getAll()).then((records) => {
        for (const record of records) this.items.set(record.key, record);
        this.resume();
      }).catch(() => {});
    }
    return this.loaded;
  }

  get(key) { return this.items.get(key) ?? null; }
  /** Whether `key` is on the device whole. */
  has(key) { return this.items.get(key)?.status === "ready"; }
  /** Downloaded records, newest first. */
  list() { return [...this.items.values()].sort((a, b) => (b.added ?? "").localeCompare(a.added ?? "")); }

  async save(record) {
    this.items.set(record.key, record);
    await run(["items"], "readwrite", (stores) => stores.items.put(record));
    this.changed(record.key);
  }

  /** Says a record changed: "change" for its status (the service worker's list too), "progress"
   *  when only more of it arrived. */
  changed(key = null, { progress = false } = {}) {
    this.dispatchEvent(new CustomEvent(progress ? "progress" : "change", { detail: key }));
    // The service worker answers from what is kept: tell it when that changed (a download
    // kept, or one gone), not at every step of one under way (it reads every cache's list).
    const record = key == null ? null : this.items.get(key);
    if (!progress && (!record || record.status === "ready")) navigator.serviceWorker?.controller?.postMessage({ type: "downloads" });
  }

  /**
   * Downloads `files` ([{ url, type, size? }]) as `key` in `area`, titled `title`; `meta` is kept
   * with it (what playing it from the device needs, such as an episode's time map). Resolves
   * when it is kept, or rejects with what went wrong (it is then marked failed, or waiting).
   */
  async start({ key, area, title, files, meta = {} }) {
    if (!offlineCapable()) throw new DownloadError(insecureSentence("keep downloads for offline") || "This browser cannot keep downloads for offline.");
    await this.ready();
    if (this.items.has(key) || this.running.has(key)) return;
    const claim = this.claim(key);   // taken before any wait, so a second press starts nothing
    try {
      const known = files.reduce((sum, file) => sum + (file.size || 0), 0);
      // While a file is joined, its pieces and the joined copy are both on the device.
      await this.checkSpace(known + Math.max(0, ...files.map((file) => file.size || 0)));
      if (navigator.storage?.persist) navigator.storage.persist().catch(() => false);
      if (this.owner) localStorage.setItem(OWNER, this.owner);
      const record = {
        key, area, title, meta, status: "downloading", received: 0, total: known || null, added: new Date().toISOString(),
        files: files.map((file) => ({ url: fileKey(file.url), type: file.type || "audio/mpeg", size: file.size || null, received: 0, pieces: 0, done: false, tag: null })),
      };
      await this.save(record);
      return await this.fetchAll(record, claim);
    } finally {
      this.release(key, claim);
    }
  }

  /** Marks `key` as being worked on by this page; `release` ends it. */
  claim(key) {
    const controller = new AbortController();
    this.running.set(key, controller);
    return controller;
  }

  release(key, controller) {
    if (this.running.get(key) === controller) this.running.delete(key);
  }

  /** Refuses a download that would take the device past `FULL` of its quota. */
  async checkSpace(bytes) {
    if (!navigator.storage?.estimate || !bytes) return;
    const { usage = 0, quota = 0 } = await navigator.storage.estimate();
    if (quota && usage + bytes > quota * FULL) {
      throw new DownloadError(`Not enough space on this device: it needs ${fileSize(bytes)}, and ${fileSize(Math.max(0, Math.round(quota * FULL - usage)))} is free for Reverie. Remove downloads in Settings → Storage first.`);
    }
  }

  /**
   * Fetches what is missing of every file, then keeps the finished files for the players. One
   * page at a time works on a download (a Web Lock, where the browser has them): another tab
   * leaves it to the one that has it.
   */
  async fetchAll(record, controller) {
    const work = async () => {
      const signal = controller.signal;
      try {
        for (const file of record.files) {
          if (!file.done) await this.fetchFile(record, file, signal);
          if (signal.aborted) return;
        }
        if (signal.aborted || !this.items.has(record.key)) return;
        record.status = "ready";
        record.error = null;
        record.received = record.total = record.files.reduce((sum, file) => sum + file.received, 0);
        await this.save(record);
      } catch (error) {
        if (signal.aborted) return;   // cancelled: the records are gone already
        const offline = error.waiting || error instanceof TypeError || !navigator.onLine;
        record.status = offline ? "waiting" : "failed";
        record.error = offline ? null : error.message;
        await this.save(record).catch(() => {});
        if (offline) this.retryLater();
        else throw error;
      }
    };
    if (!navigator.locks?.request) return work();
    return navigator.locks.request(`reverie-download:${record.key}`, { ifAvailable: true }, (lock) => (lock ? work() : null));
  }

  async fetchFile(record, file, signal) {
    const forget = () => run(["parts"], "readwrite", (stores) => stores.parts.delete(IDBKeyRange.bound([file.url, 0], [file.url, Infinity])));
    const restart = async () => {
      await forget();
      file.received = 0;
      file.pieces = 0;
    };
    while (file.size == null || file.received < file.size) {
      const end = file.received + PIECE - 1;
      const answer = await fetch(file.url, { headers: { Range: `bytes=${file.received}-${end}` }, credentials: "same-origin", cache: "no-store", signal });
      if (signal.aborted) return;
      if (answer.status === 409) throw new DownloadError("Its audio is still being made on the server: try again in a minute.");
      if (answer.status === 416 && file.size == null) break;
      if (answer.status === 416) { await restart(); throw new DownloadError("The file changed on the server while it downloaded: try again.", { waiting: false }); }
      if (!answer.ok) throw new DownloadError(errorFromAnswer(answer.status, await answer.json().catch(() => null)).message);
      const whole = answer.status === 200;
      const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(answer.headers.get("Content-Range") || "");
      const total = whole ? Number(answer.headers.get("Content-Length")) || null : (range && range[3] !== "*" ? Number(range[3]) : null);
      const tag = answer.headers.get("ETag");
      // The server's file changed since the pieces kept (an episode levelled meanwhile), or it
      // answered from elsewhere than asked, or whole: start the file again rather than mix two.
      const changed = (file.tag && tag && tag !== file.tag) || (file.size && total && total !== file.size && file.received > 0);
      if (whole || changed || (range && Number(range[1]) !== file.received)) {
        await restart();
        if (!whole) continue;
      }
      file.tag = tag || file.tag;
      if (total && file.size !== total) {
        if (!file.size) await this.checkSpace(total * 2);
        record.total = (record.total || 0) - (file.size || 0) + total;
        file.size = total;
      }
      file.type = (answer.headers.get("Content-Type") || file.type).split(";")[0];
      const piece = await answer.blob();
      if (signal.aborted) return;
      // The piece and the record's count of it land together (a copy counted, the record itself
      // only once they have), so neither a resume nor a failed write counts a piece twice.
      const after = structuredClone(record);
      const same = after.files[record.files.indexOf(file)];
      same.received += piece.size;
      same.pieces += 1;
      if (whole) same.size = same.received;
      after.received = after.files.reduce((sum, each) => sum + each.received, 0);
      await run(["parts", "items"], "readwrite", (stores) => {
        stores.parts.put({ url: file.url, index: file.pieces, blob: piece });
        return stores.items.put(after);
      });
      if (signal.aborted) return;
      Object.assign(file, same);
      record.received = after.received;
      record.total = after.total;
      this.changed(record.key, { progress: true });
      if (piece.size === 0) break;
    }
    // Whole: one response in the cache, the pieces joined, then the pieces let go.
    const parts = await run(["parts"], "readonly", (stores) => stores.parts.getAll(IDBKeyRange.bound([file.url, 0], [file.url, Infinity])));
    parts.sort((a, b) => a.index - b.index);
    const blob = new Blob(parts.map((part) => part.blob), { type: file.type });
    if (file.size != null && blob.size !== file.size) {
      await restart();
      throw new DownloadError("The download came out short: try again.");
    }
    if (signal.aborted) return;
    const cache = await caches.open(cacheName(record.key));
    await cache.put(file.url, new Response(blob, { headers: { "Content-Type": file.type, "Content-Length": String(blob.size), "X-Reverie-Download": record.key } }));
    if (signal.aborted) { await caches.delete(cacheName(record.key)); return; }
    await forget();
    file.done = true;
    file.size = blob.size;
  }

  /** Goes on with every download that was waiting (or under way when the page closed). */
  resume() {
    if (!navigator.onLine || !offlineCapable()) return;
    for (const record of this.items.values()) {
      if ((record.status === "downloading" || record.status === "waiting") && !this.running.has(record.key)) {
        const claim = this.claim(record.key);
        record.status = "downloading";
        this.save(record).then(() => this.fetchAll(record, claim)).catch(() => {}).finally(() => this.release(record.key, claim));
      }
    }
  }

  /** A download waiting for the server (the device online, the server not): tried again in a while. */
  retryLater() {
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.resume(), 30_000);
  }

  /** Tries a failed download again. */
  async retry(key) {
    const record = this.items.get(key);
    if (!record || this.running.has(key)) return;
    const claim = this.claim(key);
    try {
      record.status = "downloading";
      record.error = null;
      await this.save(record);
      return await this.fetchAll(record, claim);
    } finally {
      this.release(key, claim);
    }
  }

  /** Stops a download under way, or removes a finished one: its pieces, its files, its record. */
  async remove(key) {
    const record = this.items.get(key);
    this.running.get(key)?.abort();
    this.running.delete(key);
    if (!record) return;
    this.items.delete(key);
    await caches.delete(cacheName(key));
    for (const file of record.files) {
      await run(["parts"], "readwrite", (stores) => stores.parts.delete(IDBKeyRange.bound([file.url, 0], [file.url, Infinity])));
    }
    await run(["items"], "readwrite", (stores) => stores.items.delete(key));
    this.changed(key);
  }

  /** Removes `key` after `seconds` unless `undoRemove(key)` comes first (the controls offer Undo). */
  removeLater(key, seconds = 6) {
    clearTimeout(this.removing.get(key));
    this.removing.set(key, setTimeout(() => { this.removing.delete(key); this.remove(key); }, seconds * 1000));
    this.changed(key);
  }

  undoRemove(key) {
    clearTimeout(this.removing.get(key));
    this.removing.delete(key);
    this.changed(key);
  }

  isRemoving(key) { return this.removing.has(key); }

  /** Someone is signed in: another person's downloads leave the device (a session that only
   *  expired, or an update, keeps the same person's). */
  async signedIn(userID) {
    this.owner = userID;
    const holder = localStorage.getItem(OWNER);
    if (holder && holder !== userID) {
      await this.forgetAll();
      localStorage.removeItem(OWNER);
    }
  }

  /** The person signed out on purpose: nothing of theirs stays on the device. */
  async signedOut() {
    this.owner = null;
    await this.forgetAll();
    localStorage.removeItem(OWNER);
  }

  /** Forgets every download. */
  async forgetAll() {
    for (const controller of this.running.values()) controller.abort();
    this.running.clear();
    for (const timer of this.removing.values()) clearTimeout(timer);
    this.removing.clear();
    this.items.clear();
    if (!offlineCapable()) return;
    for (const name of await caches.keys().catch(() => [])) {
      if (name.startsWith(DOWNLOADS_CACHE)) await caches.delete(name).catch(() => false);
    }
    await new Promise((resolve) => {
      const request = indexedDB.deleteDatabase(DB);
      request.onsuccess = request.onerror = request.onblocked = () => resolve();
    });
    this.loaded = null;
    this.changed();
  }

  /** Bytes on the device: in all, by area, and by download. */
  usage() {
    const areas = Object.fromEntries(AREAS.map((area) => [area.id, 0]));
    let all = 0;
    for (const record of this.items.values()) {
      areas[record.area] = (areas[record.area] || 0) + record.received;
      all += record.received;
    }
    return { all, areas };
  }
}

export const downloads = new Downloads();

/**
 * What an article's download keeps (`{voice, speeches, parts}`, parts by "chapter:segment", each
 * with its file's address and timeline), when it is on this device whole in `voice`; else null.
 * The reader and Up Next both play from it, so a queued article plays with no server too.
 */
export function keptArticle(id, voice) {
  const record = downloads.get(itemKey("article", id));
  return record?.status === "ready" && record.meta?.voice === (voice || "") ? record.meta : null;
}

/**
 * The time map of the episode file the players get (from the file's seconds to the original's):
 * this device's download's when it has one (the server may have levelled the episode since, or
 * not yet when it was downloaded), else the server's levelled download's when ready, else none.
 */
export function keptTimeMap(episode) {
  const device = downloads.get(itemKey("podcast", episode.id));
  if (device?.status === "ready") return device.meta?.timeMap ?? [];
  return episode.download?.status === "ready" ? episode.download.timeMap : [];
}
