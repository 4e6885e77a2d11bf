// The themes (the seed's four, free, and two for Plus), applied to the whole app through CSS
// custom properties on <html>; and the app icon for new installs.

export const THEMES = [
  { id: "RetroFuturistic", name: "Retro Futuristic", note: "Deep night with neon edges. The default.", meta: "#07060f" },
  { id: "PlainLight", name: "Plain Light", note: "Quiet and bright for daytime.", meta: "#f7f7f9" },
  { id: "PlainDark", name: "Plain Dark", note: "True black, easy on OLED screens.", meta: "#000000" },
  { id: "DirtyDishes", name: "Dirty Dishes", note: "Catppuccin Mocha with a lavender accent.", meta: "#1e1e2e" },
  { id: "VelvetHour", name: "Velvet Hour", note: "Deep plum with candle gold.", meta: "#140a1a", premium: true },
  { id: "PaperMoon", name: "Paper Moon", note: "Warm paper and ink for long sessions.", meta: "#f4ecdc", premium: true },
];

export const ICONS = [
  { id: "Classic", name: "Classic", file: "/icons/icon.svg" },
  { id: "Lavender", name: "Lavender", file: "/icons/icon-lavender.svg", premium: true },
  { id: "Sunrise", name: "Sunrise", file: "/icons/icon-sunrise.svg", premium: true },
];

/**
 * Points the favicon and the manifest at the chosen icon, for new installs (an installed app
 * keeps the icon it was installed with until it is installed again).
 */
export function applyIcon(id) {
  const icon = ICONS.find((one) => one.id === id) || ICONS[0];
  localStorage.setItem("icon", icon.id);
  const favicon = document.querySelector('link[rel="icon"]');
  if (favicon) favicon.href = icon.file;
  const manifest = document.querySelector('link[rel="manifest"]');
  if (manifest) manifest.href = icon.id === "Classic" ? "/manifest.webmanifest" : `/manifest.webmanifest?icon=${icon.id}`;
}

export function rememberedIcon() {
  return localStorage.getItem("icon") || "Classic";
}

const STORAGE_KEY = "theme";
const known = new Set(THEMES.map((theme) => theme.id));

/** The theme last used on this device, so the first paint is already right. */
export function rememberedTheme() {
  const stored = localStorage.getItem(STORAGE_KEY);
  return known.has(stored) ? stored : "RetroFuturistic";
}

let current = null;

/** The theme last applied (or being crossfaded to). */
export function currentTheme() {
  return current || rememberedTheme();
}

/**
 * Applies a theme. With `animate`, the change crossfades (skipped when the person prefers
 * reduced motion). Resolves once the page shows the new theme.
 */
export async function applyTheme(id, { animate = false } = {}) {
  if (!known.has(id)) id = "RetroFuturistic";
  current = id;
  localStorage.setItem(STORAGE_KEY, id);
  const root = document.documentElement;
  if (root.dataset.theme === id) return;
  const set = () => {
    root.dataset.theme = id;
    const meta = document.querySelector('meta[name="theme-color"]');
    if (meta) meta.content = THEMES.find((theme) => theme.id === id).meta;
  };
  const reduced = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  if (animate && !reduced && document.startViewTransition) {
    await document.startViewTransition(set).updateCallbackDone;
  } else if (animate && !reduced) {
    root.classList.add("theme-fading");
    set();
    setTimeout(() => root.classList.remove("theme-fading"), 400);
  } else {
    set();
  }
}
