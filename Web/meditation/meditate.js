// Meditate: choose a length, breathe with the circle and the narration, see your history.
// A session is one sound (the plan's `sound`); the circle, the phase and the clock follow where
// that sound is, so they stand still whenever it does and are right the moment a locked phone wakes.

import { api } from "../api.js";
import { announce, confirmDialog, escapeHTML, setImmersive, timeZone } from "../dom.js";
import * as machine from "./run.js";
import { MeditationPlayer } from "./player.js";
import { enqueue, flush, pendingCount } from "./uploads.js";
import { clock } from "../player/time.js";
import { downloadHTML, wireDownload } from "../player/download-button.js";
import { downloads } from "../player/downloads.js";

export const id = "meditate";

const CONFIG_KEY = "meditation-config";
const LENGTHS = [5, 10, 20];
const SILENCE_URL = "/audio/meditation/shared/silence-1s";
const SESSION = "basic-breathing";

/** The download of a session length: its plan (in the download's meta) and its whole sound. */
function downloadKey(minutes) {
  return `meditate:${SESSION}:${minutes}`;
}

/** The plan downloaded for `minutes`, whose sound is on this device, or null. */
function keptPlan(minutes) {
  const record = downloads.get(downloadKey(minutes));
  return record?.status === "ready" && record.meta?.plan?.sound ? record.meta.plan : null;
}

/** What downloading a length keeps: a plan made for it now, and its one sound. */
async function sessionDownload(minutes) {
  const plan = await api(`/api/meditation/plan?session=${SESSION}&minutes=${minutes}`);
  return { area: "meditate", title: `${plan.name}, ${minutes} minutes`, files: [{ url: plan.sound.url, type: "audio/mp4" }], meta: { plan } };
}

let current = null;

export async function render(container) {
  leave();
  current = new MeditateScreen(container);
  await current.open();
}

/** Called when another screen opens: a running session pauses (and is offered back on return). */
export function leave() {
  if (current) current.leave();
  current = null;
}

/** A session's times round up: the countdown shows 0:01 until the last second is breathed. */
function sessionClock(seconds) {
  return clock(Math.ceil(seconds));
}

function daysAgo(iso) {
  const then = new Date(iso);
  const days = Math.round((new Date(new Date().toDateString()) - new Date(then.toDateString())) / 86400000);
  if (days <= 0) return "today";
  if (days === 1) return "yesterday";
  return `${days} days ago`;
}

/** What waits on this device for the server, in a sentence; "" when nothing does. */
function keptHere(justFinished) {
  const waiting = pendingCount();
  if (!waiting) return "";
  const what = justFinished && waiting === 1 ? "This session is" : `${waiting} finished ${waiting === 1 ? "session is" : "sessions are"}`;
  return `${what} kept on this device and will be uploaded when Reverie's server can be reached.`;
}

function loadConfig() {
  try {
    const config = JSON.parse(localStorage.getItem(CONFIG_KEY) || "null");
    if (config && LENGTHS.includes(config.duration)) return config;
  } catch {
    // Fall through to the default.
  }
  return { duration: 5 };
}

class MeditateScreen {
  constructor(container) {
    this.container = container;
    this.run = null;
    this.player = null;
    this.timer = null;
    this.prepared = null;     // {minutes, plan: a promise of it or null}: asked for while the setup shows
    this.savedSecond = null;  // the whole second of the heard position last saved
    this.reducedMotion = matchMedia("(prefers-reduced-motion: reduce)").matches;
    this.onVisible = () => { if (document.visibilityState === "visible") this.update(); };
  }

  async open() {
    flush();
    const saved = machine.recover(Date.now());
    if (saved) this.showRecovery(saved);
    else this.showSetup();
  }

  leave() {
    if (this.run && this.run.status === "active") {
      machine.pause(this.run, Date.now(), this.player.position);
      machine.save(this.run);
    }
    this.stopLoop();
    if (this.player) this.player.stop();
    setImmersive(false);
  }

  // MARK: - Setup

  showSetup() {
    const config = loadConfig();
    this.container.innerHTML = `
      <section class="meditate" aria-labelledby="meditate-heading">
        <h1 id="meditate-heading" class="page-title">Meditate</h1>
        <div class="card meditate-setup">
          <h2 id="length-heading">Basic Breathing</h2>
          <p class="hint">Breathe in for four, hold for two, out for six, rest for two, with a voice to begin and end.</p>
          <div class="length-grid" role="radiogroup" aria-labelledby="length-heading">
            ${LENGTHS.map((minutes) => `
              <label class="length-option">
                <input type="radio" name="length" value="${minutes}" ${minutes === config.duration ? "checked" : ""}>
                <span class="length-number">${minutes}</span><span class="length-unit">minutes</span>
              </label>`).join("")}
          </div>
          <p class="form-error" role="alert" hidden></p>
          <button class="button primary wide" type="button" data-action="start">Start</button>
          <p class="meditate-download" data-download-for></p>
        </div>
        <div class="card meditate-history" aria-live="polite" data-history><p class="hint">Loading your history…</p></div>
      </section>`;
    // The chosen length's Download for offline (a control of its own for each length).
    const place = this.container.querySelector("[data-download-for]");
    const offerDownload = (minutes) => {
      this.stopDownload?.();
      place.innerHTML = downloadHTML({ small: true });
      place.dataset.downloadFor = String(minutes);
      this.stopDownload = wireDownload(place, downloadKey(minutes), () => sessionDownload(minutes));
    };
    offerDownload(config.duration);
    this.prepare(config.duration);
    for (const input of this.container.querySelectorAll('input[name="length"]')) {
      input.addEventListener("change", () => {
        localStorage.setItem(CONFIG_KEY, JSON.stringify({ duration: Number(input.value) }));
        offerDownload(Number(input.value));
        this.prepare(Number(input.value));
      });
    }
    this.container.querySelector('[data-action="start"]').addEventListener("click", () => this.start());
    this.loadHistory(this.container.querySelector("[data-history]"));
  }

  /**
   * Asks for a plan of the length shown, before Start: the server makes its session's one file
   * as soon as it answers, so by the time the person taps Start the sound is there, not made then
   * (a second or two). A length downloaded here needs none; a plan that could not be had is
   * asked for again at Start.
   */
  prepare(minutes) {
    this.prepared = keptPlan(minutes) ? null : {
      minutes,
      plan: api(`/api/meditation/plan?session=${SESSION}&minutes=${minutes}`).catch(() => null),
    };
  }

  async loadHistory(box, { kept = null } = {}) {
    try {
      const [latest, stats] = await Promise.all([
        api("/api/meditation-sessions/latest"),
        api(`/api/meditation-sessions/stats?time_zone=${encodeURIComponent(timeZone())}`),
      ]);
      box.innerHTML = `
        <p class="last-meditated">${latest ? `Last meditated: <strong>${daysAgo(latest.completed_at)}</strong>` : "No sessions yet. Your first one starts here."}</p>
        <dl class="stat-grid">
          <div><dt>Streak</dt><dd data-stat="streak">${stats.currentStreak} ${stats.currentStreak === 1 ? "day" : "days"}</dd></div>
          <div><dt>This week</dt><dd>${stats.minutesThisWeek} min</dd></div>
          <div><dt>Longest streak</dt><dd>${stats.longestStreak} ${stats.longestStreak === 1 ? "day" : "days"}</dd></div>
          <div><dt>All sessions</dt><dd>${stats.totalSessions} · ${stats.totalMinutes} min</dd></div>
        </dl>
        ${keptHere(kept) ? `<p class="hint" data-waiting>${escapeHTML(keptHere(kept))}</p>` : ""}`;
    } catch (problem) {
      box.innerHTML = `<p class="hint"></p>`;
      box.querySelector("p").textContent = keptHere(kept)
        ? `${keptHere(kept)} Your streak and totals show once it is.`
        : `Your history is not available right now: ${problem.message}`;
    }
  }

  async start() {
    const minutes = Number(this.container.querySelector('input[name="length"]:checked').value);
    localStorage.setItem(CONFIG_KEY, JSON.stringify({ duration: minutes }));
    const button = this.container.querySelector('[data-action="start"]');
    const error = this.container.querySelector(".form-error");
    this.player = this.makePlayer();
    this.player.unlock(SILENCE_URL);  // inside the tap: browsers allow sound only after one
    button.disabled = true;
    button.textContent = "Preparing…";
    error.hidden = true;
    // A downloaded length plays its kept plan, whose sound is on this device, network or not.
    let plan = keptPlan(minutes);
    // (The plan asked for while the length was shown is used once: each session is its own.)
    const prepared = this.prepared?.minutes === minutes ? this.prepared.plan : null;
    this.prepared = null;
    if (!plan) {
      try {
        plan = (await prepared) ?? await api(`/api/meditation/plan?session=${SESSION}&minutes=${minutes}`);
        localStorage.setItem(`meditation-plan-${minutes}`, JSON.stringify(plan));
      } catch (problem) {
        // Offline: the last plan for this length still works (its sound may already be cached).
        plan = JSON.parse(localStorage.getItem(`meditation-plan-${minutes}`) || "null");
        if (!plan || !plan.sound) {
          this.player.stop();
          this.player = null;
          error.textContent = `The session could not be prepared: ${problem.message}`;
          error.hidden = false;
          button.disabled = false;
          button.textContent = "Start";
          return;
        }
      }
    }
    this.run = machine.createRun(plan);
    const events = machine.start(this.run, Date.now());
    machine.save(this.run);
    this.player.play(plan, 0);
    this.showActive();
    this.focusAction("toggle");
    this.handle(events);
  }

  makePlayer() {
    const player = new MeditationPlayer({
      onError: () => this.showAudioError(),
      onPlayPause: (action) => (action === "play" ? this.resume() : this.pause()),
      onInterrupted: () => this.pause(),
      onEnded: () => this.update(),
    });
    document.body.append(player.audio);  // outside the screen, so the bell rings on after the session's screen is gone
    return player;
  }

  // MARK: - Recovery

  showRecovery(saved) {
    const done = machine.elapsed(saved);
    this.container.innerHTML = `
      <section class="meditate" aria-labelledby="resume-heading">
        <h1 class="page-title">Meditate</h1>
        <div class="card meditate-resume">
          <h2 id="resume-heading">Resume your session?</h2>
          <p>You were ${sessionClock(done)} into a ${saved.durationMinutes}-minute session${saved.status === "paused" ? " (paused)" : ""}.</p>
          <div class="row">
            <button class="button primary" type="button" data-action="resume">Resume</button>
            <button class="button" type="button" data-action="discard">Start over</button>
          </div>
        </div>
      </section>`;
    this.container.querySelector('[data-action="resume"]').addEventListener("click", () => {
      this.run = saved;
      this.player = this.makePlayer();
      if (saved.status === "paused" && !machine.resume(saved, Date.now())) {
        this.showActive();  // its first update finds the pause ran out and ends the session
        return;
      }
      machine.save(saved);
      // Where the sound stopped (the heard position saved as it went), within the tap that allows sound.
      this.player.play(saved.plan, saved.heardSeconds);
      this.showActive();   // draws, and shows the session on the lock screen
      this.focusAction("toggle");
    });
    this.container.querySelector('[data-action="discard"]').addEventListener("click", () => {
      machine.clearSaved();
      this.showSetup();
      this.focusAction("start");
    });
  }

  // MARK: - Active

  showActive() {
    const plan = this.run.plan;
    setImmersive(true);
    this.container.innerHTML = `
      <section class="meditate meditate-active" aria-labelledby="active-heading">
        <h1 id="active-heading" class="visually-hidden">${escapeHTML(plan.name)}</h1>
        <p class="phase-title" data-phase aria-live="polite"></p>
        <div class="breath ${this.reducedMotion ? "reduced" : ""}" aria-hidden="${this.reducedMotion ? "false" : "true"}">
          <div class="breath-circle" data-circle></div>
          <p class="breath-word" data-word aria-live="polite"></p>
        </div>
        <p class="remaining"><span class="visually-hidden">Time left </span><span data-remaining></span></p>
        <div class="session-progress"><div data-progress></div></div>
        <div class="row centered">
          <button class="button" type="button" data-action="toggle">Pause</button>
          <button class="button danger" type="button" data-action="end">End</button>
        </div>
        <div class="audio-error" role="alertdialog" aria-labelledby="audio-error-text" hidden>
          <p id="audio-error-text">The session's sound could not be played. It waits where it was.</p>
          <div class="row">
            <button class="button primary" type="button" data-action="retry">Retry</button>
            <button class="button" type="button" data-action="silent">Go on without sound</button>
            <button class="button" type="button" data-action="end-now">End session</button>
          </div>
        </div>
        <p class="hint without-sound" data-without-sound hidden>Going on without sound: the guide and the time run while the screen is on, and the bell is tried at the end.
          <button class="button link small" type="button" data-action="sound-again">Try the sound again</button></p>
      </section>`;
    this.container.querySelector('[data-action="toggle"]').addEventListener("click", () => {
      if (this.run.status === "paused") this.resume();
      else this.pause();
    });
    this.container.querySelector('[data-action="end"]').addEventListener("click", () => this.confirmEnd());
    const overlay = this.container.querySelector(".audio-error");
    overlay.querySelector('[data-action="retry"]').addEventListener("click", () => {
      overlay.hidden = true;
      this.player.retry(this.run.heardSeconds);
    });
    overlay.querySelector('[data-action="end-now"]').addEventListener("click", () => { overlay.hidden = true; this.confirmEnd(); });
    // The seed's Skip: the session carries on without its sound, on the page's clock.
    overlay.querySelector('[data-action="silent"]').addEventListener("click", () => {
      overlay.hidden = true;
      this.player.goOnSilently(this.run.plan, this.run.heardSeconds);
      announce("Going on without sound");
      this.update();
      this.focusAction("toggle");
    });
    this.container.querySelector('[data-action="sound-again"]').addEventListener("click", () => {
      this.player.retry(this.run.heardSeconds);
      if (this.run.status === "paused") machine.resume(this.run, Date.now());
      this.update();
    });
    this.lastPhase = null;
    this.lastWord = null;
    this.startLoop();
    this.update();
  }

  startLoop() {
    this.stopLoop();
    this.timer = setInterval(() => this.update(), 250);
    document.addEventListener("visibilitychange", this.onVisible);
  }

  stopLoop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    document.removeEventListener("visibilitychange", this.onVisible);
  }

  /** Brings the session to where its sound is, keeps that place on the device, and draws it. */
  update() {
    if (!this.run) return;
    const events = machine.tick(this.run, Date.now(), this.player.position);
    const second = Math.floor(this.run.heardSeconds);
    if (events.length || second !== this.savedSecond) {
      machine.save(this.run);
      this.savedSecond = second;
    }
    this.draw();
    this.handle(events);
  }

  draw() {
    const run = this.run;
    const plan = run.plan;
    const root = this.container;
    const seconds = machine.elapsed(run);
    const phase = plan.phases[machine.phaseIndex(plan, seconds)];
    const remaining = root.querySelector("[data-remaining]");
    if (!remaining) return;
    remaining.textContent = sessionClock(plan.totalSeconds - seconds);
    root.querySelector("[data-progress]").style.width = `${(100 * seconds) / plan.totalSeconds}%`;
    const title = run.status === "paused" ? "Paused" : phase.title;
    if (title !== this.lastPhase) {
      root.querySelector("[data-phase]").textContent = title;
      this.lastPhase = title;
    }
    const breathing = phase.type === "breathing";
    const state = breathing ? machine.breath(plan.pattern, seconds - phase.startSeconds) : { word: phase.type === "intro" ? "Settle in" : "Rest", scale: 1, opacity: 0.6 };
    const circle = root.querySelector("[data-circle]");
    if (!this.reducedMotion) {
      circle.style.transform = `scale(${state.scale.toFixed(4)})`;
      circle.style.opacity = state.opacity.toFixed(3);
    }
    if (state.word !== this.lastWord) {
      root.querySelector("[data-word]").textContent = state.word;
      this.lastWord = state.word;
    }
    root.querySelector('[data-action="toggle"]').textContent = run.status === "paused" ? "Resume" : "Pause";
    const withoutSound = root.querySelector("[data-without-sound]");
    if (withoutSound.hidden === this.player.withoutSound) withoutSound.hidden = !this.player.withoutSound;
    if (this.player && phase.title !== this.lastLockScreenPhase) {
      this.lastLockScreenPhase = phase.title;
      this.player.showOnLockScreen(phase.title);
    }
  }

  handle(events) {
    for (const event of events) {
      switch (event.type) {
        case "phase":
          announce(event.title);
          break;
        case "complete":
          this.finish(event.record);
          return;
        case "ended":
          this.finish(event.record, { timedOut: event.timedOut });
          return;
        default:
          break;
      }
    }
  }

  /** Pauses the session where its sound is: the button, the lock screen, or the system holding
   *  the sound (a call, another app's audio). At the very end there is nothing to pause. */
  pause() {
    if (!this.run || this.run.status !== "active") return;
    if (!machine.pause(this.run, Date.now(), this.player.position)) {
      this.update();  // at the end: the session completes
      return;
    }
    machine.save(this.run);
    this.player.pause();
    this.draw();
    announce("Paused");
  }

  /** Resumes from the place the sound paused at: a seek to it (the element may have been
   *  reloaded meanwhile) and play. */
  resume() {
    if (!this.run) return;
    if (!machine.resume(this.run, Date.now())) {
      this.update();  // the pause ran out
      return;
    }
    machine.save(this.run);
    this.player.play(this.run.plan, this.run.heardSeconds);
    this.update();
    announce("Resumed");
  }

  async confirmEnd() {
    const end = await confirmDialog({
      title: "End session?",
      message: "The time so far is saved as a shorter session.",
      confirm: "End Session",
      danger: true,
    });
    if (!end || !this.run) return;
    const record = machine.endEarly(this.run, Date.now(), this.player.position);
    if (record) this.finish(record);
  }

  /** Keeps keyboard focus on the control that comes next after an action replaced the one pressed. */
  focusAction(name) {
    const button = this.container.querySelector(`[data-action="${name}"]`);
    if (button) button.focus({ preventScroll: true });
  }

  showAudioError() {
    const overlay = this.container.querySelector(".audio-error");
    if (overlay) overlay.hidden = false;
  }

  // MARK: - Complete

  async finish(record, { timedOut = false } = {}) {
    const minimum = this.run ? this.run.plan.minimumCountedSeconds : null;
    setImmersive(false);
    this.stopLoop();
    // A complete session's bell rings to its end; a session ended early falls silent at once.
    if (this.player) {
      if (record.completed_fully) this.player.finish();
      else this.player.stop();
    }
    machine.clearSaved();
    this.run = null;
    enqueue(record);
    const full = record.completed_fully;
    const tooShort = minimum && record.actual_duration_seconds < minimum;
    this.container.innerHTML = `
      <section class="meditate meditate-complete" aria-labelledby="complete-heading">
        <h1 class="page-title">Meditate</h1>
        <div class="card">
          <h2 id="complete-heading">${full ? "Session complete" : "Session ended"}</h2>
          <p class="complete-time">${full ? `${sessionClock(record.actual_duration_seconds)} of calm breathing.`
            : `You breathed for ${sessionClock(record.actual_duration_seconds)} of ${sessionClock(record.planned_duration_seconds)}.`}</p>
          ${timedOut ? `<p class="hint">The session was paused for 30 minutes, so it ended there.</p>` : ""}
          ${tooShort ? `<p class="hint" data-too-short>Sessions shorter than ${minimum / 60 === 1 ? "a minute" : `${Math.round(minimum / 60)} minutes`} stay in your history but do not count toward your streak or totals.</p>` : ""}
          <div data-history aria-live="polite"><p class="hint">Saving…</p></div>
          <button class="button primary wide" type="button" data-action="done">Done</button>
        </div>
      </section>`;
    announce(full ? "Session complete" : "Session ended");
    this.container.querySelector('[data-action="done"]').addEventListener("click", () => {
      this.showSetup();
      this.focusAction("start");
    });
    this.focusAction("done");
    await flush();
    const box = this.container.querySelector("[data-history]");
    if (box) this.loadHistory(box, { kept: record });
  }
}
