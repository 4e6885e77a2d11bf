// The mini bars: one for each of Listen's players that has something loaded, above the tab bar on
// every screen (not on the now-playing view itself, nor under a full-screen player). Each shows
// what plays and how far, with its own play/pause; tapping it opens the now-playing view. Above
// them, when the sleep timer stopped them, when it did.

import { PAUSE_ICON as PAUSE, PLAY_ICON as PLAY } from "../areas.js";
import { trackCover } from "../cover.js";
import { escapeHTML } from "../dom.js";
import { CHANNEL_NAMES as NAMES, deck } from "./deck.js";

let dock = null;
let visible = false;

/** Puts the dock in `element`; `route` is told which path shows now. */
export function mountDock(element) {
  dock = element;
  deck.addEventListener("change", paint);
  for (const channel of deck.channels) channel.addEventListener("time", paintTimes);
  new ResizeObserver(measure).observe(dock);
  paint();
}

/** Called on every screen change: the dock shows when signed in and not on the now-playing view. */
export function routed(path, signedIn) {
  visible = signedIn && !/^\/listen\/playing\/?$/.test(path);
  paint();
}

function measure() {
  const height = Math.ceil(dock.getBoundingClientRect().height);
  document.documentElement.style.setProperty("--dock-height", `${height}px`);
}

function paint() {
  if (!dock) return;
  const channels = [deck.speech, deck.music].filter((channel) => channel.loaded);
  dock.hidden = !visible || !channels.length;
  const key = channels.map((channel) => `${channel.kind}:${channel.track.id}:${channel.track.artwork}`).join("|");
  if (dock.dataset.key !== key) {
    dock.dataset.key = key;
    dock.innerHTML = `<p class="dock-notice" role="status" data-dock-notice hidden></p>` + channels.map((channel) => {
      const track = channel.track;
      const art = trackCover(track, "mini-art");
      const sub = [NAMES[channel.kind], channel.kind === "speech" ? track.album : track.artist].filter(Boolean).map(escapeHTML).join(" · ");
      return `
        <div class="mini" data-channel="${channel.kind}">
          <a class="mini-open" href="/listen/playing" data-link aria-label="${NAMES[channel.kind]}: ${escapeHTML(track.title)}. Open now playing">
            ${art}<span class="mini-text"><span class="mini-title">${escapeHTML(track.title)}</span><span class="mini-sub">${sub}</span></span>
          </a>
          <button class="icon-button mini-play" type="button" data-toggle="${channel.kind}">
            <svg class="icon" viewBox="0 0 24 24" width="26" height="26" aria-hidden="true"><path d="${PLAY}"/></svg>
          </button>
          <span class="mini-bar" aria-hidden="true"><span></span></span>
        </div>`;
    }).join("");
    for (const button of dock.querySelectorAll("[data-toggle]")) {
      button.addEventListener("click", () => deck[button.dataset.toggle].toggle());
    }
  }
  for (const channel of channels) {
    const button = dock.querySelector(`[data-toggle="${channel.kind}"]`);
    const playing = channel.playing;
    button.setAttribute("aria-label", `${playing ? "Pause" : "Play"} ${NAMES[channel.kind].toLowerCase()}: ${channel.track.title}`);
    button.querySelector("path").setAttribute("d", playing ? PAUSE : PLAY);
  }
  // The sleep timer stopped them: said here too, on whatever screen the person wakes to.
  const notice = dock.querySelector("[data-dock-notice]");
  notice.textContent = deck.notice ?? "";
  notice.hidden = !deck.notice;
  paintTimes();
  measure();
}

function paintTimes() {
  if (!dock || dock.hidden) return;
  for (const channel of deck.channels) {
    const bar = dock.querySelector(`[data-channel="${channel.kind}"] .mini-bar span`);
    if (bar && channel.loaded) bar.style.width = `${channel.length ? Math.min(100, (channel.offset / channel.length) * 100) : 0}%`;
  }
}
