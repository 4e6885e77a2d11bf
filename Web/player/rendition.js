// The sleep timer's renditions (issue 31): `GET …/audio?until=SECONDS` answers the same audio on
// the same timeline ending at that second, its last SLEEP_FADE_SECONDS falling to silence, and the
// whole file for an `until` at or past its end. A player that switches to one keeps its place (the
// seconds are the same), and the fade and the stop are in the audio, so they happen on a locked
// phone whose page runs no script. Wind Down's player (./player.js) and Listen's deck (./deck.js)
// switch to a rendition, and back, through here.

/** Whether the server answers a rendition of `src`: a library item's file or an episode's download
 *  (a streamed episode answers the stream; a station, a LibriVox section have none). */
export function hasRendition(src) {
  return /^\/api\/(library|episodes|winddown)\//.test(src ?? "");
}

/** The address of `src`'s rendition that ends at `until` seconds (the server keeps tenths). */
export function renditionURL(src, until) {
  return `${src}${src.includes("?") ? "&" : "?"}until=${until.toFixed(1)}`;
}

/** The second a rendition's address ends at, or null for a plain address. */
export function renditionEnd(src) {
  const match = /[?&]until=([0-9.]+)/.exec(src ?? "");
  return match ? Number(match[1]) : null;
}

/**
 * Switches `audio` to `src` keeping its place: once the new source's length is known, it goes to
 * `at` seconds (a number, or a function read then, for a place that moved while it loaded; by
 * default where it was), keeps its speed, and plays if it was playing. Resolves with true once
 * there, false when `src` was already playing or did not load (its error event says why).
 */
export async function switchSource(audio, src, { at = audio.currentTime || 0, play = !audio.paused } = {}) {
  if (audio.getAttribute("src") === src) return false;
  const rate = audio.playbackRate;
  audio.pause();
  audio.src = src;
  const loaded = await new Promise((resolve) => {
    const done = (event) => {
      audio.removeEventListener("loadedmetadata", done);
      audio.removeEventListener("error", done);
      resolve(event.type === "loadedmetadata");
    };
    audio.addEventListener("loadedmetadata", done);
    audio.addEventListener("error", done);
  });
  if (!loaded || audio.getAttribute("src") !== src) return false;
  const place = typeof at === "function" ? at() : at;
  audio.playbackRate = rate;  // a new source starts at the default rate
  audio.currentTime = Math.min(place, Math.max(0, (audio.duration || place) - 0.25));
  if (play) try { await audio.play(); } catch { /* resumed by the person */ }
  return true;
}
