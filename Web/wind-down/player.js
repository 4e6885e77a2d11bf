// The full-screen player that Wind Down (and later Listen and Bedside) opens: title, narrator and
// length on a gradient in the item's colour, a slider, play/pause, back and forward 15 s, close,
// and the sleep timer. Progress is saved on pause, close, page hide and every 15 s; the player
// takes the lock screen (metadata, artwork, handlers, position) when it opens and plays, and
// gives it back when it closes (../player/media-session.js).
//
// It plays through the playback core's transport (../player/transport.js). The sleep timer (its rule in
// ../player/sleep-timer.js) runs on wall-clock time (a hidden page's timers fire late). When one is set,
// the player switches to the server's rendition of the item that ends at the timer with its last
// SLEEP_FADE_SECONDS faded to silence, so the fade reaches the ear even when a locked phone
// suspends this script.

import { PAUSE_ICON, PLAY_ICON } from "../areas.js";
import { announce, escapeHTML, setImmersive } from "../dom.js";
import { SLEEP_FADE_SECONDS, SLEEP_REARM_SECONDS, layFade, sleepTimerClock, sleepTimerLength, sleepTimerResume, offlineFadeNote, timerDialog } from "../player/sleep-timer.js";
import { flush, heardThrough, localPosition, record, serverProgress } from "../player/progress.js";
import { clock } from "../player/time.js";
import { artwork } from "../player/media-session.js";
import { renditionURL } from "../player/rendition.js";
import { NEEDS_TOUCH, Transport } from "../player/transport.js";
import { ElementGraph, elementVolumeWorks } from "../player/volume.js";
import { downloadHTML, wireDownload } from "../player/download-button.js";

export const TIMER_OPTIONS = [15, 30, 45, 60, "end"];
const SAVE_EVERY = 15_000;

/** Where a play goes on from a saved `place`: the start again when the place is the item's end
 *  (heard through: an ended event's place is the item's length), as a finished book starts over
 *  in Listen; null when there is none. */
function goOnFrom(place, duration) {
  if (place == null) return null;
  return heardThrough(place, duration) ? 0 : place;
}

/** Where an End of Content timer's rendition ends: a tenth of a second or two before the item's
 *  end (the server answers the whole file for an end within 0.1 s of it), or null for an item too
 *  short to fade. */
function contentEnd(duration) {
  return duration > SLEEP_FADE_SECONDS + 1 ? Math.floor((duration - 0.2) * 10) / 10 : null;
}

/**
 * One player at a time. `open(options)` shows it:
 * - item: progress key (`winddown:yoga_nidra_10min`)
 * - title, narrator, duration (seconds), color, icon (path), src (audio URL)
 * - position: where the server says this person is (seconds), or null
 * - startAt: a place the person picked (a chapter's start), used instead of any saved place
 * - download: { key, describe } for the Download control (../player/download-button.js)
 * - live: { made, follow() } for audio spoken as it plays (a Wind Down item's first play): the
 *   seconds made so far, and a call that resolves with { made, state, url } as it goes on (the
 *   bar under the slider shows how far the audio exists until it is all made; then the next play,
 *   seek or timer uses the kept file at `url`)
 * - onClose(): called after it closes
 */
export class Player {
  constructor() {
    this.root = null;
    this.transport = null;
    this.timer = null;        // {option, endsAt (ms), mediaEnd (s)}
    this.stopped = null;      // {option, at (ms), position} after a timer ended
    this.saveTimer = null;
    this.tickTimer = null;
    this.claim = null;        // the lock screen's, made with each item's transport
  }

  get isOpen() { return Boolean(this.root); }

  async open(options) {
    this.close({ silent: true });
    // Listen's players pause, and the lock screen is this one's from the start.
    window.dispatchEvent(new Event("reverie:solo-player"));
    this.options = options;
    const { title, narrator, duration, color } = options;
    const root = document.createElement("section");
    root.className = "player";
    root.setAttribute("role", "dialog");
    root.setAttribute("aria-modal", "true");
    root.setAttribute("aria-label", `${title}, player`);
    root.style.setProperty("--type-color", color);
    root.innerHTML = `
      <div class="player-top">
        <button class="icon-button player-close" type="button" aria-label="Close the player">
          <svg class="icon" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true"><path d="M6 9l6 6 6-6"/></svg>
        </button>
        <button class="button small player-timer" type="button" aria-haspopup="dialog">
          <svg class="icon" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true"><path d="M12 21a8 8 0 1 0 0-16 8 8 0 0 0 0 16Zm0-12v4l2.5 2.5M9 2h6"/></svg>
          <span class="player-timer-label">Sleep timer</span>
        </button>
      </div>
      <div class="player-art" aria-hidden="true">
        <svg class="icon" viewBox="0 0 24 24" width="72" height="72"><path d="${options.icon}"/></svg>
      </div>
      <h2 class="player-title">${escapeHTML(title)}</h2>
      <p class="player-narrator">${escapeHTML(narrator)} · <span class="player-length">${clock(duration)}</span></p>
      <p class="player-offer" hidden><button class="button small" type="button"></button></p>
      <p class="player-status" role="status"></p>
      ${options.download ? `<p class="player-download">${downloadHTML({ small: true })}</p>` : ""}
      <div class="player-progress">
        <div class="player-made" hidden><span></span></div>
        <input class="player-slider" type="range" min="0" max="${Math.max(1, Math.round(duration))}" step="1" value="0" aria-label="Position">
        <div class="player-times"><span class="player-elapsed">0:00</span><span class="player-remaining">-${clock(duration)}</span></div>
      </div>
      <div class="player-controls">
        <button class="icon-button player-back" type="button" aria-label="Back 15 seconds">
          <svg class="icon" viewBox="0 0 24 24" width="30" height="30" aria-hidden="true"><path d="M4 12a8 8 0 1 0 2.3-5.7M4 4v4h4"/><text x="12" y="15.5" text-anchor="middle" font-size="7" stroke="none" fill="currentColor">15</text></svg>
        </button>
        <button class="player-play" type="button" aria-label="Play">
          <svg class="icon play-shape" viewBox="0 0 24 24" width="36" height="36" aria-hidden="true"><path d="${PLAY_ICON}"/></svg>
        </button>
        <button class="icon-button player-forward" type="button" aria-label="Forward 15 seconds">
          <svg class="icon" viewBox="0 0 24 24" width="30" height="30" aria-hidden="true"><path d="M20 12a8 8 0 1 1-2.3-5.7M20 4v4h-4"/><text x="12" y="15.5" text-anchor="middle" font-size="7" stroke="none" fill="currentColor">15</text></svg>
        </button>
      </div>
      <audio class="player-audio" preload="auto"></audio>`;
    document.body.append(root);
    setImmersive(true);
    this.root = root;
    this.transport = new Transport({ element: root.querySelector("audio"), name: "wind-down" });
    this.claim = this.claimLockScreen(this.transport);
    this.wire();
    if (options.download) wireDownload(root, options.download.key, options.download.describe);
    if (options.live) this.followLive(options);

    this.transport.load(options.src);
    // One tap plays (`autoplay`): started here, inside the tap (a phone allows sound only from
    // one), from this device's own place or the item's; the server's answer can only add an offer.
    const guess = options.startAt ?? goOnFrom(localPosition(options.item), options.duration) ?? goOnFrom(options.position, options.duration) ?? 0;
    // This play is not told to the server until it has answered where the person is: told
    // first, it would be the latest place, and another device's could no longer be offered.
    this.asking = true;
    if (options.autoplay) {
      this.seekWhenReady(guess);
      this.play();
    }
    // Where to start: this device's own place, else the latest; the server offers another
    // device's place when they are far apart. Offline, this device's last place.
    const server = await serverProgress(options.item);
    if (this.options !== options) return;  // closed, or another item opened, meanwhile
    this.asking = false;
    if (this.transport.playing) this.save("play");
    // A place the person chose (a book's chapter) wins: a saved place is for reopening only.
    const start = options.startAt ?? (server ? (goOnFrom(server.devicePosition, options.duration) ?? (server.finished ? 0 : server.position ?? 0)) : guess);
    if (server?.offer && options.startAt == null) this.offer(server.offer, server.position);
    // Playing already: move only when the server knows this device's place better, and the
    // person has not moved it since.
    if (!options.autoplay) this.seekWhenReady(start);
    else if (Math.abs(start - guess) > 2 && Math.abs(this.position() - guess) < 3) this.seekWhenReady(start);
    root.querySelector(".player-play").focus();
    this.claim.take();
  }

  /** While the audio is spoken as it plays: how much of it exists, every two seconds, until all of it does. */
  async followLive(options) {
    const bar = this.root.querySelector(".player-made");
    const show = (made) => {
      const share = Math.max(0, Math.min(1, made / options.duration));
      bar.hidden = false;
      bar.querySelector("span").style.width = `${(share * 100).toFixed(1)}%`;
      bar.setAttribute("role", "img");
      bar.setAttribute("aria-label", `Being spoken: ${Math.round(share * 100)}% made`);
    };
    show(options.live.made || 0);
    while (this.options === options) {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      if (this.options !== options) return;
      const state = await options.live.follow().catch(() => null);
      if (this.options !== options) return;
      if (!state) continue;   // (offline for a moment: asked again)
      if (state.state === "speaking") { show(state.made); continue; }
      bar.hidden = true;
      // Made: the kept file from the next play or timer on (the live one plays on meanwhile,
      // and a rendition is of the kept file). Taken away or failed: it plays what it has.
      if (state.state === "ready" && state.url) options.src = state.url;
      return;
    }
  }

  offer(text, position) {
    const box = this.root.querySelector(".player-offer");
    const button = box.querySelector("button");
    button.textContent = text;
    box.hidden = false;
    button.addEventListener("click", () => {
      this.seek(position);
      box.hidden = true;
    }, { once: true });
  }

  seekWhenReady(position) {
    this.transport.seek(position);
    this.paint();
  }

  wire() {
    const $ = (selector) => this.root.querySelector(selector);
    $(".player-close").addEventListener("click", () => this.close());
    $(".player-play").addEventListener("click", () => this.toggle());
    $(".player-back").addEventListener("click", () => this.skip(-15));
    $(".player-forward").addEventListener("click", () => this.skip(15));
    $(".player-timer").addEventListener("click", () => (this.timer ? this.cancelTimer() : this.timerSheet()));
    const slider = $(".player-slider");
    slider.addEventListener("input", () => { $(".player-elapsed").textContent = clock(slider.value); });
    slider.addEventListener("change", () => this.seek(Number(slider.value)));
    const transport = this.transport;
    transport.on("timeupdate", () => this.paint());
    transport.on("play", () => { this.claim.take(); this.paint(); if (!this.asking) this.save("play"); });
    transport.on("pause", () => {
      this.paint();
      // A pause the system imposed (a call, another app) is saved like one the person made.
      if (!transport.ended && !this.closing) this.save("pause");
    });
    transport.on("ended", () => {
      // (End of Content's rendition ends with the content, faded: the item was heard to its end.)
      if (this.timer && this.timer.mediaEnd != null && this.timer.option !== "end") { this.timerEnded(); return; }
      this.save("ended");
      this.timer = null;
      this.paintTimer();
    });
    transport.on("error", () => this.status("The audio could not be loaded. Check the connection and try again."));
    this.onKey = (event) => {
      if (event.target.closest("input, textarea, dialog")) return;
      if (event.key === "Escape") this.close();
      else if (event.key === " " && !event.target.closest("button")) { event.preventDefault(); this.toggle(); }
      else if (event.key === "ArrowLeft" && !event.target.closest("input")) this.skip(-15);
      else if (event.key === "ArrowRight" && !event.target.closest("input")) this.skip(15);
    };
    document.addEventListener("keydown", this.onKey);
    this.onHide = () => { if (document.visibilityState === "hidden") this.save("pause", { keepalive: true }); else this.tick(); };
    document.addEventListener("visibilitychange", this.onHide);
    this.onPageHide = () => this.save("pause", { keepalive: true });
    window.addEventListener("pagehide", this.onPageHide);
    this.saveTimer = setInterval(() => { if (transport.playing) this.save("play"); }, SAVE_EVERY);
    this.tickTimer = setInterval(() => this.tick(), 1000);
  }

  position() { return this.transport ? this.transport.position : 0; }

  save(kind, options) {
    if (!this.options) return Promise.resolve();
    return record(this.options.item, kind, this.position(), options);
  }

  toggle() {
    if (!this.transport) return;
    if (this.transport.paused) this.play();
    else this.transport.pause();
  }

  async play() {
    // Play within five minutes of a timer stopping: the same timer again, 30 s back.
    const resumeAt = this.stopped ? sleepTimerResume((Date.now() - this.stopped.at) / 1000, this.stopped.position) : null;
    if (resumeAt != null) {
      const { option } = this.stopped;
      this.stopped = null;
      await this.setTimer(option, { resumeAt });
      return;
    }
    this.stopped = null;
    // The gain a timer's fade left at silence comes back up, within this tap.
    if (!this.timer) this.fadeOnClock(null);
    else this.graph?.context.resume().catch(() => {});
    if (this.timer && this.timer.option !== "end") await this.useRendition();
    // No timer now, but still on a timer's rendition (one that stopped): the whole item, same place.
    else if (!this.timer && !this.transport.holds(this.options.src)) await this.switchSource(this.options.src, this.position());
    const result = await this.transport.play();
    if (result === "needs-touch") this.status(NEEDS_TOUCH);
  }

  skip(seconds) { this.seek(this.position() + seconds); }

  seek(position) {
    const to = this.transport.seek(Math.min(position, this.options.duration - 0.25));
    this.paint();
    this.save("seek");
    // The timer keeps its clock: the rendition from the new place still ends when the timer says.
    if (this.timer && this.timer.option !== "end") this.useRendition(to);
  }

  status(text) {
    if (this.root) this.root.querySelector(".player-status").textContent = text;
  }

  paint() {
    if (!this.root) return;
    const $ = (selector) => this.root.querySelector(selector);
    const duration = this.options.duration;
    const now = this.position();
    const slider = $(".player-slider");
    if (document.activeElement !== slider) slider.value = String(Math.round(now));
    $(".player-elapsed").textContent = clock(now);
    $(".player-remaining").textContent = `-${clock(duration - now)}`;
    const playing = !this.transport.paused;
    const button = $(".player-play");
    button.setAttribute("aria-label", playing ? "Pause" : "Play");
    button.querySelector("path").setAttribute("d", playing ? PAUSE_ICON : PLAY_ICON);
  }

  /** The item's claim on the lock screen, updated by its transport at every play, pause and seek.
   *  Its length is the item's declared one (audio still being spoken knows only what is made so
   *  far), and its play is the player's (a sleep timer's rendition may come first). */
  claimLockScreen(transport) {
    return transport.claim("Player", {
      metadata: () => this.lockScreenMetadata(),
      position: () => (this.options ? { duration: this.options.duration, position: this.position(), playbackRate: transport.rate } : null),
      handlers: {
        play: () => this.play(),
        pause: () => transport.pause(),
        seekbackward: (details) => this.skip(-(details?.seekOffset || 15)),
        seekforward: (details) => this.skip(details?.seekOffset || 15),
        seekto: (details) => this.seek(details.seekTime),
      },
    });
  }

  lockScreenMetadata() {
    if (!this.options) return null;
    const { title, narrator, color, icon, album } = this.options;
    return { title, artist: narrator, album: album || "Reverie", artwork: [{ src: artwork(color, icon), sizes: "512x512", type: "image/svg+xml" }] };
  }

  // MARK: - Sleep timer

  async timerSheet() {
    const value = await timerDialog(TIMER_OPTIONS.map((option) => ({ value: option, label: option === "end" ? "End of Content" : `${option} minutes` })),
      `The sound fades out over ${SLEEP_FADE_SECONDS} seconds, then stops. It fades even with the phone locked.${offlineFadeNote()}`);
    if (value != null) this.setTimer(value === "end" ? "end" : Number(value));
    this.root?.querySelector(".player-timer").focus();
  }

  /** Starts a timer now; `resumeAt` plays from there (the rearm after a stop). */
  async setTimer(option, { resumeAt = null } = {}) {
    // The gentle notification when the timer ends needs the person's leave, asked while they tap.
    if ("Notification" in window && Notification.permission === "default") Notification.requestPermission().catch(() => {});
    const start = resumeAt ?? this.position();
    const duration = this.transport.duration || this.options.duration;
    // A timer longer than what is left is End of Content, and says so.
    if (option !== "end" && option * 60 >= duration - start) option = "end";
    const length = sleepTimerLength(option, start, duration);
    // A minutes timer that ends before the item plays a rendition of it ending at the timer; End
    // of Content one ending at the content's end, faded there.
    const mediaEnd = option === "end" ? contentEnd(duration) : start + length;
    this.timer = { option, endsAt: Date.now() + length * 1000, mediaEnd: option === "end" || mediaEnd < duration - 1 ? mediaEnd : null };
    // "Setting…" until the rendition that holds the timer's fade plays: until then the fade and
    // the stop are not in the audio, and a phone locked now would play on past them (issue 46).
    const timer = this.timer;
    timer.setting = true;
    this.paintTimer();
    await this.useRendition(start);
    if (this.timer === timer) {
      timer.setting = false;
      this.paintTimer();
      announce(option === "end" ? "Sleep timer set: end of content." : `Sleep timer set: ${option} minutes.`);
    }
    if (resumeAt != null) this.seekWhenReady(resumeAt);
    await this.transport.play();
  }

  /** Plays the rendition that ends at the timer (or the plain audio when none is needed). */
  async useRendition(from = this.position()) {
    if (!this.timer) return;
    const remaining = (this.timer.endsAt - Date.now()) / 1000;
    const duration = this.transport.duration || this.options.duration;
    const mediaEnd = this.timer.option === "end" ? contentEnd(duration) : from + remaining;
    this.timer.mediaEnd = mediaEnd != null && (this.timer.option === "end" || mediaEnd < duration - 1) ? mediaEnd : null;
    const src = this.timer.mediaEnd != null ? renditionURL(this.options.src, this.timer.mediaEnd) : this.options.src;
    // (Already playing it, as after a play: nothing to switch, and nothing failed.)
    const call = (this.renditionCalls = (this.renditionCalls || 0) + 1);
    const switched = this.transport.holds(src) || await this.switchSource(src, from);
    if (call !== this.renditionCalls) return;   // a later seek asked for another: that one decides
    if (src === this.options.src || !this.timer) { this.fadeOnClock(this.timer?.option === "end" ? null : this.timer?.endsAt); return; }
    // No rendition to be had (offline, or a download answered whole): the file itself, faded by
    // a gain whose ramp and silence are laid out on the audio clock now, so they happen with no
    // script running (a locked phone).
    const whole = switched && this.transport.duration > this.timer.mediaEnd + 0.5;
    if (!switched) await this.switchSource(this.options.src, from);
    this.fadeOnClock(!switched || whole ? this.timer.endsAt : null);
  }

  /** The sleep timer's fade through Web Audio, ending in silence at `endsAt` (wall ms), or none. */
  fadeOnClock(endsAt) {
    if (endsAt == null && !this.graph) return;
    // Never on an iPhone, whose Web Audio falls silent when the screen locks (issue 46): the file
    // plays on, plainly, and the timer stops it when the page runs again (the sheet says so).
    if (endsAt != null && !elementVolumeWorks()) return;
    if (!this.graph) {
      // On the page's one context (../player/volume.js), which any tap starts again.
      this.graph = ElementGraph.connect(this.transport.element);
      if (!this.graph) return;
    }
    const { context, output: gain } = this.graph;
    context.resume().catch(() => {});
    const now = context.currentTime;
    // (Kept with the player: a play after the timer ended brings the level back up.)
    if (endsAt != null) { layFade(gain.gain, now, endsAt); return; }
    gain.gain.cancelScheduledValues(now);
    gain.gain.setValueAtTime(gain.gain.value, now);
    gain.gain.linearRampToValueAtTime(1, now + 0.1);
  }

  /** The rendition, or the plain audio, from `at` seconds, playing if it was (../player/rendition.js, Listen's too). */
  switchSource(src, at) {
    return this.transport.switchSource(src, { at });
  }

  async cancelTimer() {
    this.timer = null;
    this.paintTimer();
    announce("Sleep timer cancelled.");
    this.fadeOnClock(null);
    await this.switchSource(this.options.src, this.position());
  }

  /** Every second, and when the page shows again: the countdown, and the end by wall clock. */
  tick() {
    if (!this.timer) return;
    if (this.timer.option === "end") {
      // End of Content ends where the content does, in the audio (its rendition fades there and
      // the element's end stops it): never by the wall clock, which a pause or a skip back would
      // have run past before the story's end (issue 46). The countdown is what is left to hear.
      const end = this.timer.mediaEnd ?? (this.transport.duration || this.options.duration);
      this.timer.endsAt = Date.now() + Math.max(0, end - this.position()) / Math.max(this.transport.rate || 1, 0.01) * 1000;
      this.paintTimer();
      return;
    }
    if (Date.now() >= this.timer.endsAt) this.timerEnded();
    else this.paintTimer();
  }

  timerEnded() {
    if (!this.timer) return;
    const { option, endsAt } = this.timer;
    this.timer = null;
    this.transport.pause();
    // Where the sound stopped (the rendition's end when the page wakes late), and when: the
    // timer's own time, not the moment this script ran again.
    const position = this.position();
    const at = Math.min(Date.now(), endsAt);
    this.stopped = { option, at, position };
    this.save("timer");
    this.paintTimer();
    const time = new Date(at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    this.status(`The sleep timer stopped playback at ${time}. Play within ${SLEEP_REARM_SECONDS / 60} minutes to go on from ${SLEEP_FADE_SECONDS} seconds back.`);
    if ("Notification" in window && Notification.permission === "granted") {
      try { new Notification("Reverie", { body: `Sleep timer ended: “${this.options.title}” is paused. Sleep well.`, silent: true }); } catch { /* not from a page here */ }
    }
  }

  paintTimer() {
    if (!this.root) return;
    const label = this.root.querySelector(".player-timer-label");
    const button = this.root.querySelector(".player-timer");
    if (!this.timer) {
      label.textContent = "Sleep timer";
      button.setAttribute("aria-pressed", "false");
      return;
    }
    const left = Math.max(0, (this.timer.endsAt - Date.now()) / 1000);
    label.textContent = this.timer.setting ? "Setting…" : `${sleepTimerClock(left)} remaining`;
    button.setAttribute("aria-pressed", "true");
    button.setAttribute("aria-label", this.timer.setting ? "Setting the sleep timer… Tap to cancel."
      : `Sleep timer: ${sleepTimerClock(left)} remaining. Tap to cancel.`);
  }

  // MARK: - Closing

  close({ silent = false } = {}) {
    if (!this.root) return;
    if (!silent) this.save("pause");
    this.closing = true;
    this.transport.unload();
    this.closing = false;
    clearInterval(this.saveTimer);
    clearInterval(this.tickTimer);
    document.removeEventListener("keydown", this.onKey);
    document.removeEventListener("visibilitychange", this.onHide);
    window.removeEventListener("pagehide", this.onPageHide);
    this.root.remove();
    this.root = null;
    this.timer = null;
    // The element leaves the page with the player; its nodes leave the shared graph.
    this.graph?.disconnect();
    this.graph = null;
    setImmersive(false);
    this.claim.release();
    flush();
    const onClose = this.options?.onClose;
    this.options = null;
    if (!silent && onClose) onClose();
  }
}

export const player = new Player();
