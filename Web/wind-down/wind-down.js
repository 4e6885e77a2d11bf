// Wind Down: the sleep library. A moon and the greeting, Featured Tonight, Continue Listening,
// then a row of cards per kind; Coming Soon items show their badge, a toast and a detail view.
// Playing opens Wind Down's full-screen player (./player.js), which plays through the core (Web/player/).

import { api, ApiError } from "../api.js";
import { AREAS, PLAY_ICON, icon } from "../areas.js";
import { announce, escapeHTML, timeZone } from "../dom.js";
import { player } from "./player.js";
import { length } from "../player/time.js";
import { downloadHTML, wireDownload } from "../player/download-button.js";
import { itemKey } from "../item-key.js";

export const id = "wind-down";

const COMING_SOON_MESSAGE = "This content is coming soon! We're working on bringing you amazing sleep stories.";
const MOON = AREAS.find((area) => area.id === "wind-down").icon;

/** Icons for the six kinds, our own strokes on a 24×24 grid (the catalog names them). */
export const TYPE_ICONS = {
  lotus: "M12 20c-4 0-8-2-9-6 3-1 6 0 9 3 3-3 6-4 9-3-1 4-5 6-9 6Zm0-3c-2-2-3-5-2-9 1-2 1.5-3 2-4 .5 1 1 2 2 4 1 4 0 7-2 9Z",
  book: "M6 3h11a1 1 0 0 1 1 1v16H7a2 2 0 0 1-2-2V5a2 2 0 0 1 1-2Zm-1 15a2 2 0 0 1 2-2h11",
  sparkles: "M10 3l1.6 4.4L16 9l-4.4 1.6L10 15l-1.6-4.4L4 9l4.4-1.6ZM18 14l.8 2.2L21 17l-2.2.8L18 20l-.8-2.2L15 17l2.2-.8Z",
  lungs: "M12 3v8m0 0-3 2m3-2 3 2M8.5 7C6 7 4 11 4 16c0 2 1 3 2.5 3S9 18 9 16v-5.5M15.5 7C18 7 20 11 20 16c0 2-1 3-2.5 3S15 18 15 16v-5.5",
  head: "M14 21v-3h2a2 2 0 0 0 2-2v-3l2-1-2-3a7 7 0 1 0-11 5v7M11 7a2 2 0 0 1 3 2 2 2 0 0 1-2 2",
  "heart-text": "M12 19s-7-4.3-7-9a4 4 0 0 1 7-2.6A4 4 0 0 1 19 10c0 4.7-7 9-7 9Z",
  moon: "M20 14.5A8.5 8.5 0 0 1 9.5 4a8.5 8.5 0 1 0 10.5 10.5Z",
};

/** What a card says it is: a breathing exercise's pattern (4-7-8), a story's category. */
function cardKind(item) {
  if (item.technique) {
    const counts = item.technique.match(/\d+/g);
    if (counts) return { shown: counts.join("-"), spoken: `pattern ${counts.join(", ")}` };
  }
  if (item.category) return { shown: item.category, spoken: item.category };
  return null;
}

/** The About control's shape: an i in a circle. */
const ABOUT_ICON = "M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18ZM12 11v5M12 8h.01";

function typeIcon(name) {
  return TYPE_ICONS[name] || TYPE_ICONS.moon;
}

/** Colours and widths come from data (the content security policy keeps style attributes out). */
function paintColors(root) {
  for (const element of root.querySelectorAll("[data-color]")) element.style.setProperty("--type-color", element.dataset.color);
  for (const element of root.querySelectorAll("[data-width]")) element.style.width = `${element.dataset.width}%`;
}

let current = null;

export async function render(container, session) {
  leave();
  current = new WindDownScreen(container, session);
  await current.load();
}

export function leave() {
  if (player.isOpen) player.close();
  current = null;
}

class WindDownScreen {
  constructor(container, session) {
    this.container = container;
    this.session = session;
    this.types = {};
    this.entries = {};
  }

  async load() {
    this.container.innerHTML = `<p class="loading" role="status">Loading the library…</p>`;
    let home;
    try {
      home = await api(`/api/winddown?timeZone=${encodeURIComponent(timeZone())}`);
    } catch (error) {
      this.container.innerHTML = `
        <div class="empty-state">
          <p role="alert">${escapeHTML(error instanceof ApiError ? error.message : "The library could not be loaded.")}</p>
          <button class="button" type="button" data-retry>Try again</button>
        </div>`;
      this.container.querySelector("[data-retry]").addEventListener("click", () => this.load());
      return;
    }
    if (current !== this) return;
    this.home = home;
    for (const section of home.sections) {
      this.types[section.type] = section;
      for (const entry of section.items) this.entries[entry.item.id] = entry;
    }
    this.paint();
  }

  paint() {
    const home = this.home;
    const featured = home.featured;
    const row = (entries) => `<div class="wd-row" role="list">${entries.map((entry) => this.card(entry)).join("")}</div>`;
    this.container.innerHTML = `
      <div class="wind-down">
        <header class="wd-header">
          <span class="wd-moon">${icon(MOON, 28)}</span>
          ${home.greeting === "Wind Down"
            ? `<h1 class="wd-greeting page-title" tabindex="-1">Wind Down</h1>`
            : `<div><h1 class="wd-title page-title" tabindex="-1">Wind Down</h1><p class="wd-greeting">${escapeHTML(home.greeting)}</p></div>`}
        </header>
        ${featured ? this.featuredCard(featured) : ""}
        ${home.continueListening.length ? `
          <section class="wd-section" aria-labelledby="wd-continue">
            <h3 id="wd-continue">Continue Listening</h3>
            ${row(home.continueListening)}
          </section>` : ""}
        ${home.sections.map((section) => `
          <section class="wd-section" aria-labelledby="wd-${section.type}">
            <h3 id="wd-${section.type}" data-color="${section.color}">${escapeHTML(section.title)}</h3>
            ${row(section.items)}
          </section>`).join("")}
        <div class="toast wd-toast" role="status" hidden></div>
      </div>`;
    paintColors(this.container);
    for (const button of this.container.querySelectorAll("[data-item]")) {
      button.addEventListener("click", () => this.choose(button.dataset.item));
    }
    // One tap plays; the small second control opens what the item is.
    for (const button of this.container.querySelectorAll("[data-about]")) {
      button.addEventListener("click", () => { const entry = this.entries[button.dataset.about]; if (entry) this.detail(entry); });
    }
  }

  section(entry) {
    return this.types[entry.item.type];
  }

  featuredCard(entry) {
    const section = this.section(entry);
    return `
      <section class="wd-featured" aria-labelledby="wd-featured-title" data-color="${section.color}">
        <p class="wd-eyebrow">Featured Tonight</p>
        <h3 id="wd-featured-title">${escapeHTML(entry.item.title)}</h3>
        <p class="wd-featured-description">${escapeHTML(entry.item.description)}</p>
        <p class="wd-meta">${escapeHTML(entry.item.narrator)} · ${length(entry.item.duration)}</p>
        <button class="button primary wd-featured-play" type="button" data-item="${escapeHTML(entry.item.id)}">
          ${icon(PLAY_ICON, 20)} <span>${entry.progress > 0 && entry.progress < 0.95 ? "Continue" : "Play"}</span>
        </button>
      </section>`;
  }

  card(entry) {
    const { item } = entry;
    const section = this.section(entry);
    const progress = entry.progress > 0 ? `<span class="wd-progress" aria-label="${Math.round(entry.progress * 100)}% heard"><span data-width="${Math.min(100, entry.progress * 100).toFixed(1)}"></span></span>` : "";
    const badge = entry.comingSoon ? `<span class="wd-badge">Coming Soon</span>` : "";
    const kind = cardKind(item);
    const label = `${item.title}${kind ? `, ${kind.spoken}` : ""}, ${item.narrator}, ${length(item.duration)}${entry.comingSoon ? ", coming soon" : ""}${entry.progress > 0 ? `, ${Math.round(entry.progress * 100)}% heard` : ""}`;
    return `
      <div role="listitem" class="wd-card-box">
        <button class="wd-card${entry.comingSoon ? " coming-soon" : ""}" type="button" data-item="${escapeHTML(item.id)}"
                data-color="${section.color}" aria-label="${escapeHTML(label)}">
          <span class="wd-card-icon">${icon(typeIcon(section.icon), 22)}</span>
          <span class="wd-card-title">${escapeHTML(item.title)}</span>
          <span class="wd-card-meta">${kind ? `<span class="wd-card-kind">${escapeHTML(kind.shown)}</span> · ` : ""}${length(item.duration)}</span>
          <span class="wd-card-narrator">${escapeHTML(item.narrator)}</span>
          ${progress}
          ${badge}
        </button>
        <button class="icon-button wd-about" type="button" data-about="${escapeHTML(item.id)}" aria-label="About ${escapeHTML(item.title)}"
                data-color="${section.color}">${icon(ABOUT_ICON, 18)}</button>
      </div>`;
  }

  toast(text) {
    const toast = this.container.querySelector(".wd-toast");
    if (!toast) return;
    toast.textContent = text;
    toast.hidden = false;
    clearTimeout(this.toastTimer);
    this.toastTimer = setTimeout(() => { toast.hidden = true; }, 2500);
  }

  choose(id) {
    const entry = this.entries[id];
    if (!entry) return;
    if (entry.comingSoon) {
      this.toast(`“${entry.item.title}” is coming soon.`);
      this.detail(entry);
      return;
    }
    if (entry.audio.state === "preparing") {
      this.toast(`“${entry.item.title}” is being prepared. It will be ready in a minute or two.`);
      return;
    }
    if (entry.audio.state === "failed") {
      this.toast(`“${entry.item.title}” could not be made: ${entry.audio.detail || "unknown error"}`);
      return;
    }
    this.play(entry);
  }

  play(entry) {
    const section = this.section(entry);
    const opener = document.activeElement;
    player.open({
      item: itemKey("winddown", entry.item.id),
      title: entry.item.title,
      narrator: entry.item.narrator,
      duration: entry.item.duration,
      color: section.color,
      icon: typeIcon(section.icon),
      album: `Wind Down · ${section.title}`,
      src: entry.audio.url,
      position: entry.position ?? null,
      // Spoken as it plays (its first play): the bar under the slider follows how much exists.
      live: entry.audio.state === "speaking" ? {
        made: entry.audio.made || 0,
        follow: async () => {
          const now = await api(`/api/winddown/${encodeURIComponent(entry.item.id)}`);
          return { made: now.audio.made ?? 0, state: now.audio.state, url: now.audio.url };
        },
      } : null,
      // A download is of the whole file, once it is made.
      download: entry.audio.state === "ready" ? { key: itemKey("winddown", entry.item.id), describe: () => this.downloadSpec(entry) } : null,
      autoplay: true,
      onClose: async () => {
        await this.load();
        const again = this.container.querySelector(`[data-item="${CSS.escape(entry.item.id)}"]`);
        (again || opener)?.focus?.();
      },
    });
  }

  /** What Download for offline keeps of an item: its audio file. */
  downloadSpec(entry) {
    return { area: "winddown", title: entry.item.title, files: [{ url: entry.audio.url, type: "audio/mp4" }], meta: { duration: entry.item.duration } };
  }

  /** An item's detail: description, technique, Play (disabled with the seed's message when it is
   *  Coming Soon) and Download for offline. The owner can give the item audio here: upload a file
   *  or write a script. */
  detail(entry) {
    const section = this.section(entry);
    const owner = this.session?.user?.isOwner;
    const dialog = document.createElement("dialog");
    dialog.className = "dialog wd-detail";
    dialog.style.setProperty("--type-color", section.color);
    dialog.innerHTML = `
      <form method="dialog">
        <p class="wd-eyebrow">${escapeHTML(section.title)}${entry.item.category ? ` · ${escapeHTML(entry.item.category)}` : ""}</p>
        <h2>${escapeHTML(entry.item.title)}</h2>
        <p class="wd-meta">${escapeHTML(entry.item.narrator)} · ${length(entry.item.duration)}</p>
        <p>${escapeHTML(entry.item.description)}</p>
        ${entry.item.technique ? `<p class="wd-technique"><strong>Technique:</strong> ${escapeHTML(entry.item.technique)}</p>` : ""}
        ${entry.comingSoon
          ? `<p class="wd-coming-message" role="note">${escapeHTML(COMING_SOON_MESSAGE)}</p>
             <button class="button primary wide" type="button" disabled aria-disabled="true">${icon(PLAY_ICON, 18)} Play</button>`
          : `<button class="button primary wide" type="button" data-detail-play>${icon(PLAY_ICON, 18)} ${entry.progress > 0 && entry.progress < 0.95 ? "Continue" : "Play"}</button>
             ${entry.audio.state === "ready" ? `<p class="wd-detail-download">${downloadHTML({ small: true })}</p>` : ""}`}
        ${owner ? `
          <details class="wd-owner">
            <summary>Give it audio (owner)</summary>
            <label class="field">An audio file (MP3, M4A, Ogg or WAV)
              <input type="file" accept="audio/mpeg,audio/mp4,audio/x-m4a,audio/ogg,audio/wav,audio/x-wav,.mp3,.m4a,.ogg,.oga,.wav">
            </label>
            <button class="button" type="button" data-upload>Upload and level to −16 LUFS</button>
            <label class="field">Or a script with pauses, like “Breathe in. (4s)”
              <textarea rows="5" data-script></textarea>
            </label>
            <button class="button" type="button" data-speak>Speak it over the sleep bed</button>
            ${entry.audio.source === "bundled" ? `<button class="button" type="button" data-remove>Take its audio away (Coming Soon)</button>` : ""}
            ${["removed", "upload", "script"].includes(entry.audio.source) ? `<button class="button" type="button" data-restore>Back to Reverie's own audio</button>` : ""}
            <p class="wd-owner-status" role="status"></p>
          </details>` : ""}
        <div class="dialog-actions"><button class="button" value="close">Close</button></div>
      </form>`;
    document.body.append(dialog);
    dialog.showModal();
    dialog.querySelector('button[value="close"]').focus();
    dialog.addEventListener("close", () => dialog.remove());
    dialog.querySelector("[data-detail-play]")?.addEventListener("click", () => { dialog.close(); this.choose(entry.item.id); });
    if (!entry.comingSoon && entry.audio.state === "ready") wireDownload(dialog, itemKey("winddown", entry.item.id), () => this.downloadSpec(entry));
    if (owner) this.wireOwner(dialog, entry);
  }

  wireOwner(dialog, entry) {
    const status = dialog.querySelector(".wd-owner-status");
    const done = async (message) => {
      announce(message);
      dialog.close();
      await this.load();
      this.toast(message);
    };
    dialog.querySelector("[data-upload]").addEventListener("click", async () => {
      const file = dialog.querySelector('input[type="file"]').files[0];
      if (!file) { status.textContent = "Choose a file first."; return; }
      status.textContent = `Uploading and levelling “${file.name}”… an hour of audio takes about a minute.`;
      try {
        const response = await fetch(`/api/winddown/${encodeURIComponent(entry.item.id)}/audio`, {
          method: "PUT", credentials: "same-origin", body: file,
          headers: { "Content-Type": file.type || "application/octet-stream", "X-File-Name": encodeURIComponent(file.name).slice(0, 200) },
        });
        const body = await response.json().catch(() => null);
        if (!response.ok) throw new Error(body?.error?.message || `The upload failed (${response.status}).`);
        // Levelled in the background (202, preparing): ready in about a minute an hour of audio.
        await done(body?.audio?.state === "ready" ? `“${entry.item.title}” now plays your file.`
          : `“${entry.item.title}” is being levelled; it plays your file in a minute or two.`);
      } catch (error) {
        status.textContent = error.message;
      }
    });
    // The owner's change of the item's audio: taken away (Coming Soon), or back to the catalog's.
    const change = (selector, method, path, message) => dialog.querySelector(selector)?.addEventListener("click", async () => {
      try {
        await api(`/api/winddown/${encodeURIComponent(entry.item.id)}/${path}`, { method });
        await done(message);
      } catch (error) {
        status.textContent = error.message;
      }
    });
    change("[data-remove]", "PUT", "removed", `“${entry.item.title}” is Coming Soon now; “Back to Reverie's own audio” in its details brings it back.`);
    change("[data-restore]", "DELETE", "audio", `“${entry.item.title}” plays Reverie's own audio again.`);
    dialog.querySelector("[data-speak]").addEventListener("click", async () => {
      const script = dialog.querySelector("[data-script]").value;
      if (!script.trim()) { status.textContent = "Write the script first."; return; }
      try {
        await api(`/api/winddown/${encodeURIComponent(entry.item.id)}/script`, { method: "PUT", body: { script } });
        await done(`“${entry.item.title}” is being spoken; it will be ready in a minute or two.`);
      } catch (error) {
        status.textContent = error.message;
      }
    });
  }
}

