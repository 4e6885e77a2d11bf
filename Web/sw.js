// Reverie's service worker: the app opens from this device, with or without a network.
//
// - The shell (the files below) is answered from the cache at once and refreshed in the
//   background, so a repeat load costs no round trip and the next load has any update.
// - API reads (GET /api/…) go to the network first; when the server cannot be reached, the last
//   answer this device saw comes back marked with X-Reverie-Saved-At, so the app can start offline
//   as the last signed-in person and say that what it shows may be out of date. The app deletes
//   these answers when someone signs out. Searches (?q=) are not kept: each query would be an
//   entry, and searching needs the server anyway. Nor is a joined stream's plan (/api/streams):
//   its audio needs the server, so offline the player keeps each file (a download) on its own.
// - Audio (Range requests, large files) and every write go straight to the network.
// - Write's rhyme pack (GET /api/offline/rhymes) is kept by the page in a cache of its own.
// - A file downloaded for offline (Web/player/downloads.js keeps it under its path) is answered
//   from the device, Range requests included, online or not; a rendition of it (a sleep timer's
//   ?until=, a level's ?level=) comes from the server while it can be reached, else the whole file
//   from the device (the player then fades it on the audio clock).

const CACHE = "reverie-shell-v87";
const API_CACHE = "reverie-api-v1";  // the same name as API_CACHE in api.js
const RHYMES_CACHE = "reverie-rhymes";  // the rhyme pack Write keeps (Web/write/offline-rhymes.js)
const DOWNLOADS_CACHE = "reverie-download:";  // each download's own cache, by this and its key (Web/player/downloads.js)
const SHELL = [
  "/",
  "/index.html",
  "/styles.css",
  "/app.js",
  "/api.js",
  "/areas.js",
  "/dom.js",
  "/idb.js",
  "/ids.js",
  "/item-key.js",
  "/theme.js",
  "/plan.js",
  "/speech.js",
  "/upload.js",
  "/jobs.js",
  "/cover.js",
  "/not-found.js",
  "/player/transport.js",
  "/player/sleep-timer.js",
  "/player/time.js",
  "/player/progress.js",
  "/player/rendition.js",
  "/player/volume.js",
  "/player/media-session.js",
  "/player/downloads.js",
  "/player/download-button.js",
  "/account/setup.js",
  "/account/login.js",
  "/account/password.js",
  "/settings/settings.js",
  "/settings/voice-panel.js",
  "/settings/storage.js",
  "/settings/apps.js",
  "/listen/lock-screen.js",
  "/listen/listen.js",
  "/listen/deck.js",
  "/listen/dock.js",
  "/listen/now-playing.js",
  "/listen/queues.js",
  "/listen/up-next.js",
  "/listen/librivox.js",
  "/listen/podcasts.js",
  "/listen/radio.js",
  "/listen/podcast-rules.js",
  "/articles/articles.js",
  "/articles/list.js",
  "/articles/rich-text.js",
  "/articles/reader.js",
  "/articles/save-sheet.js",
  "/wind-down/wind-down.js",
  "/wind-down/player.js",
  "/bedside/mode.js",
  "/bedside/alarm.js",
  "/bedside/bedside.js",
  "/bedside/scene.js",
  "/bedside/piece-player.js",
  "/bedside/piece-preparation.js",
  "/bedside/ringing.js",
  "/bedside/sheet.js",
  "/bedside/gear-sheet.js",
  "/bedside/content-sheet.js",
  "/bedside/piece-editor.js",
  "/bedside/alarm-sheet.js",
  "/meditation/meditate.js",
  "/meditation/run.js",
  "/meditation/player.js",
  "/meditation/uploads.js",
  "/write/write.js",
  "/write/drafts.js",
  "/write/loop.js",
  "/write/player.js",
  "/write/song-list.js",
  "/write/editor.js",
  "/write/offline-rhymes.js",
  "/manifest.webmanifest",
  "/icons/icon.svg",
  "/icons/icon-lavender.svg",
  "/icons/icon-sunrise.svg",
  "/icons/icon-192.png",
  "/icons/icon-512.png",
];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE)
    .then((cache) => cache.addAll(SHELL.map((path) => new Request(path, { cache: "no-cache" }))))
    .then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((key) => ![CACHE, API_CACHE, RHYMES_CACHE].includes(key) && !key.startsWith(DOWNLOADS_CACHE)).map((key) => caches.delete(key))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method === "GET" && url.origin === location.origin && mayBeDownloaded(url)) {
    const answer = downloadedAnswer(request, url);
    if (answer) {
      event.respondWith(answer);
      return;
    }
  }
  if (request.method !== "GET" || url.origin !== location.origin || request.headers.has("Range")) return;
  // Media streams straight from the server (the player seeks with Range).
  // (A speech render heard as it is spoken, …/live, too: it is sent as it is made, never kept.)
  if (url.pathname.startsWith("/audio/") || /^\/api\/.*\/(audio|loop|live)$/.test(url.pathname)) return;
  // A manifest for another app icon comes from the server as asked (the shell keeps the plain one).
  if (url.pathname === "/manifest.webmanifest" && url.search) return;
  // A backup's zip downloads straight from the server (it can be gigabytes).
  if (/^\/api\/backups\/[^/]+$/.test(url.pathname)) return;
  if (url.pathname.startsWith("/api/")) {
    event.respondWith(apiRead(request, event, !url.searchParams.has("q") && url.pathname !== "/api/streams"));
    return;
  }
  // The server's welcome page (HTTPS and its certificate) is a page of its own, not an app location;
  // so is a podcast app's Nextcloud address (its login link redirects to Settings → Apps).
  if (url.pathname === "/welcome" || url.pathname.startsWith("/index.php/")) return;
  // An app location (/write, /settings) is the shell, which routes itself.
  const shellPath = request.mode === "navigate" && !SHELL.includes(url.pathname) ? "/index.html" : url.pathname;
  if (!SHELL.includes(shellPath)) return;
  event.respondWith(fromShell(shellPath, event));
});

// MARK: - Downloaded files

/** Downloaded files' paths → the cache that holds each, read when the worker starts and when
 *  the page says its downloads changed; null until read. */
let downloaded = null;
let readingDownloads = null;

let downloadReads = 0;

function readDownloads() {
  const read = ++downloadReads;
  readingDownloads = (async () => {
    const found = new Map();
    for (const name of await caches.keys()) {
      if (!name.startsWith(DOWNLOADS_CACHE)) continue;
      for (const request of await (await caches.open(name)).keys()) found.set(keyOf(new URL(request.url)), name);
    }
    if (read === downloadReads) downloaded = found;   // an older read finishing late changes nothing
  })().catch(() => { if (read === downloadReads) downloaded = new Map(); });
  return readingDownloads;
}
readDownloads();

self.addEventListener("message", (event) => {
  if (event.data?.type === "downloads") event.waitUntil(readDownloads());
});

/** What a rendition's address adds to its file's (RENDITION_PARAMS in Web/player/rendition.js). */
const RENDITION_PARAMS = ["until", "level", "boost"];

/** A downloaded file's key: its path and query without a rendition's `until`, `level` and `boost`
 *  (fileKey in Web/player/downloads.js, its twin, keeps the files under it). */
function keyOf(url) {
  const plain = new URL(url.href);
  for (const name of RENDITION_PARAMS) plain.searchParams.delete(name);
  return plain.pathname + plain.search;
}

/** Audio a download may hold: the API's audio addresses, and Bedside's room sounds. */
function mayBeDownloaded(url) {
  return url.pathname.startsWith("/api/") && (/\/audio$/.test(url.pathname) || url.pathname.startsWith("/api/bedside/sounds/"));
}

/** The answer for a request of a file that may be downloaded; null (no answer: the network's)
 *  when it is known not to be. */
function downloadedAnswer(request, url) {
  const key = keyOf(url);
  if (downloaded && !downloaded.has(key)) return null;
  return (async () => {
    if (!downloaded) await readingDownloads;
    if (!downloaded.has(key)) {
      // Not in the list read last; a download kept since (by a page this worker does not
      // control) is still answered from the device when the network fails.
      try {
        return await fetch(request);
      } catch (error) {
        await readDownloads();
        if (!downloaded.has(key)) throw error;
      }
    }
    // A rendition (a sleep timer's end, a level): the server's while it answers soon, else the
    // file itself (the player then fades it on the audio clock). Not for an episode: the server
    // may have levelled it since it was downloaded, and a rendition of that would not match the
    // device's file.
    if (RENDITION_PARAMS.some((name) => url.searchParams.has(name)) && !url.pathname.startsWith("/api/episodes/")) {
      try {
        const answer = await fetch(request, { signal: AbortSignal.timeout(8000) });
        if (answer.ok) return answer;
      } catch { /* offline, or too slow: the whole file below */ }
    }
    const stored = await caches.match(new URL(key, location.origin).href, { cacheName: downloaded.get(key) });
    if (!stored) return fetch(request);
    return rangeOf(await stored.blob(), stored.headers.get("Content-Type") || "application/octet-stream", request.headers.get("Range"));
  })();
}

/** `blob` answered as a server answers a Range request (RFC 9110): 206 with the bytes asked for,
 *  416 for a range past the end, 200 with everything when no range is asked. */
function rangeOf(blob, type, header) {
  const size = blob.size;
  const base = { "Content-Type": type, "Accept-Ranges": "bytes", "Cache-Control": "no-store" };
  const match = /^bytes=(\d*)-(\d*)$/.exec((header || "").trim());
  if (!match || (!match[1] && !match[2])) {
    return new Response(blob, { status: 200, headers: { ...base, "Content-Length": String(size) } });
  }
  let start, end;
  if (!match[1]) {
    start = Math.max(0, size - Number(match[2]));   // the last N bytes
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] ? Math.min(Number(match[2]), size - 1) : size - 1;
  }
  if (start >= size || end < start) {
    return new Response(null, { status: 416, headers: { ...base, "Content-Range": `bytes */${size}` } });
  }
  const part = blob.slice(start, end + 1, type);
  return new Response(part, { status: 206, headers: { ...base, "Content-Length": String(part.size), "Content-Range": `bytes ${start}-${end}/${size}` } });
}

/** The cached copy at once, refreshed in the background; the network when there is no copy. */
async function fromShell(path, event) {
  const cache = await caches.open(CACHE);
  const cached = await cache.match(path);
  const refresh = fetch(path, { cache: "no-cache" }).then((response) => {
    if (response.ok) return cache.put(path, response.clone()).then(() => response);
    return response;
  });
  if (cached) {
    event.waitUntil(refresh.catch(() => null));
    return cached;
  }
  return refresh;
}

/**
 * The server's answer, kept (when `keep`) for offline starts while the page already has it;
 * this device's last copy when the server cannot be reached.
 */
async function apiRead(request, event, keep) {
  const generation = forgetting;
  let response;
  try {
    response = await fetch(request);
  } catch (error) {
    const saved = await caches.match(request, { cacheName: API_CACHE });
    if (saved) return saved;
    throw error;
  }
  const type = response.headers.get("Content-Type") || "";
  if (keep && response.ok && type.includes("json")) {
    event.waitUntil(keepCopy(request, response.clone(), generation));
  } else if (response.status === 401) {
    event.waitUntil(caches.delete(API_CACHE));  // signed out elsewhere: nothing of this account stays here
  }
  return response;
}

/** Bumped when the page forgets this account's answers (sign-out, another person signing in). */
let forgetting = 0;
/** Copies being written, which a forget waits for before it deletes. */
const writing = new Set();

/** Keeps a copy of an answer asked for in `generation`, unless the page has forgotten since. */
async function keepCopy(request, response, generation) {
  const headers = new Headers(response.headers);
  headers.set("X-Reverie-Saved-At", new Date().toISOString());
  const copy = new Response(await response.arrayBuffer(), { status: response.status, headers });
  if (generation !== forgetting) return;
  const write = caches.open(API_CACHE).then((cache) => (generation === forgetting ? cache.put(request, copy) : null));
  writing.add(write);
  try {
    await write;
  } finally {
    writing.delete(write);
  }
}

// The page forgets: no answer asked for before this is kept, and the copies go once the writes
// under way have landed (a write finishing after the delete would bring them back).
self.addEventListener("message", (event) => {
  if (!event.data || event.data.type !== "forget") return;
  forgetting += 1;
  const reply = event.ports && event.ports[0];
  event.waitUntil(Promise.allSettled([...writing])
    .then(() => caches.delete(API_CACHE))
    .finally(() => reply && reply.postMessage("forgotten")));
});
