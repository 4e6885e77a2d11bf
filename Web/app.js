// Reverie's web app: start-up, the sign-in gate, the tab bar and the router.

import { api, ApiError, connection, forgetSavedAnswers } from "./api.js";
import { AREAS, SETTINGS, icon } from "./areas.js";
import { announce, secureContextNotice } from "./dom.js";
import { applyIcon, applyTheme, rememberedIcon, rememberedTheme } from "./theme.js";
import * as setupScreen from "./account/setup.js";
import * as loginScreen from "./account/login.js";
import * as passwordScreen from "./account/password.js";
import * as notFoundScreen from "./not-found.js";
import * as settingsScreen from "./settings/settings.js";
import * as meditateScreen from "./meditation/meditate.js";
import * as writeScreen from "./write/write.js";
import * as windDownScreen from "./wind-down/wind-down.js";
import * as bedsideScreen from "./bedside/bedside.js";
import * as listenScreen from "./listen/listen.js";
import { deck } from "./listen/deck.js";
import { mountDock, routed } from "./listen/dock.js";
import { downloads } from "./player/downloads.js";
import { episodePlayed } from "./listen/podcast-rules.js";
import { parseItemKey } from "./item-key.js";

// Downloads under way when the page closed go on; an episode played to its end leaves the device
// when the person asked for that (Settings → Storage).
downloads.ready();
deck.speech.addEventListener("played", (event) => {
  const track = event.detail?.track;
  if (!parseItemKey(track?.item)?.kind === "podcast") return;
  const rest = deck.speech.queue.slice(deck.speech.queue.indexOf(track) + 1);
  if (!rest.some((later) => later.item === track.item)) episodePlayed(track.item).catch(() => {});
});

/** Areas that are built have their own screen; the rest show what is coming. */
const AREA_SCREENS = { bedside: bedsideScreen, meditate: meditateScreen, write: writeScreen, "wind-down": windDownScreen, listen: listenScreen };

applyTheme(rememberedTheme());
applyIcon(rememberedIcon());
mountDock(document.getElementById("dock"));

const screen = document.getElementById("screen");
const tabs = document.getElementById("tabs");
const shell = document.getElementById("shell");
const title = document.getElementById("screen-title");

/** What every screen gets: the signed-in user and ways to move on. */
const session = {
  user: null,
  navigate,
  signedIn,
  signedOut,
};

// MARK: - Layout

/** The tab bar's height when it runs along the bottom (0 when it stands at the left or is hidden),
 *  for the space the screens keep free under their content. */
function measureTabs() {
  const box = tabs.getBoundingClientRect();
  const alongBottom = box.height > 0 && box.width > box.height;
  document.documentElement.style.setProperty("--tabs-height", `${alongBottom ? Math.ceil(box.height) : 0}px`);
}
// The bar's box changes whenever it shows, hides (sign-in, a running session) or moves to the
// side on a wide screen, and each of those changes is a resize the observer reports.
new ResizeObserver(measureTabs).observe(tabs);

// MARK: - Navigation

const destinations = [...AREAS, SETTINGS];

function renderTabs() {
  tabs.innerHTML = destinations
    .map((d) => `<a href="${d.path}" data-link class="tab" data-area="${d.id}"${d.accent ? ` data-accent="${d.accent}"` : ""}>${icon(d.icon)}<span>${d.name}</span></a>`)
    .join("");
  for (const tab of tabs.querySelectorAll("[data-accent]")) tab.style.setProperty("--tab-accent", tab.dataset.accent);
}

function markCurrentTab(path) {
  for (const tab of tabs.querySelectorAll(".tab")) {
    if (tab.getAttribute("href") === path) tab.setAttribute("aria-current", "page");
    else tab.removeAttribute("aria-current");
  }
}

/** Opens a path inside the app; `replace` keeps the browser history tidy for redirects. */
function navigate(path, { replace = false } = {}) {
  if (path !== location.pathname) {
    if (replace) history.replaceState({}, "", path);
    else history.pushState({}, "", path);
  }
  route();
}

document.addEventListener("click", (event) => {
  const link = event.target.closest("a[data-link]");
  if (!link || event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
  event.preventDefault();
  navigate(link.getAttribute("href"));
});
window.addEventListener("popstate", () => route());

// MARK: - Routing

let setupNeeded = false;
/** sessionStorage: the address a signed-out person opened, to go on to once signed in. */
const AFTER_SIGN_IN = "afterSignIn";

async function route() {
  const path = location.pathname.replace(/\/+$/, "") || "/";

  if (setupNeeded) return show(setupScreen, "Welcome", "/setup");
  // A podcast app's Nextcloud login link (the server redirects it to Settings → Apps), answered
  // with the app by a service worker from before it let such links through.
  const loginFlow = path.match(/^\/index\.php\/login\/v2\/flow\/([A-Za-z0-9_-]{20,100})$/);
  if (loginFlow) return navigate(`/settings?connect=${loginFlow[1]}`, { replace: true });
  if (!session.user) {
    // Where the person was going (a shared page to save, an article's link) is where signing in leads.
    if (!["/", "/login", "/setup", "/password"].includes(path)) sessionStorage.setItem(AFTER_SIGN_IN, location.pathname + location.search);
    return show(loginScreen, "Sign in", "/login");
  }
  if (session.user.mustChangePassword) return show(passwordScreen, "New password", "/password");

  if (path === "/" || path === "/login" || path === "/setup" || path === "/password") {
    const last = localStorage.getItem("lastArea");
    const start = destinations.find((d) => d.path === last) ? last : AREAS[0].path;
    return navigate(start, { replace: true });
  }
  const settingsPath = path === SETTINGS.path || path.startsWith(SETTINGS.path + "/");
  // An area's own pages (/write/<song>) open in that area.
  const area = AREAS.find((a) => a.path === path || (AREA_SCREENS[a.id] && path.startsWith(a.path + "/")));
  if (settingsPath) return show(settingsScreen, SETTINGS.name, SETTINGS.path);
  if (area) {
    localStorage.setItem("lastArea", area.path);
    return show(AREA_SCREENS[area.id] || notFoundScreen, area.name, area.path, area);
  }
  return show(notFoundScreen, "Not found", null, null);
}

let shown = null;

async function show(module, name, path, detail) {
  if (shown && shown.leave) shown.leave();
  shown = module;
  const signed = Boolean(session.user) && !setupNeeded && !session.user.mustChangePassword;
  shell.dataset.signedIn = String(signed);
  tabs.hidden = !signed;
  if (path && !signed && location.pathname !== path) history.replaceState({}, "", path);
  markCurrentTab(path);
  // Listen's players come back (loaded, paused) for whoever is signed in; the mini bars follow the screen.
  if (signed) deck.restore(session.user.id);
  routed(location.pathname, signed);
  title.textContent = name;
  document.title = `${name} · Reverie`;
  screen.replaceChildren();
  screen.dataset.screen = module.id;
  await module.render(screen, session, detail);
  focusScreen();
  announce(`${name}`);
}

/**
 * After a screen change, focus goes where a person starts: the field marked `data-autofocus`
 * (sign-in, setup), else the screen's heading (made focusable without a ring, so a screen reader
 * reads it and Tab goes on from there). Never the whole content area.
 */
function focusScreen() {
  if (screen.contains(document.activeElement) && document.activeElement !== screen) return;  // the screen placed it
  const target = screen.querySelector("[data-autofocus]") || screen.querySelector("h1");
  if (!target) return screen.focus({ preventScroll: true });
  if (!target.matches("input, textarea, select, button, a[href]")) target.setAttribute("tabindex", "-1");
  target.focus({ preventScroll: true });
}

// MARK: - Session

/**
 * Applies the account's theme before the first screen shows, so nothing flashes or disagrees.
 * On page load it applies at once; after signing in it crossfades.
 */
async function loadTheme({ animate }) {
  if (session.user && session.user.mustChangePassword) return;  // nothing else answers until the new password
  try {
    const settings = await api("/api/settings");
    await applyTheme(settings.theme, { animate });
    applyIcon(settings.icon);
  } catch {
    // The theme is cosmetic; the app works with the device's remembered theme.
  }
}

async function signedIn(user) {
  if (!session.user || session.user.id !== user.id) await forgetSavedAnswers();
  // Downloads are the person's own: another person signing in on this device finds none.
  await downloads.signedIn(user.id);
  session.user = user;
  setupNeeded = false;
  await loadTheme({ animate: true });  // the settings, through the worker
  rememberForOfflineStart(["/api/setup", "/api/auth/me"]);
  const next = sessionStorage.getItem(AFTER_SIGN_IN);
  sessionStorage.removeItem(AFTER_SIGN_IN);
  navigate(next && next.startsWith("/") && !next.startsWith("//") ? next : "/", { replace: true });
}

/** Signed out: by the person (`onPurpose`, from Settings), or because the session ended. Only
 *  the person's own sign-out takes their downloads off the device: an expired session keeps them
 *  for when they sign in again. */
async function signedOut({ onPurpose = false } = {}) {
  session.user = null;
  deck.signOut();
  await forgetSavedAnswers();
  if (onPurpose) await downloads.signedOut();
  navigate("/login", { replace: true });
}

// MARK: - Offline

const offlineNote = document.getElementById("offline-note");

/** Says when the app shows this device's copy because the server cannot be reached. */
function showConnection({ online, savedAt }) {
  shell.dataset.offline = String(!online);
  offlineNote.hidden = online;
  if (online) return;
  const when = savedAt ? new Date(savedAt) : null;
  const time = when ? when.toLocaleString(undefined, { weekday: "short", hour: "numeric", minute: "2-digit" }) : null;
  offlineNote.querySelector("span").textContent = time
    ? `Offline. Showing what this device saved ${time}; it may be out of date. What you do now is kept here and sent when the server is back.`
    : "Offline. What you do now is kept on this device and sent when the server is back.";
}

window.addEventListener("reverie:connection", (event) => {
  showConnection(event.detail);
  if (event.detail.online && wasOffline) {
    wasOffline = false;
    recheckSession();
  }
  if (!event.detail.online) wasOffline = true;
});
let wasOffline = false;

/** Back online: make sure the account is still signed in (it may have been signed out meanwhile). */
async function recheckSession() {
  if (!session.user) return;
  try {
    const me = (await api("/api/auth/me")).user;
    if (me.mustChangePassword !== session.user.mustChangePassword) {
      session.user = me;
      route();
    }
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) signedOut();
  }
}

/** While offline, asks the server now and then (and when the device says it is online). */
async function probe() {
  if (connection.online) return;
  try {
    await api("/api/setup");
  } catch {
    // still offline
  }
}
setInterval(probe, 20000);
window.addEventListener("online", probe);

async function start() {
  renderTabs();
  try {
    const status = await api("/api/setup");
    setupNeeded = status.needsSetup;
    if (!connection.online && setupNeeded) {
      throw new ApiError(0, "offline", "Reverie's server cannot be reached. Check your connection and try again.");
    }
    if (!setupNeeded) {
      try {
        session.user = (await api("/api/auth/me")).user;
      } catch (error) {
        if (!(error instanceof ApiError) || error.status !== 401) throw error;
        await forgetSavedAnswers();
      }
    }
    if (session.user) await loadTheme({ animate: false });
    await route();
  } catch (error) {
    screen.innerHTML = "";
    const box = document.createElement("div");
    box.className = "empty-state";
    box.innerHTML = `<h1>Reverie cannot start</h1><p></p><button class="button primary" type="button">Try again</button>`;
    box.querySelector("p").textContent = error.status === 0 && window.isSecureContext
      ? `${error.message} This device has no saved copy to open yet: sign in once while connected, and Reverie opens offline after that.`
      : error.message;
    // On an address that is not secure there is no saved copy to promise: no service worker.
    if (error.status === 0) box.querySelector("p").insertAdjacentHTML("afterend", secureContextNotice("open Reverie offline"));
    box.querySelector("button").addEventListener("click", start);
    screen.append(box);
  }
}

if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js").catch(() => {});
  navigator.serviceWorker.addEventListener("controllerchange", () => rememberForOfflineStart(["/api/setup", "/api/auth/me", "/api/settings"]));
}

/**
 * Asks again, through the service worker, what the app asks when it starts, so the next start
 * without a network finds who was signed in: after signing in (the start's answers said nobody
 * was), and when a worker first takes over (the start's answers went past it).
 */
function rememberForOfflineStart(paths) {
  if (!session.user || session.user.mustChangePassword || !navigator.serviceWorker || !navigator.serviceWorker.controller) return;
  for (const path of paths) api(path).catch(() => null);
}

start();
