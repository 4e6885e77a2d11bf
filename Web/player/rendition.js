// The sleep timer's renditions (issue 31): `GET …/audio?until=SECONDS` answers the same audio on
// the same timeline ending at that second, its last SLEEP_FADE_SECONDS falling to silence, and the
// whole file for an `until` at or past its end. A player that switches to one keeps its place (the
// seconds are the same), and the fade and the stop are in the audio, so they happen on a locked
// phone whose page runs no script. Wind Down's player (Web/wind-down/player.js) and Listen's deck
// (Web/listen/deck.js) ask for a rendition here and switch to it, and back, with the transport's
// switchSource (./transport.js), which keeps the place.

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
