// Reverie's web app: start-up, the sign-in gate, the tab bar and the router.

import { api, ApiError } from "./api.js";
import { AREAS, SETTINGS, icon } from "./areas.js";
import { announce } from "./dom.js";
import { applyTheme, rememberedTheme } from "./theme.js";
import * as setupScreen from "./screens/setup.js";
import * as loginScreen from "./screens/login.js";
import * as areaScreen from "./screens/area.js";
import * as settingsScreen from "./screens/settings.js";
import * as meditateScreen from "./screens/meditate.js";
import * as writeScreen from "./screens/write.js";

/** Areas that are built have their own screen; the rest show what is coming. */
const AREA_SCREENS = { meditate: meditateScreen, write: writeScreen };

applyTheme(rememberedTheme());

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

// MARK: - Navigation

const destinations = [...AREAS, SETTINGS];

function renderTabs() {
  tabs.innerHTML = destinations
    .map((d) => `<a href="${d.path}" data-link class="tab" data-area="${d.id}">${icon(d.icon)}<span>${d.name}</span></a>`)
    .join("");
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

async function route() {
  const path = location.pathname.replace(/\/+$/, "") || "/";

  if (setupNeeded) return show(setupScreen, "Welcome", "/setup");
  if (!session.user) return show(loginScreen, "Sign in", "/login");

  if (path === "/" || path === "/login" || path === "/setup") {
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
    return show(AREA_SCREENS[area.id] || areaScreen, area.name, area.path, area);
  }
  return show(areaScreen, "Not found", null, null);
}

let shown = null;

async function show(module, name, path, detail) {
  if (shown && shown.leave) shown.leave();
  shown = module;
  const signed = Boolean(session.user) && !setupNeeded;
  shell.dataset.signedIn = String(signed);
  tabs.hidden = !signed;
  if (path && !signed && location.pathname !== path) history.replaceState({}, "", path);
  markCurrentTab(path);
  title.textContent = name;
  document.title = `${name} · Reverie`;
  screen.replaceChildren();
  screen.dataset.screen = module.id;
  await module.render(screen, session, detail);
  screen.focus({ preventScroll: true });
  announce(`${name}`);
}

// MARK: - Session

/**
 * Applies the account's theme before the first screen shows, so nothing flashes or disagrees.
 * On page load it applies at once; after signing in it crossfades.
 */
async function loadTheme({ animate }) {
  try {
    const settings = await api("/api/settings");
    await applyTheme(settings.theme, { animate });
  } catch {
    // The theme is cosmetic; the app works with the device's remembered theme.
  }
}

async function signedIn(user) {
  session.user = user;
  setupNeeded = false;
  await loadTheme({ animate: true });
  navigate("/", { replace: true });
}

function signedOut() {
  session.user = null;
  navigate("/login", { replace: true });
}

async function start() {
  renderTabs();
  try {
    const status = await api("/api/setup");
    setupNeeded = status.needsSetup;
    if (!setupNeeded) {
      try {
        session.user = (await api("/api/auth/me")).user;
      } catch (error) {
        if (!(error instanceof ApiError) || error.status !== 401) throw error;
      }
    }
    if (session.user) await loadTheme({ animate: false });
    await route();
  } catch (error) {
    screen.innerHTML = "";
    const box = document.createElement("div");
    box.className = "empty-state";
    box.innerHTML = `<h1>Reverie cannot start</h1><p></p><button class="button primary" type="button">Try again</button>`;
    box.querySelector("p").textContent = error.message;
    box.querySelector("button").addEventListener("click", start);
    screen.append(box);
  }
}

if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js").catch(() => {});
}

start();
