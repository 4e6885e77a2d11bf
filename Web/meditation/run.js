// The meditation session machine in the browser: idle → active ⇄ paused → complete | ended early.
// The same rules as the server's Breathing engine (MeditationRun), on the plan the server made.
//
// A session is one sound (the plan's `sound`: every cue at its time, the bell at the end), and its
// time is where that sound has got to: each tick, pause and end is given the position of the audio
// (its currentTime, in seconds), and elapsed is the furthest position heard. Wall-clock time (`now`,
// ms) only dates the record, measures a pause against its 30 minutes and the saved state against
// its hour; it never counts as meditated. So a locked phone, whose scripts stop while the sound
// plays on, is right the moment it wakes, and time away from a closed app is not credited.

import { uuid } from "../ids.js";

export const STATE_KEY = "meditation-session-state";
export const STALE_AFTER_MS = 60 * 60 * 1000;
export const PAUSE_TIMEOUT_MS = 30 * 60 * 1000;

/** A new session for a plan from GET /api/meditation/plan. */
export function createRun(plan) {
  return {
    status: "idle",
    sessionType: plan.sessionType,
    durationMinutes: plan.durationMinutes,
    sessionStartedAt: null,
    pausedAt: null,
    heardSeconds: 0,
    currentPhaseIndex: 0,
    savedAt: null,
    plan,
  };
}

/** Seconds of meditation so far: the furthest position of the session's sound heard, at most the
 *  session's length. */
export function elapsed(run) {
  return Math.min(run.plan.totalSeconds, run.heardSeconds);
}

export function remaining(run) {
  return run.plan.totalSeconds - elapsed(run);
}

export function phaseIndex(plan, seconds) {
  let index = 0;
  plan.phases.forEach((phase, i) => { if (phase.startSeconds <= seconds) index = i; });
  return index;
}

/** The position heard so far moves forward only: an element reloaded at 0, before its seek to the
 *  saved place, does not take back what was heard. `now` is when the sound was at `position`. */
function hear(run, position, now) {
  if (Number.isFinite(position) && position > run.heardSeconds) run.heardSeconds = position;
  run.savedAt = now;
}

export function start(run, now) {
  if (run.status !== "idle") return [];
  run.status = "active";
  run.sessionStartedAt = now;
  run.heardSeconds = 0;
  run.currentPhaseIndex = 0;
  run.savedAt = now;
  return [{ type: "phase", index: 0, title: run.plan.phases[0].title }];
}

/** Pauses an active session at `position`. At or past the end there is nothing to pause: the
 *  next tick completes the session. */
export function pause(run, now, position) {
  if (run.status !== "active") return false;
  if (Math.max(run.heardSeconds, position) >= run.plan.totalSeconds) return false;
  hear(run, position, now);
  run.status = "paused";
  run.pausedAt = now;
  return true;
}

export function resume(run, now) {
  if (run.status !== "paused") return false;
  if (now - run.pausedAt >= PAUSE_TIMEOUT_MS) return false;
  run.pausedAt = null;
  run.status = "active";
  run.savedAt = now;
  return true;
}

/** Ends before the time: a partial record of what was heard. A paused session's sound stood
 *  still, so its position is the one it paused at. */
export function endEarly(run, now, position) {
  if (run.status !== "active" && run.status !== "paused") return null;
  const paused = run.status === "paused";
  if (!paused) hear(run, position, now);
  const record = makeRecord(run, elapsed(run), paused ? run.pausedAt : now, false);
  run.status = "endedEarly";
  run.savedAt = now;
  return record;
}

/** Brings the run up to `now`, when its sound is at `position`; returns what happened, in order. */
export function tick(run, now, position) {
  if (run.status === "paused") {
    if (now - run.pausedAt < PAUSE_TIMEOUT_MS) return [];
    const record = makeRecord(run, elapsed(run), run.pausedAt, false);
    run.status = "endedEarly";
    run.savedAt = now;
    return [{ type: "ended", record, timedOut: true }];
  }
  if (run.status !== "active") return [];
  // The end is dated when the sound reached it: from the last place heard going on without a stop,
  // and no later than the position now allows (the sound went past the end since).
  const total = run.plan.totalSeconds;
  const past = Number.isFinite(position) ? Math.max(0, position - total) : 0;
  const end = Math.max(run.sessionStartedAt, Math.min(run.savedAt + (total - run.heardSeconds) * 1000, now - past * 1000));
  hear(run, position, now);
  const events = [];
  const seconds = elapsed(run);
  const phase = phaseIndex(run.plan, seconds);
  if (phase !== run.currentPhaseIndex) {
    run.currentPhaseIndex = phase;
    events.push({ type: "phase", index: phase, title: run.plan.phases[phase].title });
  }
  if (seconds >= total) {
    run.status = "complete";
    events.push({ type: "complete", record: makeRecord(run, total, end, true) });
  }
  return events;
}

/** The breath `seconds` into the breathing phase: step word, scale and opacity (eased). */
export function breath(pattern, seconds) {
  const cycle = pattern.reduce((sum, step) => sum + step.seconds, 0);
  let within = ((Math.max(0, seconds) % cycle) + cycle) % cycle;
  for (const [index, step] of pattern.entries()) {
    if (within < step.seconds || index === pattern.length - 1) {
      const t = Math.min(1, within / step.seconds);
      const eased = (1 - Math.cos(Math.PI * t)) / 2;
      return {
        kind: step.kind, word: step.word, index,
        scale: step.scaleFrom + (step.scaleTo - step.scaleFrom) * eased,
        opacity: step.opacityFrom + (step.opacityTo - step.opacityFrom) * eased,
      };
    }
    within -= step.seconds;
  }
  return { kind: "rest", word: "Rest", index: 0, scale: 1, opacity: 0.6 };
}

// MARK: - Saving and recovery

/** Keeps the run on this device (`meditation-session-state`): the screen saves it on every
 *  change and as the heard position advances, so recovery resumes where the sound stopped. */
export function save(run) {
  localStorage.setItem(STATE_KEY, JSON.stringify(run));
}

export function clearSaved() {
  localStorage.removeItem(STATE_KEY);
}

/** The saved session if it can be resumed (active or paused, saved under an hour ago, with a
 *  position and a plan whose sound can be played); stale or unreadable state is removed silently
 *  and null returned. Its elapsed is the position it had reached: the time away is not counted. */
export function recover(now) {
  let saved = null;
  try {
    saved = JSON.parse(localStorage.getItem(STATE_KEY) || "null");
  } catch {
    saved = null;
  }
  const usable = saved && (saved.status === "active" || saved.status === "paused") && saved.plan && saved.plan.sound
    && Number.isFinite(saved.heardSeconds) && saved.savedAt != null && now - saved.savedAt < STALE_AFTER_MS && now >= saved.savedAt;
  if (!usable) {
    clearSaved();
    return null;
  }
  return saved;
}

// MARK: - Records

function makeRecord(run, seconds, endedAt, fully) {
  return {
    id: uuid(),
    session_type: run.sessionType,
    started_at: new Date(run.sessionStartedAt).toISOString(),
    completed_at: new Date(endedAt).toISOString(),
    planned_duration_seconds: run.plan.totalSeconds,
    actual_duration_seconds: Math.round(seconds),
    completed_fully: fully,
  };
}
