// Reverie's service worker: the app opens from this device, with or without a network.
//
// - The shell (the files below) is answered from the cache at once and refreshed in the
//   background, so a repeat load costs no round trip and the next load has any update.
// - API reads (GET /api/…) go to the network first; when the server cannot be reached, the last
//   answer this device saw comes back marked with X-Reverie-Saved-At, so the app can start offline
//   as the last signed-in person and say that what it shows may be out of date. The app deletes
//   these answers when someone signs out. Searches (?q=) are not kept: each query would be an
//   entry, and searching needs the server anyway.
// - Audio (Range requests, large files) and every write go straight to the network.
// - Write's rhyme pack (GET /api/offline/rhymes) is kept by the page in a cache of its own.

const CACHE = "reverie-shell-v45";
const API_CACHE = "reverie-api-v1";  // the same name as API_CACHE in api.js
const RHYMES_CACHE = "reverie-rhymes";  // the rhyme pack Write keeps (Web/write/offline-rhymes.js)
const SHELL = [
  "/",
  "/index.html",
  "/styles.css",
  "/app.js",
  "/api.js",
  "/areas.js",
  "/dom.js",
  "/ids.js",
  "/theme.js",
  "/plan.js",
  "/speech.js",
  "/upload.js",
  "/jobs.js",
  "/cover.js",
  "/screens/setup.js",
  "/screens/login.js",
  "/screens/password.js",
  "/screens/area.js",
  "/screens/settings.js",
  "/screens/voice-panel.js",
  "/screens/meditate.js",
  "/screens/write.js",
  "/screens/wind-down.js",
  "/bedside/mode.js",
  "/bedside/alarm.js",
  "/screens/bedside.js",
  "/bedside/scene.js",
  "/bedside/piece-player.js",
  "/bedside/piece-preparation.js",
  "/bedside/ringing.js",
  "/bedside/sheet.js",
  "/bedside/gear-sheet.js",
  "/bedside/content-sheet.js",
  "/bedside/piece-editor.js",
  "/bedside/alarm-sheet.js",
  "/screens/listen.js",
  "/player/player.js",
  "/player/transport.js",
  "/player/sleep-timer.js",
  "/player/time.js",
  "/player/progress.js",
  "/player/rendition.js",
  "/player/deck.js",
  "/player/volume.js",
  "/player/dock.js",
  "/player/lock-screen.js",
  "/player/media-session.js",
  "/player/now-playing.js",
  "/player/up-next.js",
  "/screens/up-next.js",
  "/screens/librivox.js",
  "/screens/podcasts.js",
  "/screens/radio.js",
  "/screens/articles.js",
  "/articles/list.js",
  "/articles/rich-text.js",
  "/articles/reader.js",
  "/articles/save-sheet.js",
  "/write/drafts.js",
  "/write/loop.js",
  "/write/player.js",
  "/write/song-list.js",
  "/write/editor.js",
  "/write/offline-rhymes.js",
  "/meditation/run.js",
  "/meditation/player.js",
  "/meditation/uploads.js",
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
      .then((keys) => Promise.all(keys.filter((key) => key !== CACHE && key !== API_CACHE && key !== RHYMES_CACHE).map((key) => caches.delete(key))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== location.origin || request.headers.has("Range")) return;
  // Media streams straight from the server (the player seeks with Range).
  if (url.pathname.startsWith("/audio/") || /^\/api\/.*\/(audio|loop)$/.test(url.pathname)) return;
  // A manifest for another app icon comes from the server as asked (the shell keeps the plain one).
  if (url.pathname === "/manifest.webmanifest" && url.search) return;
  // A backup's zip downloads straight from the server (it can be gigabytes).
  if (/^\/api\/backups\/[^/]+$/.test(url.pathname)) return;
  if (url.pathname.startsWith("/api/")) {
    event.respondWith(apiRead(request, event, !url.searchParams.has("q")));
    return;
  }
  // The server's welcome page (HTTPS and its certificate) is a page of its own, not an app location.
  if (url.pathname === "/welcome") return;
  // An app location (/write, /settings) is the shell, which routes itself.
  const shellPath = request.mode === "navigate" && !SHELL.includes(url.pathname) ? "/index.html" : url.pathname;
  if (!SHELL.includes(shellPath)) return;
  event.respondWith(fromShell(shellPath, event));
});

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
