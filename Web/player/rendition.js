// Renditions (issues 31 and 46): `GET …/audio?until=SECONDS` answers the same audio on the same
// timeline ending at that second, its last SLEEP_FADE_SECONDS falling to silence, and the whole
// file for an `until` at or past its end; `level=0–1` (kept to the whole dB) answers it at that
// level, and `boost=true` with Boost's lift into a limiter. A player that switches to one keeps its
// place (the seconds are the same), and the fade, the stop and the level are in the audio, so they
// hold on a locked phone whose page runs no script and whose element ignores its volume (an
// iPhone). Wind Down's player (Web/wind-down/player.js) and Listen's deck (Web/listen/deck.js) ask
// for a rendition here and switch to it, and back, with the transport's switchSource
// (./transport.js), which keeps the place; a MediaLevel (./volume.js) switches to a level's.

/** The query names a rendition's address adds to its file's: a download of the file answers for
 *  them offline (downloads.js's fileKey and the service worker's keyOf leave them out). */
export const RENDITION_PARAMS = ["until", "level", "boost"];

/** Whether the server answers a rendition of `src`: a library item's file, an episode's download
 *  (a streamed episode answers the stream), Up Next's joined stream (a station, a LibriVox section
 *  have none). */
export function hasRendition(src) {
  return /^\/api\/(library|episodes|winddown|streams)\//.test(src ?? "");
}

/** Whether `src` is a radio station's stream relayed by the server, which it shapes on the way
 *  (an `until` there is seconds of sound from the stream's start, a level, Boost); not the hls=1
 *  playlist a browser with HLS of its own reads. */
export function isStationRelay(src) {
  return /^\/api\/radio\/stations\/[^/?#]+\/stream(\?alternate=1)?$/.test(shapedURL(src, {}));
}

/** The address of `src`'s rendition that ends at `until` seconds (the server keeps tenths). */
export function renditionURL(src, until) {
  return shapedURL(src, { ...shapeOf(src), until });
}

/** The second a rendition's address ends at, or null for a plain address. */
export function renditionEnd(src) {
  return shapeOf(src).until;
}

/** Whether `src` asks the server for a rendition (an end, a level or Boost), not the file itself. */
export function isRendition(src) {
  const { until, gain, boost } = shapeOf(src);
  return until != null || gain !== 0 || boost;
}

/** Asks the server for `src`'s first byte, so a rendition is made (a second or so, once) while the
 *  player plays on; resolves when it is there, or failed (the switch to it then says so). */
export function prepareRendition(src) {
  return fetch(src, { headers: { Range: "bytes=0-0" }, credentials: "same-origin" }).then((answer) => answer.arrayBuffer(), () => null);
}

/** A level (0–1) to the whole dB the server keeps: −60 and under is silence. */
export function gainOf(level) {
  const value = Number(level);
  if (!(value > 0.001)) return -60;
  return Math.max(-60, Math.min(0, Math.round(20 * Math.log10(Math.min(1, value)))));
}

/** What `src`'s address asks of its rendition: {until, gain (whole dB, 0 for the file's own), boost}. */
export function shapeOf(src) {
  const query = new URL(src ?? "", "http://x/").searchParams;
  const level = query.get("level");
  return {
    until: query.has("until") ? Number(query.get("until")) : null,
    gain: level == null ? 0 : gainOf(level),
    boost: query.get("boost") === "true",
  };
}

/** `src`'s address asking for `until` (or none), a level (`gain` in dB, 0: the file's own) and Boost,
 *  its other query kept; the plain file when it asks for none. */
export function shapedURL(src, { until = null, gain = 0, boost = false } = {}) {
  const [path, query = ""] = (src ?? "").split("?");
  const params = new URLSearchParams(query);
  for (const name of RENDITION_PARAMS) params.delete(name);
  if (until != null) params.set("until", until.toFixed(1));
  if (gain < 0) params.set("level", gain <= -60 ? "0" : (10 ** (gain / 20)).toFixed(4));
  if (boost) params.set("boost", "true");
  const rest = params.toString();
  return rest ? `${path}?${rest}` : path;
}

/**
 * Where a shaped `src` (an end, a level, Boost) is asked for, when the device is online: a library
 * item's file or an episode's download through the joined-stream endpoint (GET
 * /api/streams/audio, one part: the same timeline), which the server makes as it is read, so it
 * plays at once, where a file's rendition is made before its first byte (a timer's in about a
 * second, a long book's level in minutes). Anything else, and everything offline (a download
 * answers the file's own address), at its own address.
 */
export function shapeBase(src) {
  const match = /^\/api\/(library|episodes)\/([0-9a-f-]{36})\/audio$/.exec(src ?? "");
  if (!match || navigator.onLine === false) return src;
  return `/api/streams/audio?${new URLSearchParams({ parts: `${match[1] === "library" ? "library" : "podcast"}:${match[2]}` })}`;
}

/** `src` in `shape` ({until, gain, boost}): itself when the shape asks for nothing, else its
 *  rendition at `shapeBase`'s address. */
export function shapedSource(src, shape) {
  const { until = null, gain = 0, boost = false } = shape;
  return until == null && gain === 0 && !boost ? shapedURL(src, {}) : shapedURL(shapeBase(src), shape);
}

/** The address of `src` at `level` (0–1; its other asks kept). */
export function levelURL(src, level) {
  return shapedURL(src, { ...shapeOf(src), gain: gainOf(level) });
}
