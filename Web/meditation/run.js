// The meditation session machine in the browser: idle → active ⇄ paused → complete | ended early.
// The same rules as the server's Breathing engine (MeditationRun), on the plan the server made:
// elapsed time comes from timestamps (sessionStartedAt, pausedAt, pausedElapsed), never from
// counting ticks, so a tab that slept or a locked phone is right the moment it wakes.

export const STATE_KEY = "meditation-session-state";
export const STALE_AFTER_MS = 60 * 60 * 1000;
export const PAUSE_TIMEOUT_MS = 30 * 60 * 1000;
/** A cue or the bell found later than this (the device slept) is skipped, not played. */
export const LATE_TOLERANCE_S = 5;

/** A new session for a plan from GET /api/meditation/plan. */
export function createRun(plan) {
  return {
    status: "idle",
    sessionType: plan.sessionType,
    durationMinutes: plan.durationMinutes,
    sessionStartedAt: null,
    pausedAt: null,
    pausedElapsed: 0,
    scheduledCues: plan.cues.map((cue) => ({ atSeconds: cue.atSeconds, audioFile: cue.audio.audioFile, url: cue.audio.url,
      durationMs: cue.audio.durationMs, played: false })),
    currentPhaseIndex: 0,
    savedAt: null,
    plan,
  };
}

/** Seconds of meditation so far (pauses left out), at most the session's length. */
export function elapsed(run, now) {
  if (run.sessionStartedAt == null) return 0;
  const end = run.status === "paused" ? run.pausedAt : now;
  return Math.min(run.plan.totalSeconds, Math.max(0, (end - run.sessionStartedAt) / 1000 - run.pausedElapsed));
}

export function remaining(run, now) {
  return run.plan.totalSeconds - elapsed(run, now);
}

export function phaseIndex(plan, seconds) {
  let index = 0;
  plan.phases.forEach((phase, i) => { if (phase.startSeconds <= seconds) index = i; });
  return index;
}

export function start(run, now) {
  if (run.status !== "idle") return [];
  run.status = "active";
  run.sessionStartedAt = now;
  run.currentPhaseIndex = 0;
  run.savedAt = now;
  return [{ type: "phase", index: 0, title: run.plan.phases[0].title }, ...tick(run, now)];
}

export function pause(run, now) {
  if (run.status !== "active") return false;
  run.status = "paused";
  run.pausedAt = now;
  run.savedAt = now;
  return true;
}

export function resume(run, now) {
  if (run.status !== "paused") return false;
  if (now - run.pausedAt >= PAUSE_TIMEOUT_MS) return false;
  run.pausedElapsed += (now - run.pausedAt) / 1000;
  run.pausedAt = null;
  run.status = "active";
  run.savedAt = now;
  return true;
}

/** Ends before the time: a partial record; no bell, no more cues. */
export function endEarly(run, now) {
  if (run.status !== "active" && run.status !== "paused") return null;
  const endedAt = run.status === "paused" ? run.pausedAt : now;
  const record = makeRecord(run, elapsed(run, now), endedAt, false);
  run.status = "endedEarly";
  run.savedAt = now;
  return record;
}

/** Brings the run up to `now`; returns what happened, in order. */
export function tick(run, now) {
  if (run.status === "paused") {
    if (now - run.pausedAt < PAUSE_TIMEOUT_MS) return [];
    const record = makeRecord(run, elapsed(run, now), run.pausedAt, false);
    run.status = "endedEarly";
    run.savedAt = now;
    return [{ type: "ended", record, timedOut: true }];
  }
  if (run.status !== "active") return [];
  const events = [];
  const seconds = elapsed(run, now);
  const phase = phaseIndex(run.plan, seconds);
  if (phase !== run.currentPhaseIndex) {
    run.currentPhaseIndex = phase;
    events.push({ type: "phase", index: phase, title: run.plan.phases[phase].title });
  }
  const real = (now - run.sessionStartedAt) / 1000 - run.pausedElapsed;
  for (const cue of run.scheduledCues) {
    if (cue.played || cue.atSeconds > seconds) continue;
    cue.played = true;
    events.push({ type: real - cue.atSeconds <= LATE_TOLERANCE_S ? "cue" : "skip", cue });
  }
  if (seconds >= run.plan.totalSeconds) {
    const end = run.sessionStartedAt + (run.pausedElapsed + run.plan.totalSeconds) * 1000;
    run.status = "complete";
    run.savedAt = now;
    if ((now - end) / 1000 <= LATE_TOLERANCE_S) events.push({ type: "bell" });
    events.push({ type: "complete", record: makeRecord(run, run.plan.totalSeconds, end, true) });
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

export function save(run) {
  localStorage.setItem(STATE_KEY, JSON.stringify(run));
}

export function clearSaved() {
  localStorage.removeItem(STATE_KEY);
}

/** The saved session if it can be resumed (active or paused, saved under an hour ago); stale or
 *  unreadable state is removed silently and null returned. */
export function recover(now) {
  let saved = null;
  try {
    saved = JSON.parse(localStorage.getItem(STATE_KEY) || "null");
  } catch {
    saved = null;
  }
  const usable = saved && (saved.status === "active" || saved.status === "paused") && saved.plan
    && saved.savedAt != null && now - saved.savedAt < STALE_AFTER_MS && now >= saved.savedAt;
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

/** A random UUID, also where crypto.randomUUID is missing (plain http on a LAN address). */
export function uuid() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
