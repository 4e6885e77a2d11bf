// Lengths of time as the app writes them, from seconds: a player's "12:40" or "1:02:05", a loop's
// "0:07.4", a list's "1 h 5 min" and an estimate's "about 40 s". Times of day are the browser's
// own (toLocaleTimeString, Intl.DateTimeFormat) and are not made here.

const pad = (number) => String(number).padStart(2, "0");

/** A place or what is left, in whole seconds rounded down: "12:40", or "1:02:05" from an hour. */
export function clock(seconds) {
  const whole = Math.max(0, Math.floor(seconds || 0));
  const h = Math.floor(whole / 3600), m = Math.floor((whole % 3600) / 60), s = whole % 60;
  return h ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
}

/** A place to a tenth of a second, for a loop's ends: "0:07.4", "3:12.0". */
export function clockTenths(seconds) {
  const time = Math.max(0, seconds);
  const minutes = Math.floor(time / 60);
  return `${minutes}:${(time - minutes * 60).toFixed(1).padStart(4, "0")}`;
}

/** A length as a list shows it: "1 h 5 min", "12 min", "40 s". */
export function length(seconds) {
  const s = Math.round(seconds || 0);
  if (s < 60) return `${s} s`;
  const m = Math.round(s / 60);
  return m >= 60 ? `${Math.floor(m / 60)} h${m % 60 ? ` ${m % 60} min` : ""}` : `${m} min`;
}

/** "about 5 min" / "about 5 min 20 s" / "about 40 s" for an estimate in seconds. */
export function aboutLength(seconds) {
  const whole = Math.round(seconds || 0);
  if (whole < 60) return `about ${whole} s`;
  const minutes = Math.floor(whole / 60), rest = whole % 60;
  return rest ? `about ${minutes} min ${rest} s` : `about ${minutes} min`;
}
