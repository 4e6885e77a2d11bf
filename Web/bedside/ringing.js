// Bedside's alarm as it runs on the screen (the rule and its run are Web/bedside/alarm.js): the line
// under the clock, the wake lock while an alarm is set, the rising chime, Snooze and Stop, and the
// wake greeting spoken 5 s later when a piece played to its end since the alarm was set. Both
// play through the playback core's transport (Web/player/transport.js).

import { api } from "../api.js";
import { icon } from "../areas.js";
import { announce, escapeHTML, insecureSentence, timeZone } from "../dom.js";
import { levelURL } from "../player/rendition.js";
import { Transport } from "../player/transport.js";
import { MediaLevel } from "../player/volume.js";
import { speak } from "../speech.js";
import * as alarms from "./alarm.js";
import { ICONS, clockParts } from "./scene.js";

/** The chime's level while the greeting speaks over it (about −9 dB). */
const CHIME_UNDER_VOICE = 0.35;
const DAY_NAMES = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
/** What a page whose address is not secure cannot do for the alarm: it has no navigator.wakeLock. */
export const NO_WAKE_LOCK = "keep the screen on: it may sleep before the alarm rings";

/** The alarm's run on this screen and its sounds; `bedside` is the screen, whose settings keep the rule. */
export class AlarmRinging {
  constructor(bedside) {
    this.bedside = bedside;
    this.run = alarms.createRun();
    this.wakeLock = null;
    this.greeting = null;
    // Their <audio> elements (chime, greetingAudio) are put in the page by the screen.
    this.chimeTransport = new Transport({ name: "bedside-chime", className: "bs-chime" });
    this.chime = this.chimeTransport.element;
    // Ducked under the greeting: its volume, or where that is ignored (an iPhone) the chime's rendition at the level.
    this.chimeLevel = new MediaLevel(this.chime, { transport: this.chimeTransport, levelled: levelURL });
    this.greetingTransport = new Transport({ name: "bedside-greeting", className: "bs-greeting-audio" });
    this.greetingAudio = this.greetingTransport.element;
  }

  /** The chime's and the greeting's endings, once the scene is drawn. */
  mount() {
    this.chimeTransport.on("ended", () => {
      // After the rise, the chime goes on at full until Snooze or Stop.
      this.chimeTransport.seek(alarms.CHIME_RISE_SECONDS);
      this.chimeTransport.play();
    });
    this.greetingTransport.on("ended", () => this.chimeLevel.set(1));
  }

  close() {
    this.chimeTransport.unload();
    this.greetingTransport.unload();
    this.chimeLevel.close();
    if (this.wakeLock) this.wakeLock.release().catch(() => {});
  }

  get root() { return this.bedside.root; }

  /** The alarm's part of the screen's tick: the rule's run at `now`. */
  tick(now) {
    for (const effect of alarms.tick(this.run, now, Boolean(this.bedside.settings.contentCompletedSuccessfully))) this.alarmEffect(effect);
  }

  describeRing(at) {
    const date = new Date(at);
    const { time, period } = clockParts(date, this.bedside.settings.clock24);
    const today = new Date();
    const tomorrow = new Date(today.getFullYear(), today.getMonth(), today.getDate() + 1);
    const day = date.toDateString() === today.toDateString() ? "today"
      : date.toDateString() === tomorrow.toDateString() ? "tomorrow" : DAY_NAMES[date.getDay()];
    return `${day} at ${time}${period ? ` ${period}` : ""}`;
  }

  setAlarm(alarm) {
    const effects = alarms.set(this.run, alarms.rule(alarm), Date.now());
    this.bedside.save({ alarm, alarmAt: this.alarmAt() });  // the night stream rings by it
    for (const effect of effects) this.alarmEffect(effect);
    this.paintAlarm();
    this.holdWakeLock();
    if (this.run.state === "armed") {
      // The audio session stays alive until the morning: the night's stream where the server
      // gives it (the alarm rings in its bytes, locked), else the room.
      this.bedside.scene.startRoomSound();
      const maySleep = navigator.wakeLock ? null : insecureSentence(NO_WAKE_LOCK);
      announce(`Alarm set for ${this.describeRing(this.run.ringAt)}.${maySleep ? ` ${maySleep}` : ""}`);
    } else {
      if (this.bedside.scene.nightTransport.src) this.bedside.scene.playRoom();  // the room's loop again
      announce("Alarm off.");
    }
  }

  /** Asks the server for the night's stream (kept for the person); without one (offline, an
   *  older server) the alarm rings only with the screen open, and the screen says so. */
  async askForNight() {
    try {
      const night = await api("/api/bedside/night", { method: "POST", body: {} });
      if (this.bedside.closed) return;
      this.bedside.scene.nightURL = night.stream;
    } catch {
      this.bedside.scene.nightURL = null;
    }
    this.paintAlarm();
  }

  /** The moment the chime sounds from, as the settings keep it for the night stream (ms; 0: none). */
  alarmAt() {
    return this.run.state === "armed" || this.run.state === "snoozed" ? this.run.ringAt
      : this.run.state === "ringing" ? this.run.since : 0;
  }

  /** The settings say when the chime sounds, as this screen's run does (after the run was armed again on opening). */
  keepAlarmAt() {
    const at = this.alarmAt();
    if (Number(this.bedside.settings.alarmAt || 0) !== at) this.bedside.save({ alarmAt: at });
  }

  paintAlarm() {
    if (!this.root) return;
    const line = this.root.querySelector(".bs-alarm-line");
    const at = this.run.ringAt;
    const locked = this.root.querySelector(".bs-alarm-locked");
    line.hidden = !at;
    locked.hidden = !at;
    if (!at) return;
    const { time, period } = clockParts(new Date(at), this.bedside.settings.clock24);
    line.innerHTML = `${icon(ICONS.clock, 16)}<span></span>`;
    line.querySelector("span").textContent = this.run.state === "snoozed" ? `Snoozed until ${time}${period ? ` ${period}` : ""}` : `${this.describeRing(at)}`;
    // Before the person locks the phone: whether the alarm rings locked.
    locked.textContent = this.bedside.scene.nightURL
      ? `Alarm ${time}${period ? ` ${period}` : ""} will ring with the screen locked.`
      : "The alarm needs the screen open: keep Reverie on the bedside screen (the night's stream is out of reach).";
  }

  alarmEffect(effect) {
    if (effect === "startChime") this.ring();
    else if (effect === "stopChime") this.quiet();
    else if (effect === "speakGreeting") this.sayGreeting();
    else if (effect === "clearCompleted") { if (this.bedside.settings.contentCompletedSuccessfully) this.bedside.save({ contentCompletedSuccessfully: false }); }
    else if (effect === "disable") this.bedside.save({ alarm: { ...this.bedside.settings.alarm, enabled: false } });
    this.paintAlarm();
    this.holdWakeLock();
  }

  ring() {
    // The night's content ends: a piece speaking (or being made) stops, and the mode goes Off.
    this.bedside.player.ready = null;
    this.bedside.dispatch("alarmRang");
    // The night's stream rings by itself (the chime is in its bytes); without it, the chime's own element.
    if (!this.bedside.scene.nightTransport.playing) {
      this.chimeLevel.set(1);
      this.chimeTransport.load(this.chimeLevel.source("/api/bedside/sounds/chime"));
      this.chimeTransport.play();
    }
    const { time, period } = clockParts(new Date(), this.bedside.settings.clock24);
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
    const spoken = await speak(text, this.bedside.player.voiceSettings());
    return { text, ...spoken };
  }

  async sayGreeting() {
    const overlay = this.root.querySelector(".bs-ringing");
    try {
      const greeting = await (this.greeting || this.prepareGreeting());
      if (!this.root.querySelector(".bs-ringing") || this.bedside.closed) return;
      overlay.querySelector(".bs-greeting").textContent = greeting.text;
      this.chimeLevel.set(CHIME_UNDER_VOICE);  // the voice over the chime
      this.greetingTransport.load(greeting.render.audioURL);
      const played = await this.greetingTransport.play();
      if (played === "needs-touch") throw new Error("the browser wants a tap first.");
      if (played !== "playing") throw new Error("its audio could not play.");
    } catch (problem) {
      this.chimeLevel.set(1);  // no voice to make room for
      if (overlay.isConnected) overlay.querySelector(".bs-greeting").textContent = `The greeting could not be spoken: ${problem.message}`;
    }
  }

  /** The lock screen's pause (or stop) while the night plays: stops a ringing alarm. The page's
   *  clock may not have run since the screen locked: the run is brought to now first. A pause
   *  before the alarm rings does nothing: the night must play on for it to ring. */
  lockScreenStop() {
    this.tick(Date.now());
    if (this.run.state === "ringing" || this.run.state === "snoozed") this.alarmAction(alarms.stop);
  }

  /** The lock screen's next while the alarm rings: snoozes it for 9 minutes. */
  lockScreenSnooze() {
    this.tick(Date.now());
    if (this.run.state === "ringing") this.alarmAction(alarms.snooze);
  }

  alarmAction(step) {
    const effects = step(this.run, Date.now());
    const scene = this.bedside.scene;
    // The chime in the night's stream stops at once here; the stream starts again, without it,
    // once the settings say so (a press on a locked phone's lock screen reaches it within 2.5 s).
    if (scene.nightTransport.playing) scene.nightTransport.pause();
    this.bedside.save({ alarmAt: this.alarmAt() }).then(() => { if (scene.playsNight()) scene.playRoom(); });
    for (const effect of effects) this.alarmEffect(effect);
    if (!scene.playsNight() && scene.nightTransport.src) scene.playRoom();  // no alarm left: the room's loop
  }

  quiet() {
    this.chimeTransport.unload();
    this.greetingTransport.pause();
    this.greeting = null;
    const overlay = this.root.querySelector(".bs-ringing");
    if (overlay) overlay.remove();
    this.root.querySelector(".bs-leaf").focus();
  }

  /** While an alarm is set, the screen stays on (where the browser allows it). */
  async holdWakeLock() {
    const wanted = this.run.state !== "off" && document.visibilityState === "visible" && !this.bedside.closed;
    if (wanted && !this.wakeLock && !this.wakeLockAsked && navigator.wakeLock) {
      // One request at a time: two calls close together (setting the alarm) took two locks, and
      // turning the alarm off released one (issue 46).
      this.wakeLockAsked = true;
      try {
        const lock = await navigator.wakeLock.request("screen");
        lock.addEventListener("release", () => { if (this.wakeLock === lock) this.wakeLock = null; });
        this.wakeLock = lock;
      } catch {
        this.wakeLock = null;  // refused (battery saver, no gesture yet): the notice still says what to do
      } finally {
        this.wakeLockAsked = false;
      }
      this.holdWakeLock();  // the alarm may have been turned off while the lock was on its way
    } else if (!wanted && this.wakeLock) {
      this.wakeLock.release().catch(() => {});
      this.wakeLock = null;
    }
  }
}
