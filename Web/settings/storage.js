// Settings → Storage (issue 34): what this device keeps for offline, by area and by download,
// beside what the browser says Reverie uses of what it allows; each download removable (with
// Undo); whether the browser keeps the data until the person removes it; and the podcast rules
// that keep the device from filling up: remove an episode once played, keep the latest N.

import { announce, escapeHTML, fileSize, insecureSentence } from "../dom.js";
import { AREAS, downloads } from "../player/downloads.js";
import { podcastRules, setPodcastRules } from "../listen/podcast-rules.js";

export function storageSectionHTML() {
  return `
    <section class="card storage" aria-labelledby="storage-heading">
      <h2 id="storage-heading">Storage</h2>
      <p data-storage-summary role="status">Reading what this device keeps…</p>
      <p class="hint" data-storage-persist></p>
      <div data-storage-areas></div>
      <h3 class="storage-subheading">Podcast downloads</h3>
      <div class="switch-row">
        <label for="storage-played"><strong>Remove an episode from this device once it is played</strong></label>
        <input id="storage-played" type="checkbox" data-storage-played>
      </div>
      <label class="field" for="storage-latest">Keep on this device, per podcast
        <select id="storage-latest" data-storage-latest>
          <option value="0">Every episode I download</option>
          <option value="1">The latest episode</option>
          <option value="3">The latest 3 episodes</option>
          <option value="5">The latest 5 episodes</option>
          <option value="10">The latest 10 episodes</option>
        </select>
      </label>
    </section>`;
}

export function wireStorage(container) {
  const section = container.querySelector(".storage");
  if (!section) return;
  const rules = podcastRules();
  const played = section.querySelector("[data-storage-played]");
  const latest = section.querySelector("[data-storage-latest]");
  played.checked = rules.removeAfterPlayed;
  latest.value = String(rules.keepLatest);
  played.addEventListener("change", () => {
    setPodcastRules({ removeAfterPlayed: played.checked });
    announce(played.checked ? "Played episodes will be removed from this device." : "Played episodes stay on this device.");
  });
  latest.addEventListener("change", async () => {
    const removed = await setPodcastRules({ keepLatest: Number(latest.value) });
    announce(removed ? `Removed ${removed} older episode${removed === 1 ? "" : "s"} from this device.` : "Saved.");
  });

  const paint = async () => {
    if (!section.isConnected) { downloads.removeEventListener("change", paint); return; }
    const { all, areas } = downloads.usage();
    const estimate = navigator.storage?.estimate ? await navigator.storage.estimate().catch(() => null) : null;
    const summary = section.querySelector("[data-storage-summary]");
    summary.textContent = estimate?.quota
      ? `Downloads on this device: ${fileSize(all)}. Reverie uses ${fileSize(estimate.usage)} of the ${fileSize(estimate.quota)} this browser allows it.`
      : `Downloads on this device: ${fileSize(all)}.`;
    summary.dataset.usage = String(estimate?.usage ?? "");
    summary.dataset.downloads = String(all);
    const persisted = navigator.storage?.persisted ? await navigator.storage.persisted().catch(() => false) : false;
    const persist = section.querySelector("[data-storage-persist]");
    persist.innerHTML = persisted
      ? "The browser keeps these downloads until you remove them."
      : `The browser may clear downloads when the device runs low on space. <button class="button small" type="button" data-persist>Ask to keep them</button>`;
    persist.querySelector("[data-persist]")?.addEventListener("click", async () => {
      const granted = await navigator.storage.persist().catch(() => false);
      announce(granted ? "The browser will keep Reverie's downloads." : "The browser did not agree; it decides by how much you use Reverie.");
      paint();
    });
    const list = downloads.list();
    const box = section.querySelector("[data-storage-areas]");
    if (!window.isSecureContext) {
      box.innerHTML = `<p class="storage-empty">${escapeHTML(insecureSentence("keep downloads for offline"))}</p>`;
      return;
    }
    if (!list.length) {
      box.innerHTML = `<p class="storage-empty">Nothing downloaded yet. Choose <strong>Download for offline</strong> on a Wind Down item (in its player), a book, an episode, a LibriVox book, an article or a Meditate session, and it plays on this device with no network.</p>`;
      return;
    }
    box.innerHTML = AREAS.filter((area) => list.some((record) => record.area === area.id)).map((area) => `
      <section class="storage-area" aria-labelledby="storage-${area.id}">
        <h3 id="storage-${area.id}" class="storage-area-head"><span>${escapeHTML(area.name)}</span> <span class="storage-size" data-area-size="${area.id}">${fileSize(areas[area.id] || 0)}</span></h3>
        <ul class="storage-items">
          ${list.filter((record) => record.area === area.id).map((record) => row(record)).join("")}
        </ul>
      </section>`).join("");
  };
  const row = (record) => {
    const state = downloads.isRemoving(record.key) ? "Removed"
      : record.status === "ready" ? fileSize(record.received)
        : record.status === "failed" ? "Failed"
          : `${record.status === "waiting" ? "Waiting" : "Downloading"} ${record.total ? Math.floor((record.received / record.total) * 100) : 0}%`;
    const action = downloads.isRemoving(record.key)
      ? `<button class="button small" type="button" data-undo="${escapeHTML(record.key)}">Undo</button>`
      : `<button class="button small" type="button" data-remove="${escapeHTML(record.key)}" aria-label="Remove ${escapeHTML(record.title)} from this device">Remove</button>`;
    return `<li class="storage-item" data-key="${escapeHTML(record.key)}"><span class="storage-title">${escapeHTML(record.title)}</span> <span class="storage-size">${state}</span> ${action}</li>`;
  };
  section.addEventListener("click", (event) => {
    const remove = event.target.closest("[data-remove]");
    const undo = event.target.closest("[data-undo]");
    if (remove) {
      const record = downloads.get(remove.dataset.remove);
      downloads.removeLater(remove.dataset.remove);
      announce(`“${record?.title ?? "The download"}” removed from this device.`);
      section.querySelector(`[data-undo="${CSS.escape(remove.dataset.remove)}"]`)?.focus();
    } else if (undo) {
      downloads.undoRemove(undo.dataset.undo);
      announce("Kept on this device.");
    }
  });
  downloads.addEventListener("change", paint);
  downloads.ready().then(paint);
}
