// Bedside: the night-stand screen. A large, dim clock on black that drifts a few pixels each
// minute; rooms with their own colours and sound (swipe or arrow keys); exactly four buttons:
// Gear (voice, speed, captions, room volume, 24-hour clock), Quote (My Content), Clock (the alarm)
// and Leaf/Masks, which cycles Off → Meditation → Poetry → Off through Web/bedside/mode.js.
// Pieces are spoken by the server's speech pipeline with the room's sound under the voice, and the
// captions follow the audio's own clock. While an alarm is set the screen holds a wake lock and
// keeps its audio alive; at the time a rising chime rings, and when a piece played to its end
// since the alarm was set, the wake greeting is spoken 5 s later.
//
// This file holds the screen's settings and its Leaf/Masks machine; the parts are in Web/bedside/:
// scene.js (the clock, the rooms, the buttons), piece-player.js (the pieces' playback),
// ringing.js (the alarm as it runs), and the sheets gear-sheet.js, content-sheet.js (My Content)
// with piece-editor.js, and alarm-sheet.js, all opened through sheet.js.

import { api } from "../api.js";
import * as mode from "./mode.js";
import * as alarms from "./alarm.js";
import { BedsideScene, DEFAULT_VOLUME, localeUses24Hours } from "./scene.js";
import { PiecePlayer } from "./piece-player.js";
import { AlarmRinging } from "./ringing.js";
import { openGearSheet } from "./gear-sheet.js";
import { ContentSheet } from "./content-sheet.js";
import { openAlarmSheet } from "./alarm-sheet.js";

export const id = "bedside";

let current = null;

export async function render(container) {
  current = new Bedside(container);
  await current.open();
}

export function leave() {
  if (current) current.close();
  current = null;
}

/** The screen: the settings, the Leaf/Masks machine and the parts that act on them. */
class Bedside {
  constructor(container) {
    this.container = container;
    this.settings = null;
    this.machine = mode.createMachine();
    this.timers = new Set();
    this.closed = false;
    this.scene = new BedsideScene(this);
    this.player = new PiecePlayer(this);
    this.ringing = new AlarmRinging(this);
    this.content = new ContentSheet(this);
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
    this.onKey = (event) => this.scene.key(event);
    document.addEventListener("keydown", this.onKey);
    this.onVisibility = () => this.visibility();
    document.addEventListener("visibilitychange", this.onVisibility);

    const rule = alarms.rule(this.settings.alarm);
    if (rule) alarms.set(this.ringing.run, rule, Date.now());  // armed again, the flag as it was
    this.ringing.keepAlarmAt();
    this.ringing.paintAlarm();
    this.ringing.askForNight();
    this.ringing.holdWakeLock();
    this.tick();

    // A saved Meditation or Poetry mode starts a new random piece; Off stays Off.
    const opened = mode.opened(this.settings.contentMode);
    this.machine = opened.machine;
    this.scene.paintLeaf();
    for (const effect of opened.effects) this.carryOut(effect);
  }

  close() {
    this.closed = true;
    this.player.close();
    for (const timer of this.timers) clearInterval(timer);
    this.timers.clear();
    clearTimeout(this.gapTimer);
    this.content.close();
    document.removeEventListener("keydown", this.onKey);
    document.removeEventListener("visibilitychange", this.onVisibility);
    this.scene.close();
    this.ringing.close();
    for (const dialog of document.querySelectorAll("dialog.bs-sheet")) dialog.remove();
    document.title = "Bedside · Reverie";
  }

  every(ms, work) {
    this.timers.add(setInterval(work, ms));
  }

  draw() {
    this.container.innerHTML = this.scene.html();
    const root = this.container.querySelector(".bedside");
    this.root = root;
    // The sounds live in the page (without controls, so unseen): the voice, the room, the chime.
    root.append(this.player.voice, this.scene.room, this.scene.night, this.ringing.chime, this.ringing.greetingAudio);
    this.scene.mount(root);
    root.querySelector(".bs-buttons").addEventListener("click", (event) => {
      const button = event.target.closest("[data-action]");
      if (!button) return;
      this.scene.startRoomSound();
      ({ gear: () => openGearSheet(this), content: () => this.content.open(), alarm: () => openAlarmSheet(this), leaf: () => this.dispatch("tap") })[button.dataset.action]();
    });
    root.querySelector(".bs-continue").addEventListener("click", () => {
      this.scene.startRoomSound();
      this.dispatch("continueTapped");
    });
    this.player.mount();
    this.ringing.mount();
    this.scene.paintRoom();
    this.scene.paintLeaf();
  }

  // MARK: - The clock

  tick() {
    const now = Date.now();
    if (this.scene.paintClock(now)) this.ringing.paintAlarm();
    this.ringing.tick(now);
  }

  /** The clock drawn again now (the 24-hour setting changed). */
  redrawClock() {
    this.scene.lastMinute = null;
    this.tick();
  }

  // MARK: - The Leaf/Masks machine

  dispatch(event) {
    const effects = mode.handle(this.machine, event);
    this.scene.paintLeaf();
    for (const effect of effects) this.carryOut(effect);
  }

  carryOut(effect) {
    const [verb, argument] = effect.split(" ");
    if (effect === "wait gap") {
      this.gapTimer = setTimeout(() => this.dispatch("gapElapsed"), mode.GAP_SECONDS * 1000);
    } else if (verb === "save") {
      this.saveMode(argument);
    } else if (verb === "start") {
      this.player.start(argument);
    } else if (verb === "stop") {
      this.player.stopPiece();
    } else if (effect === "silence") {
      // Off at once: nothing sounds, the room neither, unless an alarm keeps the night's audio alive.
      this.player.silence();
      if (this.ringing.run.state === "off") this.scene.stopRoomSound();
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

  /** The line under what is playing: preparing, finished, a problem. */
  status(text) {
    this.root.querySelector(".bs-status").textContent = text;
  }

  // MARK: - Settings

  /** Keeps a change here and for the person; a failure says so and keeps this device's copy. */
  async save(change) {
    Object.assign(this.settings, change);
    try {
      await api("/api/settings", { method: "PATCH", body: { bedside: change } });
      // What the night's stream holds changed: it starts again from now, as it now is.
      if (["room", "roomVolume", "alarmAt"].some((key) => key in change)) this.scene.restartNight();
    } catch (problem) {
      if (!this.closed) this.status(`Not saved: ${problem.message}`);
    }
  }

  visibility() {
    const notice = this.root.querySelector(".bs-notice");
    if (document.visibilityState === "hidden" && this.ringing.run.state !== "off" && !this.scene.playsNight()) {
      notice.hidden = false;
      document.title = "Keep Reverie open for the alarm · Reverie";
    } else if (document.visibilityState === "visible") {
      document.title = "Bedside · Reverie";
      this.tick();  // timers may have been held back while hidden
    }
    this.ringing.holdWakeLock();
  }
}
