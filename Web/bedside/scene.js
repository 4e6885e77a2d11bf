// Bedside's scene: the large, dim clock that drifts a few pixels each minute, the rooms with their
// own colours and sound (swipe or arrow keys), and the four buttons, the Leaf/Masks one painted
// from Web/bedside/mode.js. The room's sound plays through the playback core's transport
// (Web/player/transport.js).

import { SETTINGS, icon } from "../areas.js";
import { announce } from "../dom.js";
import { artwork } from "../player/media-session.js";
import { levelURL } from "../player/rendition.js";
import { Transport } from "../player/transport.js";
import { MediaLevel } from "../player/volume.js";
import * as mode from "./mode.js";

/** The rooms, in swipe order: a scene's colours and the sound the server synthesizes for it. */
export const ROOMS = [
  { id: "rain", name: "Rain" },
  { id: "ocean", name: "Ocean" },
  { id: "forest", name: "Night forest" },
  { id: "brown", name: "Brown noise" },
  { id: "silence", name: "Silence" },
];

/** The Leaf/Masks button's colour in each mode (and the lock screen's artwork). */
export const COLORS = { off: "#b3b3b3", meditation: "#34c759", poetry: "#af52de" };
/** Each content mode as people read it. */
export const MODE_NAME = { off: "Off", meditation: "Meditation", poetry: "Poetry" };
/** The room volume until the person sets one (the server's default too). */
export const DEFAULT_VOLUME = 0.5;


// Our own icons on a 24×24 grid.
export const ICONS = {
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
export function localeUses24Hours() {
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

/** What the screen shows and the room's sound; `bedside` is the screen, whose settings it reads and keeps. */
export class BedsideScene {
  constructor(bedside) {
    this.bedside = bedside;
    this.lastMinute = null;
    this.roomTransport = new Transport({ name: "bedside-room", className: "bs-room-sound" });
    this.room = this.roomTransport.element;  // the room's <audio>, which the screen puts in the page
    this.room.loop = true;
    // Its volume, or where that is ignored (an iPhone) the room sound's rendition at the level.
    this.roomLevel = new MediaLevel(this.room, { transport: this.roomTransport, levelled: levelURL });
    // While an alarm is set, the night's stream (the room at its level and the chime at the
    // alarm's minute, in the bytes) plays in an element of its own that no level or graph ever
    // touches: on an iPhone an element once routed through Web Audio is silent when the screen
    // locks (issue 46).
    this.nightTransport = new Transport({ name: "bedside-night", className: "bs-night-sound" });
    this.night = this.nightTransport.element;
    this.nightURL = null;  // the night's stream, once the server has given it
    // While the night plays, the lock screen shows the alarm, and its buttons reach it with the
    // screen locked: pause stops a ringing alarm, next snoozes it (the README says so).
    this.nightClaim = this.nightTransport.claim("Bedside alarm", {
      metadata: () => this.nightMetadata(),
      isPlaying: () => this.nightTransport.playing,
      position: null,
      handlers: {
        play: () => this.playRoom(),
        pause: () => this.bedside.ringing.lockScreenStop(),
        stop: () => this.bedside.ringing.lockScreenStop(),
        nexttrack: () => this.bedside.ringing.lockScreenSnooze(),
      },
    });
    this.nightTransport.on("playing", () => this.nightClaim.take());
  }

  nightMetadata() {
    const ringing = this.bedside.ringing;
    const at = ringing.run.ringAt;
    const { time, period } = at ? clockParts(new Date(at), this.bedside.settings.clock24) : { time: "", period: "" };
    return {
      title: ringing.run.state === "ringing" ? "Alarm: pause to stop, next to snooze" : `Alarm ${time}${period ? ` ${period}` : ""}`,
      artist: "Reverie",
      album: "Bedside",
      artwork: [{ src: artwork(COLORS.meditation, ICONS.clock), sizes: "512x512", type: "image/svg+xml" }],
    };
  }

  /** The screen: the scene (clock, room, what is playing) and the four buttons. */
  html() {
    return `
      <section class="bedside" aria-labelledby="bs-heading">
        <h1 id="bs-heading" class="sr-only">Bedside</h1>
        <div class="bs-scene" tabindex="0" role="group" aria-roledescription="rooms">
          <div class="bs-clock-box">
            <p class="bs-clock"><span class="bs-time"></span><span class="bs-period"></span></p>
            <p class="bs-alarm-line" hidden></p>
            <p class="bs-alarm-locked" hidden></p>
          </div>
          <p class="bs-room"><span class="bs-room-name"></span>
            <span class="bs-room-dots" aria-hidden="true">${ROOMS.map((room) => `<i data-room="${room.id}"></i>`).join("")}</span>
            <span class="bs-room-problem" role="status" hidden></span></p>
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
  }

  /** Wires the scene drawn in `root`. */
  mount(root) {
    this.root = root;
    this.element = root.querySelector(".bs-scene");
    this.wireSwipe();
    // A room sound that does not load says so, and what brings it back (`ensure` loads it again
    // at the next start); it goes once the sound plays.
    const problem = root.querySelector(".bs-room-problem");
    this.nightTransport.on("error", () => this.loseNight());
    this.roomTransport.on("error", () => {
      problem.textContent = `The ${ROOMS[this.roomIndex()].name.toLowerCase()} sound did not load. Tap any button to try again.`;
      problem.hidden = false;
    });
    this.roomTransport.on("playing", () => { problem.hidden = true; problem.textContent = ""; });
  }

  close() {
    this.roomTransport.unload();
    this.nightTransport.unload();
    this.nightClaim.release();
    this.roomLevel.close();
  }

  // MARK: - The clock

  /** Paints the clock when the minute changed (and moves it a little); says whether it did. */
  paintClock(now) {
    const minute = Math.floor(now / 60000);
    if (minute === this.lastMinute) return false;
    this.lastMinute = minute;
    const { time, period } = clockParts(new Date(now), this.bedside.settings.clock24);
    this.root.querySelector(".bs-time").textContent = time;
    this.root.querySelector(".bs-period").textContent = period;
    const offset = drift(minute);
    const box = this.root.querySelector(".bs-clock-box");
    box.style.setProperty("--drift-x", `${offset.x}px`);
    box.style.setProperty("--drift-y", `${offset.y}px`);
    return true;
  }

  // MARK: - Rooms

  roomIndex() {
    return Math.max(0, ROOMS.findIndex((room) => room.id === this.bedside.settings.room));
  }

  paintRoom() {
    const room = ROOMS[this.roomIndex()];
    this.root.dataset.room = room.id;
    this.root.querySelector(".bs-room-name").textContent = room.name;
    for (const dot of this.root.querySelectorAll(".bs-room-dots i")) dot.classList.toggle("on", dot.dataset.room === room.id);
    this.element.setAttribute("aria-label", `Room: ${room.name}. Swipe, or press the left and right arrow keys, for another room.`);
  }

  changeRoom(step) {
    const index = (this.roomIndex() + step + ROOMS.length) % ROOMS.length;
    const room = ROOMS[index];
    this.bedside.save({ room: room.id });
    this.paintRoom();
    announce(`${room.name} room`);
    this.playRoom();  // a swipe or a key: a gesture, so the new room's sound may start
    // A new room while a piece plays keeps the mode and starts a new random piece (tests 12–13).
    this.bedside.dispatch("roomChanged");
  }

  wireSwipe() {
    let start = null;
    this.element.addEventListener("pointerdown", (event) => { start = { x: event.clientX, y: event.clientY }; });
    this.element.addEventListener("pointercancel", () => { start = null; });
    this.element.addEventListener("pointerup", (event) => {
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

  /** Starts the room's sound if it is not playing; from a gesture it is allowed to. Answers how
   *  its play went: "playing", or "needs-touch" where the browser wants a gesture first. */
  startRoomSound() {
    if (this.playsNight() ? this.nightTransport.playing : this.roomTransport.playing && !this.nightTransport.src) return Promise.resolve("playing");
    return this.playRoom();
  }

  /** Whether the room's sound is the night's stream: an alarm is set and the server gave one. */
  playsNight() {
    return Boolean(this.nightURL) && this.bedside.ringing.run.state !== "off";
  }

  /** The night's stream from now, as the settings now have it (after a change made here: what
   *  the stream already sent would hold the old one for its two seconds of lead). */
  restartNight() {
    if (!this.playsNight() || !this.nightTransport.playing) return;
    this.nightTransport.load(this.nightURL);
    this.nightTransport.play();
  }

  /** The night's stream could not play (offline, the server gone): the room's loop again, and the
   *  screen says the alarm needs it open. */
  loseNight() {
    const wasPlaying = this.nightTransport.playing || Boolean(this.nightTransport.src);
    this.nightURL = null;
    this.nightTransport.unload();
    this.bedside.ringing.paintAlarm();
    if (wasPlaying) this.playRoom();
  }

  /** Quiets the room's sound (content turned Off at once); the next gesture starts it again. */
  stopRoomSound() {
    this.roomTransport.pause();
    this.nightTransport.pause();
  }

  playRoom() {
    if (this.playsNight()) {
      this.roomTransport.pause();
      // From now, not from where a pause left it: the stream is the night as it is.
      if (!this.nightTransport.playing) this.nightTransport.load(this.nightURL);
      return this.nightTransport.play();  // without a gesture it waits for the next one ("needs-touch")
    }
    if (this.nightTransport.src) { this.nightTransport.unload(); this.nightClaim.release(); }
    const room = ROOMS[this.roomIndex()];
    this.roomLevel.set(this.volume());
    const sound = this.roomLevel.source(`/api/bedside/sounds/${room.id}`);
    this.roomTransport.ensure(sound);  // (where it is when it holds it: the room loops on)
    return this.roomTransport.play();  // without a gesture it waits for the next one ("needs-touch")
  }

  /** Sets the room sound's level (0–1) while the Gear slider moves; the setting is kept on its change. */
  setRoomVolume(level) {
    if (!this.playsNight()) this.roomLevel.set(level);  // the night's stream takes the saved level
  }

  /** The room volume kept in the settings, 0–1. */
  volume() {
    const value = Number(this.bedside.settings.roomVolume);
    return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : DEFAULT_VOLUME;
  }

  // MARK: - The Leaf/Masks button

  paintLeaf() {
    const machine = this.bedside.machine;
    const button = this.root.querySelector(".bs-leaf");
    const picture = mode.icon(machine);
    button.innerHTML = leafSVG(picture);
    button.dataset.icon = picture;
    button.dataset.mode = machine.mode;
    button.style.setProperty("--leaf-color", leafColor(machine));
    const { mode: current, phase } = machine;
    let label;
    if (picture === "dots") label = "Changing to a poem";
    else if (phase === "starting") label = `${MODE_NAME[current]}: starting`;
    else if (phase === "stopping") label = "Stopping";
    else if (current === "off") label = "Content off. Play a meditation";
    else if (current === "meditation") label = phase === "playing" ? "Meditation playing. Change to a poem" : "Meditation. Play a poem";
    else label = phase === "playing" ? "Poetry playing. Stop" : "Poetry. Turn off";
    button.setAttribute("aria-label", label);
    button.setAttribute("aria-busy", String(mode.isBusy(machine)));
    const cont = this.root.querySelector(".bs-continue-box");
    cont.hidden = !(machine.needsGesture && machine.phase === "idle" && machine.mode !== "off");
    if (!cont.hidden) this.root.querySelector(".bs-continue").textContent = `Tap to continue — ${MODE_NAME[machine.mode]}`;
  }
}
