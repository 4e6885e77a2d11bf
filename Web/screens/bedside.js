// Bedside: the night-stand screen. A large, dim clock on black that drifts a few pixels each
// minute; rooms with their own colours and sound (swipe or arrow keys); exactly four buttons:
// Gear (voice, speed, captions, room volume, 24-hour clock), Quote (My Content), Clock (the alarm)
// and Leaf/Masks, which cycles Off → Meditation → Poetry → Off through Web/bedside/mode.js.
// Pieces are spoken by the server's speech pipeline with the room's sound under the voice, and the
// captions follow the audio's own clock. While an alarm is set the screen holds a wake lock and
// keeps its audio alive; at the time a rising chime rings, and when a piece played to its end
// since the alarm was set, the wake greeting is spoken 5 s later.

import { api } from "../api.js";
import { SETTINGS, icon } from "../areas.js";
import { announce, escapeHTML, showError, timeZone } from "../dom.js";
import { artwork } from "../player/player.js";
import { record } from "../player/progress.js";
import * as mode from "../bedside/mode.js";
import * as alarms from "../bedside/alarm.js";
import { captionAt, captionHTML, follow, speak, voiceOptionsHTML } from "../speech.js";
import { aboutLength } from "../time.js";

export const id = "bedside";

/** The rooms, in swipe order: a scene's colours and the sound the server synthesizes for it. */
export const ROOMS = [
  { id: "rain", name: "Rain" },
  { id: "ocean", name: "Ocean" },
  { id: "forest", name: "Night forest" },
  { id: "brown", name: "Brown noise" },
  { id: "silence", name: "Silence" },
];

const COLORS = { off: "#b3b3b3", meditation: "#34c759", poetry: "#af52de" };
const KIND = { meditation: "meditation", poetry: "poem" };
const MODE_FOR = { meditation: "meditation", poem: "poetry" };
const MODE_NAME = { off: "Off", meditation: "Meditation", poetry: "Poetry" };
const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const DAY_NAMES = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const FADE_MS = 600;
/** The room volume until the person sets one (the server's default too). */
const DEFAULT_VOLUME = 0.5;

// Our own icons on a 24×24 grid.
const ICONS = {
  quote: "M4 4.5h16a1.5 1.5 0 0 1 1.5 1.5v9.5a1.5 1.5 0 0 1-1.5 1.5h-9L7 20.5V17H4a1.5 1.5 0 0 1-1.5-1.5V6A1.5 1.5 0 0 1 4 4.5ZM9.5 8.5v2.2c0 1-.5 1.8-1.5 2.3M14.5 8.5v2.2c0 1-.5 1.8-1.5 2.3",
  clock: "M12 20a7 7 0 1 0 0-14 7 7 0 0 0 0 14Zm0-10v3.5l2 2M4 5l3-2.5M20 5l-3-2.5M7 19l-1.5 2M17 19l1.5 2",
  leaf: "M5 19C5 10 10 5 19 5c0 9-5 14-14 14Z",
  leafVein: "M5 19c3-4.5 6.5-8 10-10",
  masks: "M3 5.5c2.6-1 5.4-1 8 0V10a4 4 0 0 1-8 0V5.5Zm10 3c2.6-1 5.4-1 8 0V13a4 4 0 0 1-8 0V8.5Z",
  masksFace: "M5.2 8.2h1.2M7.8 8.2H9M5.6 11c.8.6 2 .6 2.8 0M15.2 11.2h1.2M17.8 11.2H19M15.6 15c.8-.6 2-.6 2.8 0",
};

/** The Leaf/Masks button's picture for what mode.icon() answers. */
function leafSVG(name) {
  const filled = name === "leafFilled" || name === "masksFilled";
  if (name === "dots") {
    return `<svg class="icon bs-dots-icon" width="30" height="30" viewBox="0 0 24 24" aria-hidden="true"><circle cx="5" cy="12" r="2"/><circle cx="12" cy="12" r="2"/><circle cx="19" cy="12" r="2"/></svg>`;
  }
  const [shape, detail] = name.startsWith("masks") ? [ICONS.masks, ICONS.masksFace] : [ICONS.leaf, ICONS.leafVein];
  return `<svg class="icon${filled ? " filled" : ""}" width="30" height="30" viewBox="0 0 24 24" aria-hidden="true"><path class="shape" d="${shape}"/><path class="detail" d="${detail}"/></svg>`;
}

/** The colour of the Leaf/Masks button: grey when off or between pieces, green, purple. */
function leafColor(machine) {
  const picture = mode.icon(machine);
  if (picture === "leafFilled") return COLORS.meditation;
  if (picture === "masksFilled") return COLORS.poetry;
  return COLORS.off;
}

/** Whether this device writes the time with 24 hours, when the person has not chosen. */
function localeUses24Hours() {
  try {
    const cycle = new Intl.DateTimeFormat(undefined, { hour: "numeric" }).resolvedOptions().hourCycle;
    return cycle === "h23" || cycle === "h24";
  } catch {
    return false;
  }
}

/** "6:45" and "AM", or "18:45" and "". */
export function clockParts(date, twentyFour) {
  const parts = new Intl.DateTimeFormat("en-US", { hour: "numeric", minute: "2-digit", hourCycle: twentyFour ? "h23" : "h12" }).formatToParts(date);
  const time = parts.filter((p) => p.type === "hour" || p.type === "minute" || p.type === "literal").map((p) => p.value).join("").trim();
  const period = parts.find((p) => p.type === "dayPeriod");
  return { time: twentyFour ? time.padStart(5, "0") : time, period: period ? period.value : "" };
}

/** The clock's drift against burn-in: a few pixels, a new place each minute, back in a while. */
export function drift(minute) {
  return { x: ((minute * 37) % 13) - 6, y: ((minute * 53) % 11) - 5 };
}

let current = null;

export async function render(container) {
  current = new Bedside(container);
  await current.open();
}

export function leave() {
  if (current) current.close();
  current = null;
}

class Bedside {
  constructor(container) {
    this.container = container;
    this.settings = null;
    this.machine = mode.createMachine();
    this.token = 0;             // a start that is no longer wanted sees a newer token
    this.piece = null;
    this.timeline = null;
    this.ready = null;          // a piece made ready whose play the browser refused
    this.pinned = null;         // a piece chosen in My Content to play next
    this.run = alarms.createRun();
    this.timers = new Set();
    this.wakeLock = null;
    this.lastMinute = null;
    this.greeting = null;
    this.closed = false;
    this.voice = new Audio();
    this.voice.preload = "auto";
    this.room = new Audio();
    this.room.loop = true;
    this.chime = new Audio();
    this.greetingAudio = new Audio();
  }

  // MARK: - Opening and closing

  async open() {
    try {
      this.settings = (await api("/api/settings")).bedside;
    } catch (problem) {
      // Never opened here with the server reachable: this device's mode, and the server's defaults.
      this.settings = { contentMode: localStorage.getItem("contentMode") || "off", captions: true, roomVolume: DEFAULT_VOLUME, room: "rain", rate: 1 };
      this.loadProblem = problem;
    }
    if (this.closed) return;  // the person went elsewhere while the settings came: draw nothing over that screen
    if (this.settings.clock24 === undefined || this.settings.clock24 === null) this.settings.clock24 = localeUses24Hours();
    this.draw();
    if (this.loadProblem) this.status(`${this.loadProblem.message}`);

    this.every(1000, () => this.tick());
    this.onKey = (event) => this.key(event);
    document.addEventListener("keydown", this.onKey);
    this.onVisibility = () => this.visibility();
    document.addEventListener("visibilitychange", this.onVisibility);

    const rule = alarms.rule(this.settings.alarm);
    if (rule) alarms.set(this.run, rule, Date.now());  // armed again, the flag as it was
    this.paintAlarm();
    this.holdWakeLock();
    this.tick();

    // A saved Meditation or Poetry mode starts a new random piece; Off stays Off.
    const opened = mode.opened(this.settings.contentMode);
    this.machine = opened.machine;
    this.paintLeaf();
    for (const effect of opened.effects) this.carryOut(effect);
  }

  close() {
    this.closed = true;
    this.token += 1;
    for (const timer of this.timers) clearInterval(timer);
    this.timers.clear();
    if (this.unfollow) this.unfollow();
    clearTimeout(this.gapTimer);
    clearTimeout(this.undoTimer);
    document.removeEventListener("keydown", this.onKey);
    document.removeEventListener("visibilitychange", this.onVisibility);
    for (const audio of [this.voice, this.room, this.chime, this.greetingAudio]) {
      audio.pause();
      audio.removeAttribute("src");
    }
    if (this.wakeLock) this.wakeLock.release().catch(() => {});
    for (const dialog of document.querySelectorAll("dialog.bs-sheet")) dialog.remove();
    if ("mediaSession" in navigator) navigator.mediaSession.metadata = null;
    document.title = "Bedside · Reverie";
  }

  every(ms, work) {
    this.timers.add(setInterval(work, ms));
  }

  draw() {
    this.container.innerHTML = `
      <section class="bedside" aria-labelledby="bs-heading">
        <h1 id="bs-heading" class="sr-only">Bedside</h1>
        <div class="bs-scene" tabindex="0" role="group" aria-roledescription="rooms">
          <div class="bs-clock-box">
            <p class="bs-clock"><span class="bs-time"></span><span class="bs-period"></span></p>
            <p class="bs-alarm-line" hidden></p>
          </div>
          <p class="bs-room"><span class="bs-room-name"></span>
            <span class="bs-room-dots" aria-hidden="true">${ROOMS.map((room) => `<i data-room="${room.id}"></i>`).join("")}</span></p>
          <div class="bs-now">
            <p class="bs-title"></p>
            <p class="bs-caption" hidden></p>
            <p class="bs-status" role="status"></p>
            <p class="bs-continue-box" hidden><button class="button bs-continue" type="button"></button></p>
          </div>
        </div>
        <p class="bs-notice" role="status" hidden>Keep Reverie open on the bedside screen for the alarm.</p>
        <div class="bs-buttons" role="toolbar" aria-label="Bedside">
          <button class="bs-button" type="button" data-action="gear" aria-label="Bedside settings" aria-haspopup="dialog">${icon(SETTINGS.icon, 26)}</button>
          <button class="bs-button" type="button" data-action="content" aria-label="My Content" aria-haspopup="dialog">${icon(ICONS.quote, 26)}</button>
          <button class="bs-button" type="button" data-action="alarm" aria-label="Alarm" aria-haspopup="dialog">${icon(ICONS.clock, 26)}</button>
          <button class="bs-button bs-leaf" type="button" data-action="leaf"></button>
        </div>
      </section>`;
    const root = this.container.querySelector(".bedside");
    this.root = root;
    // The sounds live in the page (without controls, so unseen): the voice, the room, the chime.
    this.voice.className = "bs-voice";
    this.room.className = "bs-room-sound";
    this.chime.className = "bs-chime";
    this.greetingAudio.className = "bs-greeting-audio";
    root.append(this.voice, this.room, this.chime, this.greetingAudio);
    this.scene = root.querySelector(".bs-scene");
    root.querySelector(".bs-buttons").addEventListener("click", (event) => {
      const button = event.target.closest("[data-action]");
      if (!button) return;
      this.startRoomSound();
      ({ gear: () => this.gearSheet(), content: () => this.contentSheet(), alarm: () => this.alarmSheet(), leaf: () => this.dispatch("tap") })[button.dataset.action]();
    });
    root.querySelector(".bs-continue").addEventListener("click", () => {
      this.startRoomSound();
      this.dispatch("continueTapped");
    });
    this.wireSwipe();
    this.voice.addEventListener("ended", () => this.pieceEnded());
    this.unfollow = follow(this.voice, () => this.paintCaption());
    this.chime.addEventListener("ended", () => {
      // After the rise, the chime goes on at full until Snooze or Stop.
      this.chime.currentTime = alarms.CHIME_RISE_SECONDS;
      this.chime.play().catch(() => {});
    });
    this.greetingAudio.addEventListener("ended", () => { this.chime.volume = 1; });
    this.paintRoom();
    this.paintLeaf();
  }

  // MARK: - The clock

  tick() {
    const now = Date.now();
    const minute = Math.floor(now / 60000);
    if (minute !== this.lastMinute) {
      this.lastMinute = minute;
      const { time, period } = clockParts(new Date(now), this.settings.clock24);
      this.root.querySelector(".bs-time").textContent = time;
      this.root.querySelector(".bs-period").textContent = period;
      const offset = drift(minute);
      const box = this.root.querySelector(".bs-clock-box");
      box.style.setProperty("--drift-x", `${offset.x}px`);
      box.style.setProperty("--drift-y", `${offset.y}px`);
      this.paintAlarm();
    }
    for (const effect of alarms.tick(this.run, now, Boolean(this.settings.contentCompletedSuccessfully))) this.alarmEffect(effect);
  }

  // MARK: - Rooms

  roomIndex() {
    return Math.max(0, ROOMS.findIndex((room) => room.id === this.settings.room));
  }

  paintRoom() {
    const room = ROOMS[this.roomIndex()];
    this.root.dataset.room = room.id;
    this.root.querySelector(".bs-room-name").textContent = room.name;
    for (const dot of this.root.querySelectorAll(".bs-room-dots i")) dot.classList.toggle("on", dot.dataset.room === room.id);
    this.scene.setAttribute("aria-label", `Room: ${room.name}. Swipe, or press the left and right arrow keys, for another room.`);
  }

  changeRoom(step) {
    const index = (this.roomIndex() + step + ROOMS.length) % ROOMS.length;
    const room = ROOMS[index];
    this.save({ room: room.id });
    this.paintRoom();
    announce(`${room.name} room`);
    this.playRoom();  // a swipe or a key: a gesture, so the new room's sound may start
    // A new room while a piece plays keeps the mode and starts a new random piece (tests 12–13).
    this.dispatch("roomChanged");
  }

  wireSwipe() {
    let start = null;
    this.scene.addEventListener("pointerdown", (event) => { start = { x: event.clientX, y: event.clientY }; });
    this.scene.addEventListener("pointercancel", () => { start = null; });
    this.scene.addEventListener("pointerup", (event) => {
      if (!start) return;
      const dx = event.clientX - start.x, dy = event.clientY - start.y;
      start = null;
      if (Math.abs(dx) > 50 && Math.abs(dx) > Math.abs(dy) * 1.5) this.changeRoom(dx < 0 ? 1 : -1);
    });
  }

  key(event) {
    if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
    if (document.querySelector("dialog[open]") || this.root.querySelector(".bs-ringing")) return;
    if (event.target.closest && event.target.closest("input, textarea, select")) return;
    event.preventDefault();
    this.changeRoom(event.key === "ArrowRight" ? 1 : -1);
  }

  /** Starts the room's sound if it is not playing; from a gesture it is allowed to. */
  startRoomSound() {
    if (!this.room.paused && this.room.src) return;
    this.playRoom();
  }

  playRoom() {
    const room = ROOMS[this.roomIndex()];
    if (!this.room.src.endsWith(`/api/bedside/sounds/${room.id}`)) this.room.src = `/api/bedside/sounds/${room.id}`;
    this.room.volume = this.volume();
    this.room.play().catch(() => {});  // without a gesture it waits for the next one
  }

  volume() {
    const value = Number(this.settings.roomVolume);
    return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : DEFAULT_VOLUME;
  }

  // MARK: - The Leaf/Masks machine

  dispatch(event) {
    const effects = mode.handle(this.machine, event);
    this.paintLeaf();
    for (const effect of effects) this.carryOut(effect);
  }

  carryOut(effect) {
    const [verb, argument] = effect.split(" ");
    if (effect === "wait gap") {
      this.gapTimer = setTimeout(() => this.dispatch("gapElapsed"), mode.GAP_SECONDS * 1000);
    } else if (verb === "save") {
      this.saveMode(argument);
    } else if (verb === "start") {
      this.start(argument);
    } else if (verb === "stop") {
      this.stopPiece();
    } else if (effect === "mark completed") {
      this.save({ contentCompletedSuccessfully: true });
    } else if (effect === "clear completed") {
      if (this.settings.contentCompletedSuccessfully) this.save({ contentCompletedSuccessfully: false });
    }
  }

  saveMode(value) {
    const change = { contentMode: value };
    if (value !== "off") change.lastContentMode = value;
    localStorage.setItem("contentMode", value);
    if (value !== "off") localStorage.setItem("lastContentMode", value);
    this.save(change);
  }

  paintLeaf() {
    const button = this.root.querySelector(".bs-leaf");
    const picture = mode.icon(this.machine);
    button.innerHTML = leafSVG(picture);
    button.dataset.icon = picture;
    button.dataset.mode = this.machine.mode;
    button.style.setProperty("--leaf-color", leafColor(this.machine));
    const { mode: current, phase } = this.machine;
    let label;
    if (picture === "dots") label = "Changing to a poem";
    else if (phase === "starting") label = `${MODE_NAME[current]}: starting`;
    else if (phase === "stopping") label = "Stopping";
    else if (current === "off") label = "Content off. Play a meditation";
    else if (current === "meditation") label = phase === "playing" ? "Meditation playing. Change to a poem" : "Meditation. Play a poem";
    else label = phase === "playing" ? "Poetry playing. Stop" : "Poetry. Turn off";
    button.setAttribute("aria-label", label);
    button.setAttribute("aria-busy", String(mode.isBusy(this.machine)));
    const cont = this.root.querySelector(".bs-continue-box");
    cont.hidden = !(this.machine.needsGesture && this.machine.phase === "idle" && this.machine.mode !== "off");
    if (!cont.hidden) this.root.querySelector(".bs-continue").textContent = `Tap to continue — ${MODE_NAME[this.machine.mode]}`;
  }

  /** Speaks a random piece of `modeName` (or the one chosen in My Content). */
  async start(modeName) {
    const token = ++this.token;
    this.leavePiece();  // a new room or My Content's Play replaces the piece playing
    this.silenceVoice();
    this.piece = null;
    this.timeline = null;
    this.paintCaption();
    const kind = KIND[modeName];
    try {
      let prepared = this.ready && this.ready.mode === modeName ? this.ready : null;
      this.ready = null;
      if (!prepared) {
        let piece = this.pinned && this.pinned.kind === kind ? this.pinned : null;
        this.pinned = null;
        if (!piece) {
          this.status(`Choosing a ${kind}…`);
          piece = await api("/api/bedside/next", { method: "POST", body: { kind } });
        }
        if (token !== this.token) return;
        this.showTitle(piece);
        this.status(`Preparing “${piece.title}”…`);
        const spoken = await speak(piece.script, this.voiceSettings(), {
          progress: (fraction) => { if (token === this.token && fraction < 1) this.status(`Preparing “${piece.title}”… ${Math.round(fraction * 100)}%`); },
          cancelled: () => token !== this.token,
        });
        prepared = { mode: modeName, piece, ...spoken };
      }
      if (token !== this.token) return;
      this.piece = prepared.piece;
      this.timeline = prepared.timeline;
      this.showTitle(prepared.piece);
      this.voice.src = prepared.render.audioURL;
      this.voice.volume = 1;
      this.playRoom();
      try {
        await this.voice.play();
      } catch (refusal) {
        if (token !== this.token) return;
        if (refusal && refusal.name === "NotAllowedError") {
          // The browser wants a gesture first: one button offers to go on.
          this.ready = prepared;
          this.status("");
          this.dispatch("refused");
          return;
        }
        throw refusal;
      }
      if (token !== this.token) return;
      this.status("");
      this.showOnLockScreen(prepared.piece, modeName);
      announce(`${MODE_NAME[modeName]}: ${prepared.piece.title}`);
      this.dispatch("started");
    } catch (problem) {
      if (token !== this.token || (problem && problem.name === "AbortError")) return;
      this.status(`${problem.message || "The piece could not play."} Tap the leaf to try again.`);
      this.dispatch("failed");
    }
  }

  /** Fades the voice out, then tells the machine it stopped. */
  stopPiece() {
    const token = ++this.token;
    this.leavePiece();
    const startVolume = this.voice.volume;
    const steps = 6;
    let step = 0;
    const fade = () => {
      step += 1;
      this.voice.volume = Math.max(0, startVolume * (1 - step / steps));
      if (step < steps) {
        setTimeout(fade, FADE_MS / steps);
        return;
      }
      this.silenceVoice();
      this.piece = null;
      this.timeline = null;
      this.showTitle(null);
      this.paintCaption();
      if (token === this.token && !this.closed) this.dispatch("stopped");
    };
    fade();
  }

  /** The listening log keeps where the piece playing was left (stopped, or replaced by another). */
  leavePiece() {
    if (this.piece && this.voice.currentTime > 0) record(`bedside:${this.piece.id}`, "pause", this.voice.currentTime);
  }

  silenceVoice() {
    this.voice.pause();
    this.voice.removeAttribute("src");
    this.voice.load();
    if ("mediaSession" in navigator) navigator.mediaSession.playbackState = "none";
  }

  pieceEnded() {
    if (this.machine.phase !== "playing") return;
    const title = this.piece ? this.piece.title : "The piece";
    if (this.piece) record(`bedside:${this.piece.id}`, "ended", this.voice.duration || this.voice.currentTime);
    this.piece = null;
    this.timeline = null;
    this.paintCaption();
    this.showTitle(null);
    this.status(`“${title}” finished.`);
    if ("mediaSession" in navigator) navigator.mediaSession.playbackState = "none";
    this.dispatch("finished");
  }

  voiceSettings() {
    return { voice: this.settings.voice || "", rate: Number(this.settings.rate) || 1 };
  }

  showTitle(piece) {
    const title = this.root.querySelector(".bs-title");
    title.textContent = piece ? (piece.author ? `${piece.title} · ${piece.author}` : piece.title) : "";
    title.dataset.kind = piece ? piece.kind : "";
  }

  status(text) {
    this.root.querySelector(".bs-status").textContent = text;
  }

  paintCaption() {
    if (!this.root) return;
    const box = this.root.querySelector(".bs-caption");
    const caption = this.timeline && this.settings.captions !== false && this.voice.src ? captionAt(this.timeline, this.voice.currentTime) : null;
    box.hidden = !caption;
    const html = captionHTML(caption);
    if (box.innerHTML !== html) box.innerHTML = html;
    box.dataset.phraseStart = caption ? String(caption.phrase.startMs) : "";
    box.dataset.word = caption ? String(caption.word) : "";
  }

  showOnLockScreen(piece, modeName) {
    if (!("mediaSession" in navigator) || !("MediaMetadata" in window)) return;
    const color = COLORS[modeName];
    navigator.mediaSession.metadata = new MediaMetadata({
      title: piece.title,
      artist: piece.author || "Reverie",
      album: `Bedside · ${MODE_NAME[modeName]}`,
      artwork: [{ src: artwork(color, modeName === "poetry" ? ICONS.masks : ICONS.leaf), sizes: "512x512", type: "image/svg+xml" }],
    });
    navigator.mediaSession.playbackState = "playing";
    for (const [action, handler] of [["play", () => this.voice.play().catch(() => {})], ["pause", () => this.voice.pause()]]) {
      try { navigator.mediaSession.setActionHandler(action, handler); } catch { /* not offered here */ }
    }
  }

  /** Plays a piece chosen in My Content now, in its mode. */
  playNow(piece) {
    if (mode.isBusy(this.machine)) {
      this.status("One moment: Bedside is changing pieces.");
      return;
    }
    const modeName = MODE_FOR[piece.kind];
    this.pinned = piece;
    this.ready = null;
    if (this.machine.phase === "playing" && this.settings.contentCompletedSuccessfully) this.save({ contentCompletedSuccessfully: false });
    const opened = mode.opened(modeName);
    this.machine = opened.machine;
    this.paintLeaf();
    this.saveMode(modeName);
    this.startRoomSound();
    for (const effect of opened.effects) this.carryOut(effect);
  }

  // MARK: - Settings

  /** Keeps a change here and for the person; a failure says so and keeps this device's copy. */
  async save(change) {
    Object.assign(this.settings, change);
    try {
      await api("/api/settings", { method: "PATCH", body: { bedside: change } });
    } catch (problem) {
      if (!this.closed) this.status(`Not saved: ${problem.message}`);
    }
  }

  sheet(className, html) {
    const dialog = document.createElement("dialog");
    dialog.className = `dialog bs-sheet ${className}`;
    dialog.innerHTML = html;
    const heading = dialog.querySelector("h2");
    heading.id = heading.id || `bs-sheet-${className.split(" ")[0]}`;
    dialog.setAttribute("aria-labelledby", heading.id);
    document.body.append(dialog);
    dialog.addEventListener("close", () => dialog.remove());
    dialog.showModal();
    return dialog;
  }

  async gearSheet() {
    const s = this.settings;
    const dialog = this.sheet("bs-gear", `
      <form method="dialog" novalidate>
        <h2>Bedside settings</h2>
        <label for="bs-voice">Voice</label>
        <select id="bs-voice" name="voice"><option value="">The server's voice</option></select>
        <label for="bs-rate">Speed <output for="bs-rate" data-out="rate"></output></label>
        <input id="bs-rate" name="rate" type="range" min="0.8" max="1.2" step="0.05" value="${Number(s.rate) || 1}">
        <p class="hint">Voice and speed apply to meditations and poems alike.</p>
        <label class="bs-check"><input name="captions" type="checkbox"${s.captions !== false ? " checked" : ""}> Captions</label>
        <label for="bs-volume">Room volume <output for="bs-volume" data-out="volume"></output></label>
        <input id="bs-volume" name="volume" type="range" min="0" max="1" step="0.05" value="${this.volume()}">
        <label class="bs-check"><input name="clock24" type="checkbox"${s.clock24 ? " checked" : ""}> 24-hour clock</label>
        <div class="dialog-actions"><button class="button primary" value="done">Done</button></div>
      </form>`);
    const form = dialog.querySelector("form");
    const outputs = () => {
      form.querySelector('[data-out="rate"]').textContent = `${Number(form.rate.value).toFixed(2)}×`;
      form.querySelector('[data-out="volume"]').textContent = `${Math.round(Number(form.volume.value) * 100)}%`;
    };
    outputs();
    form.addEventListener("input", (event) => {
      outputs();
      if (event.target.name === "volume") this.room.volume = Number(form.volume.value);
    });
    form.addEventListener("change", (event) => {
      const name = event.target.name;
      if (name === "voice") this.save({ voice: form.voice.value });
      if (name === "rate") this.save({ rate: Number(form.rate.value) });
      if (name === "captions") { this.save({ captions: form.captions.checked }); this.paintCaption(); }
      if (name === "volume") this.save({ roomVolume: Number(form.volume.value) });
      if (name === "clock24") { this.save({ clock24: form.clock24.checked }); this.lastMinute = null; this.tick(); }
    });
    try {
      const voices = await api("/api/speech/voices");
      const select = form.voice;
      select.insertAdjacentHTML("beforeend", voiceOptionsHTML(voices));
      select.value = s.voice || "";
      if (select.value !== (s.voice || "")) select.value = "";
    } catch (problem) {
      form.voice.insertAdjacentHTML("afterend", `<p class="form-error">${escapeHTML(problem.message)}</p>`);
    }
  }

  // MARK: - My Content

  async contentSheet(kind = "meditation") {
    const dialog = this.sheet("bs-content", `
      <div class="bs-sheet-head"><h2 id="bs-content-title">My Content</h2>
        <button class="button small" type="button" data-close>Close</button></div>
      <div class="bs-tabs" role="tablist" aria-label="Content type">
        <button role="tab" type="button" id="bs-tab-meditation" data-kind="meditation" aria-controls="bs-panel">Meditations</button>
        <button role="tab" type="button" id="bs-tab-poem" data-kind="poem" aria-controls="bs-panel">Poems</button>
      </div>
      <div class="bs-panel" id="bs-panel" role="tabpanel"></div>
      <p class="bs-undo" role="status" hidden><span></span> <button class="button small" type="button" data-undo>Undo</button></p>`);
    dialog.querySelector("[data-close]").addEventListener("click", () => dialog.close());
    const tabs = dialog.querySelector(".bs-tabs");
    tabs.addEventListener("click", (event) => {
      const tab = event.target.closest("[role=tab]");
      if (tab) this.showContent(dialog, tab.dataset.kind);
    });
    tabs.addEventListener("keydown", (event) => {
      if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
      event.preventDefault();
      const next = dialog.dataset.kind === "meditation" ? "poem" : "meditation";
      this.showContent(dialog, next);
      dialog.querySelector(`[data-kind="${next}"]`).focus();
    });
    dialog.querySelector(".bs-panel").addEventListener("click", (event) => this.contentAction(dialog, event));
    dialog.querySelector("[data-undo]").addEventListener("click", () => this.undoDelete(dialog));
    await this.showContent(dialog, kind);
  }

  async showContent(dialog, kind) {
    dialog.dataset.kind = kind;
    for (const tab of dialog.querySelectorAll("[role=tab]")) {
      const selected = tab.dataset.kind === kind;
      tab.setAttribute("aria-selected", String(selected));
      tab.tabIndex = selected ? 0 : -1;
    }
    const panel = dialog.querySelector(".bs-panel");
    panel.setAttribute("aria-labelledby", `bs-tab-${kind}`);
    const noun = kind === "poem" ? "poem" : "meditation";
    try {
      const pieces = await api(`/api/bedside/pieces?kind=${kind}`);
      if (dialog.dataset.kind !== kind) return;
      this.pieces = [...pieces.mine, ...pieces.presets];
      const item = (piece) => {
        const name = escapeHTML(piece.title);
        const meta = [aboutLength(piece.estimatedSeconds), piece.author ? `by ${escapeHTML(piece.author)}` : ""].filter(Boolean).join(" · ");
        const own = !piece.isPreset;
        return `<li class="bs-item" data-id="${escapeHTML(piece.id)}">
          <div class="bs-item-text"><span class="bs-item-title">${name}</span><span class="bs-item-meta">${meta}</span></div>
          <div class="bs-item-actions">
            <button class="button small" type="button" data-do="play" aria-label="Play ${name} now">Play</button>
            ${own ? `<button class="button small" type="button" data-do="edit" aria-label="Edit ${name}">Edit</button>` : ""}
            <button class="button small" type="button" data-do="duplicate" aria-label="Duplicate ${name}">Duplicate</button>
            ${own ? `<button class="button small danger" type="button" data-do="delete" aria-label="Delete ${name}">Delete</button>` : ""}
          </div></li>`;
      };
      panel.innerHTML = `
        <p class="bs-panel-head"><button class="button primary small" type="button" data-do="new">New ${noun}</button></p>
        <h3>Yours</h3>
        <ul class="bs-list" aria-label="Your ${noun}s">${pieces.mine.map(item).join("")}</ul>
        <p class="hint">Leaf picks at random from these and the ${pieces.presets.length} presets below, with no repeat until all have played.</p>
        <details class="bs-presets"><summary>Presets (${pieces.presets.length})</summary>
          <ul class="bs-list" aria-label="Preset ${noun}s">${pieces.presets.map(item).join("")}</ul></details>`;
    } catch (problem) {
      panel.innerHTML = `<p class="form-error"></p>`;
      panel.firstChild.textContent = problem.message;
    }
  }

  async contentAction(dialog, event) {
    const button = event.target.closest("[data-do]");
    if (!button) return;
    const kind = dialog.dataset.kind;
    const itemID = button.closest("[data-id]") ? button.closest("[data-id]").dataset.id : null;
    const piece = this.pieces && this.pieces.find((p) => p.id === itemID);
    const action = button.dataset.do;
    if (action === "new") return this.editor(dialog, { kind, title: "", script: "" });
    if (!piece) return;
    if (action === "play") {
      dialog.close();
      return this.playNow(piece);
    }
    if (action === "edit") return this.editor(dialog, piece);
    button.disabled = true;
    try {
      if (action === "duplicate") {
        const copy = await api(`/api/bedside/pieces/${encodeURIComponent(piece.id)}/duplicate`, { method: "POST" });
        announce(`Made “${copy.title}”.`);
        await this.showContent(dialog, kind);
        const row = dialog.querySelector(`[data-id="${copy.id}"] .bs-item-title`);
        if (row) row.scrollIntoView({ block: "nearest" });
      } else if (action === "delete") {
        await api(`/api/bedside/pieces/${encodeURIComponent(piece.id)}`, { method: "DELETE" });
        this.deleted = piece;
        const undo = dialog.querySelector(".bs-undo");
        undo.querySelector("span").textContent = `Deleted “${piece.title}”.`;
        undo.hidden = false;
        clearTimeout(this.undoTimer);
        this.undoTimer = setTimeout(() => { undo.hidden = true; this.deleted = null; }, 10000);
        await this.showContent(dialog, kind);
        undo.querySelector("button").focus();
      }
    } catch (problem) {
      button.disabled = false;
      this.flash(dialog, problem.message);
    }
  }

  async undoDelete(dialog) {
    const piece = this.deleted;
    if (!piece) return;
    this.deleted = null;
    dialog.querySelector(".bs-undo").hidden = true;
    try {
      await api("/api/bedside/pieces", { method: "POST", body: { kind: piece.kind, title: piece.title, script: piece.script } });
      announce(`“${piece.title}” is back.`);
      await this.showContent(dialog, piece.kind);
    } catch (problem) {
      this.flash(dialog, problem.message);
    }
  }

  flash(dialog, message) {
    const undo = dialog.querySelector(".bs-undo");
    undo.querySelector("span").textContent = message;
    undo.querySelector("button").hidden = true;
    undo.hidden = false;
    setTimeout(() => { undo.hidden = true; undo.querySelector("button").hidden = false; }, 6000);
  }

  /** The editor: the script read as one types (pauses, warnings at line:column, the length), and Listen. */
  editor(contentDialog, piece) {
    const isNew = !piece.id;
    const noun = piece.kind === "poem" ? "poem" : "meditation";
    const heading = isNew ? `New ${noun}` : `Edit ${noun}`;
    const dialog = this.sheet(`bs-editor${piece.kind === "poem" ? " poem" : ""}`, `
      <form method="dialog" novalidate>
        <h2>${heading}</h2>
        <label for="bs-piece-title">Title</label>
        <input id="bs-piece-title" name="title" maxlength="200" autocomplete="off" value="${escapeHTML(piece.title)}">
        <label for="bs-piece-script">Words</label>
        <textarea id="bs-piece-script" name="script" rows="9" spellcheck="true" placeholder="${piece.kind === "poem" ? "Title (0.3s) by Author (2s)&#10;A first line (1s)&#10;A second line (2s)" : "Settle in. (3s)&#10;Breathe in slowly… (4s) and out. (6s)"}">${escapeHTML(piece.script)}</textarea>
        <p class="hint">Pauses: (0.3s), (2s), (1.5m). Without them Reverie pauses after each line and longer after each stanza.</p>
        <p class="bs-check" role="status" aria-live="polite"></p>
        <ul class="bs-warnings" hidden></ul>
        <div class="bs-preview" hidden><p class="bs-caption"></p><p class="bs-preview-status" role="status"></p></div>
        <p class="form-error" role="alert" hidden></p>
        <div class="dialog-actions">
          <button class="button" type="button" data-listen>Listen</button>
          <button class="button" value="cancel" formnovalidate>Cancel</button>
          <button class="button primary" value="save">Save</button>
        </div>
      </form>`);
    const form = dialog.querySelector("form");
    const error = form.querySelector(".form-error");
    const preview = new Audio();
    let timeline = null, listening = 0, checkTimer = null, checked = 0;

    const check = async () => {
      const asked = ++checked;
      const text = form.script.value;
      try {
        const result = await api("/api/speech/check", { method: "POST", body: { text, rate: this.voiceSettings().rate } });
        if (asked !== checked) return;
        const summary = result.phrases
          ? `${result.phrases} phrase${result.phrases === 1 ? "" : "s"} · ${result.pauses} pause${result.pauses === 1 ? "" : "s"} · ${aboutLength(result.estimatedSeconds)}`
          : "Nothing to say yet.";
        form.querySelector(".bs-check").textContent = result.phrases && !result.hasMarkers ? `${summary} · pauses added after each line` : summary;
        const list = form.querySelector(".bs-warnings");
        list.innerHTML = result.warnings.map((w) => `<li>Line ${w.line}:${w.column} — ${escapeHTML(w.message)}</li>`).join("");
        list.hidden = !result.warnings.length;
      } catch (problem) {
        if (asked === checked) form.querySelector(".bs-check").textContent = problem.message;
      }
    };
    check();
    form.script.addEventListener("input", () => {
      clearTimeout(checkTimer);
      checkTimer = setTimeout(check, 300);
    });

    const listen = form.querySelector("[data-listen]");
    const stopListening = () => {
      listening += 1;
      preview.pause();
      preview.removeAttribute("src");
      listen.textContent = "Listen";
      form.querySelector(".bs-preview").hidden = true;
    };
    const paintPreview = () => {
      const caption = timeline ? captionAt(timeline, preview.currentTime) : null;
      const box = form.querySelector(".bs-preview .bs-caption");
      const html = captionHTML(caption);
      if (box.innerHTML !== html) box.innerHTML = html;
    };
    const unfollow = follow(preview, paintPreview);
    preview.addEventListener("ended", () => { stopListening(); });
    listen.addEventListener("click", async () => {
      if (listen.textContent === "Stop") return stopListening();
      const text = form.script.value.trim();
      if (!text) {
        showError(error, new Error("Write some words to listen to."));
        return;
      }
      showError(error, null);
      const asked = ++listening;
      listen.textContent = "Stop";
      const box = form.querySelector(".bs-preview");
      box.hidden = false;
      const state = box.querySelector(".bs-preview-status");
      state.textContent = "Preparing…";
      try {
        const spoken = await speak(text, this.voiceSettings(), {
          progress: (fraction) => { if (asked === listening) state.textContent = `Preparing… ${Math.round(fraction * 100)}%`; },
          cancelled: () => asked !== listening,
        });
        if (asked !== listening) return;
        timeline = spoken.timeline;
        preview.src = spoken.render.audioURL;
        await preview.play();
        state.textContent = "";
      } catch (problem) {
        if (asked !== listening || problem.name === "AbortError") return;
        stopListening();
        showError(error, problem);
      }
    });
    dialog.addEventListener("close", () => { unfollow(); stopListening(); clearTimeout(checkTimer); });

    form.querySelector('[value="save"]').addEventListener("click", async (event) => {
      event.preventDefault();
      const title = form.title.value.trim(), script = form.script.value;
      if (!title) {
        showError(error, new Error(`Give the ${noun} a title.`));
        form.title.focus();
        return;
      }
      if (!script.trim()) {
        showError(error, new Error(`Write the ${noun}'s words.`));
        form.script.focus();
        return;
      }
      const button = event.currentTarget;
      button.disabled = true;
      try {
        const saved = isNew
          ? await api("/api/bedside/pieces", { method: "POST", body: { kind: piece.kind, title, script } })
          : await api(`/api/bedside/pieces/${encodeURIComponent(piece.id)}`, { method: "PUT", body: { title, script } });
        dialog.close();
        announce(`Saved “${saved.title}”.`);
        await this.showContent(contentDialog, piece.kind);
      } catch (problem) {
        button.disabled = false;
        showError(error, problem);
      }
    });
    (isNew ? form.title : form.script).focus();
  }

  // MARK: - The alarm

  alarmSheet() {
    const rule = alarms.rule(this.settings.alarm) || { hour: 7, minute: 0, enabled: false, days: [] };
    const time = `${String(rule.hour).padStart(2, "0")}:${String(rule.minute).padStart(2, "0")}`;
    const dialog = this.sheet("bs-alarm", `
      <form method="dialog" novalidate>
        <h2>Alarm</h2>
        <label class="bs-check"><input name="enabled" type="checkbox"${rule.enabled ? " checked" : ""}> Alarm on</label>
        <label for="bs-alarm-time">Time</label>
        <input id="bs-alarm-time" name="time" type="time" required value="${time}">
        <fieldset class="bs-days"><legend>Repeat</legend>
          ${DAYS.map((day, index) => `<label class="bs-day"><input type="checkbox" name="day" value="${index}"${rule.days.includes(index) ? " checked" : ""}><span>${day}</span></label>`).join("")}
        </fieldset>
        <p class="hint bs-alarm-next" aria-live="polite"></p>
        <p class="hint">A web page cannot ring while it is closed: leave Reverie open on this screen, plugged in. The chime rises gently over a minute; after a meditation or poem that played to its end, a spoken good morning follows.</p>
        <p class="form-error" role="alert" hidden></p>
        <div class="dialog-actions">
          <button class="button" value="cancel" formnovalidate>Cancel</button>
          <button class="button primary" value="save">Save</button>
        </div>
      </form>`);
    const form = dialog.querySelector("form");
    const read = () => ({
      time: form.time.value,
      enabled: form.enabled.checked,
      days: [...form.querySelectorAll('[name="day"]:checked')].map((box) => Number(box.value)),
    });
    const preview = () => {
      const chosen = alarms.rule(read());
      const next = document.querySelector(".bs-alarm-next");
      if (!chosen) next.textContent = "Choose a time.";
      else if (!chosen.enabled) next.textContent = "The alarm is off.";
      else {
        const at = alarms.nextRing(chosen, Date.now());
        next.textContent = `Rings ${this.describeRing(at)}, ${alarms.fromNow(at, Date.now())}.${chosen.days.length ? "" : " No days chosen: it rings once."}`;
      }
    };
    preview();
    form.addEventListener("input", (event) => {
      // Choosing a time or a day means the alarm is wanted.
      if (event.target.name === "time" || event.target.name === "day") form.enabled.checked = true;
      preview();
    });
    form.querySelector('[value="save"]').addEventListener("click", (event) => {
      event.preventDefault();
      const chosen = read();
      if (!alarms.rule(chosen)) {
        showError(form.querySelector(".form-error"), new Error("Choose the time the alarm rings."));
        form.time.focus();
        return;
      }
      dialog.close();
      this.setAlarm(chosen);
    });
  }

  describeRing(at) {
    const date = new Date(at);
    const { time, period } = clockParts(date, this.settings.clock24);
    const today = new Date();
    const tomorrow = new Date(today.getFullYear(), today.getMonth(), today.getDate() + 1);
    const day = date.toDateString() === today.toDateString() ? "today"
      : date.toDateString() === tomorrow.toDateString() ? "tomorrow" : DAY_NAMES[date.getDay()];
    return `${day} at ${time}${period ? ` ${period}` : ""}`;
  }

  setAlarm(alarm) {
    this.save({ alarm });
    for (const effect of alarms.set(this.run, alarms.rule(alarm), Date.now())) this.alarmEffect(effect);
    this.paintAlarm();
    this.holdWakeLock();
    if (this.run.state === "armed") {
      this.startRoomSound();  // the audio session stays alive until the morning
      announce(`Alarm set for ${this.describeRing(this.run.ringAt)}.`);
    } else {
      announce("Alarm off.");
    }
  }

  paintAlarm() {
    if (!this.root) return;
    const line = this.root.querySelector(".bs-alarm-line");
    const at = this.run.ringAt;
    line.hidden = !at;
    if (!at) return;
    const { time, period } = clockParts(new Date(at), this.settings.clock24);
    line.innerHTML = `${icon(ICONS.clock, 16)}<span></span>`;
    line.querySelector("span").textContent = this.run.state === "snoozed" ? `Snoozed until ${time}${period ? ` ${period}` : ""}` : `${this.describeRing(at)}`;
  }

  alarmEffect(effect) {
    if (effect === "startChime") this.ring();
    else if (effect === "stopChime") this.quiet();
    else if (effect === "speakGreeting") this.sayGreeting();
    else if (effect === "clearCompleted") { if (this.settings.contentCompletedSuccessfully) this.save({ contentCompletedSuccessfully: false }); }
    else if (effect === "disable") this.save({ alarm: { ...this.settings.alarm, enabled: false } });
    this.paintAlarm();
    this.holdWakeLock();
  }

  ring() {
    // The night's content ends: a piece speaking (or being made) stops, and the mode goes Off.
    this.ready = null;
    this.dispatch("alarmRang");
    this.chime.src = "/api/bedside/sounds/chime";
    this.chime.volume = 1;
    this.chime.play().catch(() => {});
    const { time, period } = clockParts(new Date(), this.settings.clock24);
    const overlay = document.createElement("div");
    overlay.className = "bs-ringing";
    overlay.setAttribute("role", "alertdialog");
    overlay.setAttribute("aria-modal", "true");
    overlay.setAttribute("aria-labelledby", "bs-ring-title");
    overlay.innerHTML = `
      <p class="bs-ring-time">${escapeHTML(time)}<span>${escapeHTML(period)}</span></p>
      <h2 id="bs-ring-title">Alarm</h2>
      <p class="bs-greeting" aria-live="polite"></p>
      <div class="bs-ring-actions">
        <button class="button bs-snooze" type="button">Snooze 9 min</button>
        <button class="button primary bs-stop" type="button">Stop</button>
      </div>`;
    this.root.append(overlay);
    overlay.querySelector(".bs-snooze").addEventListener("click", () => this.alarmAction(alarms.snooze));
    overlay.querySelector(".bs-stop").addEventListener("click", () => this.alarmAction(alarms.stop));
    overlay.querySelector(".bs-stop").focus();
    announce("The alarm is ringing.");
    // The greeting is made ready at once, so it can be spoken 5 s after the chime starts.
    this.greeting = this.run.greetingDue ? this.prepareGreeting() : null;
  }

  async prepareGreeting() {
    const { text } = await api(`/api/bedside/greeting?timeZone=${encodeURIComponent(timeZone())}`);
    const spoken = await speak(text, this.voiceSettings());
    return { text, ...spoken };
  }

  async sayGreeting() {
    const overlay = this.root.querySelector(".bs-ringing");
    try {
      const greeting = await (this.greeting || this.prepareGreeting());
      if (!this.root.querySelector(".bs-ringing") || this.closed) return;
      overlay.querySelector(".bs-greeting").textContent = greeting.text;
      this.chime.volume = 0.35;  // the voice over the chime
      this.greetingAudio.src = greeting.render.audioURL;
      await this.greetingAudio.play();
    } catch (problem) {
      if (overlay.isConnected) overlay.querySelector(".bs-greeting").textContent = `The greeting could not be spoken: ${problem.message}`;
    }
  }

  alarmAction(step) {
    for (const effect of step(this.run, Date.now())) this.alarmEffect(effect);
  }

  quiet() {
    this.chime.pause();
    this.chime.removeAttribute("src");
    this.greetingAudio.pause();
    this.greeting = null;
    const overlay = this.root.querySelector(".bs-ringing");
    if (overlay) overlay.remove();
    this.root.querySelector(".bs-leaf").focus();
  }

  /** While an alarm is set, the screen stays on (where the browser allows it). */
  async holdWakeLock() {
    const wanted = this.run.state !== "off" && document.visibilityState === "visible" && !this.closed;
    if (wanted && !this.wakeLock && navigator.wakeLock) {
      try {
        this.wakeLock = await navigator.wakeLock.request("screen");
        this.wakeLock.addEventListener("release", () => { this.wakeLock = null; });
      } catch {
        this.wakeLock = null;  // refused (battery saver, no gesture yet): the notice still says what to do
      }
    } else if (!wanted && this.wakeLock) {
      this.wakeLock.release().catch(() => {});
      this.wakeLock = null;
    }
  }

  visibility() {
    const notice = this.root.querySelector(".bs-notice");
    if (document.visibilityState === "hidden" && this.run.state !== "off") {
      notice.hidden = false;
      document.title = "Keep Reverie open for the alarm · Reverie";
    } else if (document.visibilityState === "visible") {
      document.title = "Bedside · Reverie";
      this.tick();  // timers may have been held back while hidden
    }
    this.holdWakeLock();
  }
}
