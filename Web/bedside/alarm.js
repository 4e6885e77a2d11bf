// Bedside's alarm in the browser, the twin of Bedside's AlarmRule and AlarmRun (Swift): both answer
// the cases in Tests/Shared/bedside-alarm-cases.json (e2e/test_bedside.py runs them here).
//
// Times are milliseconds since 1970 and days follow the device's own time zone, as its clock does.
// The run is moved by wall-clock time (`tick(run, Date.now(), …)`), never by counting timer ticks,
// so a page whose timers were held back still rings as soon as it runs again.

export const SNOOZE_SECONDS = 9 * 60;
export const GREETING_DELAY_SECONDS = 5;
export const CHIME_RISE_SECONDS = 60;

/** The settings' alarm ({time: "HH:MM", enabled, days}) as a rule; null when it is not one. */
export function rule(alarm) {
  if (!alarm || typeof alarm.time !== "string") return null;
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(alarm.time);
  if (!match) return null;
  const days = Array.isArray(alarm.days) ? alarm.days.filter((day) => Number.isInteger(day) && day >= 0 && day <= 6) : [];
  return { hour: Number(match[1]), minute: Number(match[2]), enabled: Boolean(alarm.enabled), days };
}

/** The first moment after `now` that `rule` rings, on this device's clock; null when it is off. */
export function nextRing(rule, now) {
  if (!rule || !rule.enabled) return null;
  const today = new Date(now);
  today.setHours(0, 0, 0, 0);
  for (let offset = 0; offset <= 7; offset += 1) {
    const ring = new Date(today.getFullYear(), today.getMonth(), today.getDate() + offset, rule.hour, rule.minute, 0, 0);
    // A time the clocks skip (a spring change) rings at the first minute after the gap, as Swift's
    // calendar answers.
    if (ring.getHours() !== rule.hour || ring.getMinutes() !== rule.minute) ring.setMinutes(0);
    if (ring.getTime() <= now) continue;
    if (rule.days.length === 0 || rule.days.includes(ring.getDay())) return ring.getTime();
  }
  return null;
}

/** Off until `set`. */
export function createRun() {
  return { state: "off", rule: null, ringAt: null, since: null, greetingDue: null };
}

/**
 * The alarm is set (or changed) at `now`: it arms for its next time. Returns the effects to carry
 * out: "startChime", "stopChime", "speakGreeting", "clearCompleted", "disable". The greeting's flag
 * starts clear, so only a piece finished from now on earns the greeting.
 */
export function set(run, newRule, now) {
  run.rule = newRule;
  run.since = null;
  run.greetingDue = null;
  run.ringAt = nextRing(newRule, now);
  run.state = run.ringAt === null ? "off" : "armed";
  return newRule && newRule.enabled ? ["clearCompleted"] : [];
}

/** Time passes to `now`; `completed` is contentCompletedSuccessfully as it stands. */
export function tick(run, now, completed) {
  if ((run.state === "armed" || run.state === "snoozed") && now >= run.ringAt) {
    run.state = "ringing";
    run.since = now;
    run.ringAt = null;
    run.greetingDue = completed ? now + GREETING_DELAY_SECONDS * 1000 : null;
    return ["startChime"];
  }
  if (run.state === "ringing" && run.greetingDue !== null && now >= run.greetingDue) {
    run.greetingDue = null;
    return ["speakGreeting", "clearCompleted"];
  }
  return [];
}

/** Snooze: the chime stops and rings again in 9 minutes. */
export function snooze(run, now) {
  if (run.state !== "ringing") return [];
  run.state = "snoozed";
  run.ringAt = now + SNOOZE_SECONDS * 1000;
  run.since = null;
  run.greetingDue = null;
  return ["stopChime"];
}

/** Stop: the chime ends; a repeating alarm arms for its next day, a one-time alarm turns off. */
export function stop(run, now) {
  if (run.state !== "ringing" && run.state !== "snoozed") return [];
  const effects = ["stopChime", "clearCompleted"];
  run.since = null;
  run.greetingDue = null;
  const next = run.rule && run.rule.days.length ? nextRing(run.rule, now) : null;
  if (next !== null) {
    run.state = "armed";
    run.ringAt = next;
  } else {
    run.state = "off";
    run.ringAt = null;
    if (run.rule) run.rule = { ...run.rule, enabled: false };
    effects.push("disable");
  }
  return effects;
}

/** How far off `at` is, for people: "in 7 h 12 min", "in 3 min", "in less than a minute". */
export function fromNow(at, now) {
  const minutes = Math.ceil((at - now) / 60000);
  if (minutes <= 1) return at - now < 60000 ? "in less than a minute" : "in 1 min";
  const hours = Math.floor(minutes / 60);
  return hours ? `in ${hours} h ${minutes % 60} min` : `in ${minutes} min`;
}
