// The Download control on everything that plays (issue 34): Download; then its progress with
// Cancel (or "Waiting for the connection" when the network went); then "On this device" with
// Remove. Removing waits out an Undo of a few seconds before the files go.

import { announce, escapeHTML, insecureSentence } from "../dom.js";
import { downloads } from "./downloads.js";

/** The MIME type of an audio format as the API names it (mp3, m4a, m4b, ogg, wav, flac). */
export function mimeOf(format) {
  return { mp3: "audio/mpeg", m4a: "audio/mp4", m4b: "audio/mp4", aac: "audio/aac", ogg: "audio/ogg", opus: "audio/ogg", wav: "audio/wav", flac: "audio/flac" }[String(format || "").toLowerCase()] || "audio/mpeg";
}

/** What a download waiting says: the device offline, or the server not answering. */
function waitingWords(share) {
  return `${navigator.onLine ? "Waiting for the server" : "Waiting for the connection"} · ${share}%`;
}

/** The control's place in a page; `wireDownload` fills it. */
export function downloadHTML({ small = false } = {}) {
  return `<span class="download-box${small ? " small" : ""}" data-download-box></span>`;
}

/**
 * Wires the control `downloadHTML` drew in `root` for the download `key`; `describe(progress)`
 * answers (or resolves to) { area, title, files: [{ url, type, size }], meta } when Download is
 * pressed, telling `progress(text)` how it goes when that takes a while.
 */
export function wireDownload(root, key, describe) {
  const box = root.querySelector("[data-download-box]");
  if (!box) return () => {};
  const small = box.classList.contains("small") ? " small" : "";
  if (!window.isSecureContext) {
    // No Cache Storage on a plain http address: say why instead of offering what cannot work.
    box.innerHTML = `<span class="download-state">${escapeHTML(insecureSentence("keep downloads for offline"))}</span>`;
    return () => {};
  }
  let shown = null;   // the state painted: a piece arriving updates the bar, not the buttons
  const paint = () => {
    if (!box.isConnected) { stop(); return; }
    const record = downloads.get(key);
    const state = downloads.isRemoving(key) ? "removing" : record ? record.status : "none";
    const bar = box.querySelector("progress");
    if (state === shown && bar && record) {
      const share = record.total ? Math.min(100, Math.floor((record.received / record.total) * 100)) : 0;
      bar.value = share;
      box.querySelector("[data-words]").textContent = record.status === "waiting" ? waitingWords(share) : `Downloading ${share}%`;
      return;
    }
    shown = state;
    if (downloads.isRemoving(key)) {
      box.innerHTML = `<span class="download-state">Removed from this device.</span> <button class="button${small}" type="button" data-undo>Undo</button>`;
    } else if (!record) {
      box.innerHTML = `<button class="button${small}" type="button" data-start>Download for offline</button>`;
    } else if (record.status === "ready") {
      box.innerHTML = `<span class="download-state done">On this device</span> <button class="button${small}" type="button" data-remove>Remove download</button>`;
    } else if (record.status === "failed") {
      box.innerHTML = `<span class="download-state error" role="status">Download failed: ${escapeHTML(record.error || "try again.")}</span>
        <button class="button${small}" type="button" data-retry>Try again</button> <button class="button${small}" type="button" data-cancel>Cancel</button>`;
    } else {
      const share = record.total ? Math.min(100, Math.floor((record.received / record.total) * 100)) : 0;
      const words = record.status === "waiting" ? waitingWords(share) : `Downloading ${share}%`;
      box.innerHTML = `<progress max="100" value="${share}" aria-label="Downloaded"></progress>
        <span class="download-state" data-words>${words}</span> <button class="button${small}" type="button" data-cancel>Cancel</button>`;
    }
  };
  const onChange = (event) => { if (event.detail == null || event.detail === key) paint(); };
  const stop = () => {
    downloads.removeEventListener("change", onChange);
    downloads.removeEventListener("progress", onChange);
  };
  downloads.addEventListener("change", onChange);
  downloads.addEventListener("progress", onChange);
  box.addEventListener("click", async (event) => {
    const button = event.target.closest("button");
    if (!button) return;
    if (button.hasAttribute("data-start")) {
      try {
        // Making what to download can take a while (an article spoken first): said as it goes.
        button.disabled = true;
        const spec = await describe((text) => {
          if (!box.querySelector("[data-preparing]")) box.insertAdjacentHTML("beforeend", `<span class="download-state" role="status" data-preparing></span>`);
          box.querySelector("[data-preparing]").textContent = text;
        });
        const started = downloads.start({ key, ...spec });
        announce(`Downloading “${spec.title}”.`);
        await started;
        if (downloads.has(key)) announce(`“${spec.title}” is on this device.`);
      } catch (error) {
        announce(error.message);
        if (!downloads.get(key)) {
          paint();
          box.insertAdjacentHTML("beforeend", `<span class="download-state error" role="status">${escapeHTML(error.message)}</span>`);
        }
      }
    } else if (button.hasAttribute("data-cancel")) {
      await downloads.remove(key);
      announce("Download cancelled.");
    } else if (button.hasAttribute("data-retry")) {
      downloads.retry(key).catch((error) => announce(error.message));
    } else if (button.hasAttribute("data-remove")) {
      const title = downloads.get(key)?.title ?? "The download";
      downloads.removeLater(key);
      announce(`“${title}” removed from this device.`);
      box.querySelector("[data-undo]")?.focus();
    } else if (button.hasAttribute("data-undo")) {
      downloads.undoRemove(key);
      announce("Kept on this device.");
    }
  });
  downloads.ready().then(paint);
  paint();
  return stop;
}
