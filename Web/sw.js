// Reverie's service worker: keeps the app shell so Reverie opens without a network.
// Network first (so an update shows at once), the cached copy when offline. The API is never cached.

const CACHE = "reverie-shell-v8";
const SHELL = [
  "/",
  "/index.html",
  "/styles.css",
  "/app.js",
  "/api.js",
  "/areas.js",
  "/dom.js",
  "/theme.js",
  "/screens/setup.js",
  "/screens/login.js",
  "/screens/area.js",
  "/screens/settings.js",
  "/screens/voice-panel.js",
  "/screens/meditate.js",
  "/screens/write.js",
  "/write/drafts.js",
  "/meditation/run.js",
  "/meditation/player.js",
  "/meditation/uploads.js",
  "/manifest.webmanifest",
  "/icons/icon.svg",
  "/icons/icon-192.png",
  "/icons/icon-512.png",
];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((key) => key !== CACHE).map((key) => caches.delete(key))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  // The API and audio (Range requests, large files) go straight to the network.
  const serverOwned = url.pathname.startsWith("/api/") || url.pathname.startsWith("/audio/");
  if (request.method !== "GET" || url.origin !== location.origin || serverOwned) return;

  event.respondWith((async () => {
    try {
      const response = await fetch(request);
      if (response.ok && SHELL.includes(url.pathname)) {
        const copy = response.clone();
        caches.open(CACHE).then((cache) => cache.put(request, copy));
      }
      return response;
    } catch (error) {
      const cached = await caches.match(request);
      if (cached) return cached;
      // An app location (/write, /settings) opens the cached shell, which routes itself.
      if (request.mode === "navigate") return (await caches.match("/index.html")) || Response.error();
      throw error;
    }
  })());
});
