// Speaking a script through the server's speech pipeline, for every screen that does (Settings'
// Try a voice, Bedside, articles read aloud): the render started and followed to its end (the cache
// makes a script heard before done at once), its opening played while the rest is spoken and handed
// over to the whole render at the seam, and captions read from the render's timeline, so the phrase
// and word shown are the ones the audio is saying at its own current time.

import { api, ApiError } from "./api.js";
import { escapeHTML } from "./dom.js";

export { follow } from "./player/transport.js";

/** AAC plays everywhere, iPhones included; Opus where AAC is missing. */
export function audioFormat() {
  return document.createElement("audio").canPlayType("audio/mp4") ? "m4a" : "opus";
}

/**
 * Renders `text` with `voice` (the server's default when empty) and `rate`, and resolves with the
 * finished render (its audioURL, captionsURL, timelineURL, warnings). `progress(fraction)` hears
 * how far it is; `opening(url)` hears, once, where the opening (up to the end of the first
 * phrase) can be played while the rest is spoken (play it with `playOpening`, then hand over with
 * `continueAfterOpening`); or, given `live(url)` instead, where the whole plays as it is spoken,
 * as soon as the render is started (…/live: from its first byte to its end in one stream, with no
 * handover, so a locked phone hears it all; it has no length and no seeking). The stream waits
 * on the server for the first phrase, up to 30 s, so its first bytes come as they are made, not
 * at the next poll after; a voice slower than that fails it (409), and the finished render is
 * the player's to play. `cancelled()` turning true, or `signal` (an AbortSignal) aborting, ends
 * the wait early (rejects with an error named "AbortError") and lets go of the render: the server
 * hears so (DELETE), stops speaking what nobody else waits for, and counts it no more. An abort
 * is told at once; `cancelled()` is looked at between polls. Leaving the page lets go too. A
 * person has two renders running at most: a third waits for one to finish.
 */
export async function render(text, { voice, rate }, { progress = () => {}, opening = null, live = null, cancelled = () => false, signal = null } = {}) {
  const over = () => cancelled() || Boolean(signal?.aborted);
  const body = { text, rate: rate || 1, format: audioFormat() };
  if (voice) body.voice = voice;
  let render;
  for (let attempt = 0; !render; attempt += 1) {
    if (over()) throw stopped();
    try {
      render = await api("/api/speech/renders", { method: "POST", body });
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 429) || attempt >= 30) throw error;
      await pause(1000, signal);
    }
  }
  if (render.status !== "rendering") return finished(render, over, progress);
  const followed = { id: render.id };
  following.add(followed);
  const letGoOnAbort = () => letGo(followed);
  signal?.addEventListener("abort", letGoOnAbort);
  try {
    let heard = !opening && !live;
    while (render.status === "rendering") {
      if (over()) {
        letGo(followed);
        throw stopped();
      }
      progress(render.progress);
      // The live stream at once (it waits on the server for the first phrase); the opening once
      // the first phrase is spoken (asked sooner, it would wait for it and, on a voice that takes
      // longer than the server waits, fail).
      if (!heard && live && render.liveURL) {
        heard = true;
        live(render.liveURL);
      } else if (!heard && opening && render.firstPhraseURL) {
        heard = true;
        opening(render.firstPhraseURL);
      }
      // Asked often until the opening is there (it comes within a second), then calmly.
      await pause(heard ? 400 : 100, signal);
      if (over()) continue;
      render = await api(`/api/speech/renders/${render.id}`);
    }
  } finally {
    following.delete(followed);
    signal?.removeEventListener("abort", letGoOnAbort);
  }
  return finished(render, over, progress);
}

/** The end of `render`'s wait: the render, or why there is none. */
function finished(render, over, progress) {
  if (over()) throw stopped();  // (first: a render let go of fails, as nobody hears)
  if (render.status === "failed") throw new Error(render.error || "The voice could not speak this. Try again.");
  progress(1);
  return render;
}

function stopped() {
  return Object.assign(new Error("Stopped."), { name: "AbortError" });
}

/** Waits `ms`, or less when `signal` aborts (none when it has). */
function pause(ms, signal) {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
  });
}

/** The renders being followed here, each { id, gone } (gone: let go of already). */
const following = new Set();

/** Tells the server, once, that nobody here waits for the render any more (errors are ignored:
 *  one that ended meanwhile, or a server out of reach, needs nothing). */
function letGo(followed, { keepalive = false } = {}) {
  if (followed.gone) return;
  followed.gone = true;
  api(`/api/speech/renders/${followed.id}`, { method: "DELETE", keepalive }).catch(() => {});
}

// A page closed or reloaded follows nothing any more (one kept for going back to is still there).
addEventListener("pagehide", (event) => {
  if (event.persisted) return;
  for (const followed of following) letGo(followed, { keepalive: true });
});

/**
 * Plays a render's opening (the `url` that `render` handed to `opening`) through `transport` (a
 * Web/player/transport.js Transport), at its speed; resolves with whether it plays (false when the
 * browser refused, or when something else took the transport first).
 */
export async function playOpening(transport, url) {
  transport.load(url);
  return (await transport.play()) === "playing";
}

/** Whether `transport` holds a render's opening (…/first), whose end is not the end of what is said. */
export function holdsOpening(transport) {
  return /\/api\/speech\/renders\/[^/]+\/first$/.test(transport.src || "");
}

/** Whether `transport` holds a render heard as it is spoken (…/live), which ends where the render does. */
export function holdsLive(transport) {
  return /\/api\/speech\/renders\/[^/]+\/live$/.test(transport.src || "");
}

/**
 * Hands `transport`, which holds a render's opening (playing, paused or played to its end), over
 * to the whole render at `url`, at the seam: once the opening has ended, or the person paused it,
 * the whole is loaded at the second the opening reached and goes on from there. The whole holds
 * the same audio from its start, and the opening ends where its first phrase does, in the pause
 * after it, so nothing is heard twice or skipped and the load falls in that pause. Resolves, once
 * the whole is loaded, with what it is doing: "playing" (asked to play on), "paused" (the person
 * paused the opening, or it never played: the whole waits where it was), or "ended" (the opening
 * held all there was, a script of one phrase: the whole waits at its end, and its end is now).
 * When `cancelled()` turns true meanwhile it leaves the transport to its new owner: "cancelled".
 */
export async function continueAfterOpening(transport, url, { cancelled = () => false } = {}) {
  if (transport.playing) {
    await new Promise((resolve) => {
      const stops = ["ended", "pause", "emptied"].map((type) => transport.on(type, () => {
        for (const stop of stops) stop();
        resolve();
      }));
    });
  }
  if (cancelled()) return "cancelled";
  const goOn = transport.ended;
  const at = goOn ? transport.duration : transport.position;
  transport.load(url);
  await transport.whenLoaded();
  if (cancelled()) return "cancelled";
  if (Number.isFinite(at) && at > 0) transport.seek(at, { margin: 0 });
  if (!goOn) return "paused";
  if (transport.duration - at < 0.05) return "ended";  // (an unknown length goes on)
  transport.play();
  return "playing";
}

/** The voices (GET /api/speech/voices) as <option>s, grouped by engine, the natural one first. */
export function voiceOptionsHTML(voices) {
  const engines = [...new Set(voices.map((voice) => voice.engine))];
  return engines.map((engine) => `
    <optgroup label="${engine === "piper" ? "Natural (Piper)" : engine === "espeak-ng" ? "Fast (eSpeak NG)" : escapeHTML(engine)}">
      ${voices.filter((voice) => voice.engine === engine).map((voice) =>
        `<option value="${escapeHTML(voice.id)}">${escapeHTML(voice.name)} · ${escapeHTML(voice.language)}</option>`).join("")}
    </optgroup>`).join("");
}

/** `render`, then its timeline: resolves with { render, timeline }. */
export async function speak(text, settings, options) {
  const done = await render(text, settings, options);
  return { render: done, timeline: await api(done.timelineURL) };
}

/**
 * Where the timeline is at `seconds`: the phrase being said (or the last one said, through the
 * pause after it) and the word being said in it (-1 between words). null before the first phrase.
 */
export function captionAt(timeline, seconds) {
  const ms = seconds * 1000;
  let phrase = null;
  for (const candidate of timeline.phrases) {
    if (candidate.startMs > ms) break;
    phrase = candidate;
  }
  if (!phrase) return null;
  const word = ms < phrase.endMs ? phrase.words.findIndex((w) => ms >= w.startMs && ms < w.endMs) : -1;
  return { phrase, word, speaking: ms < phrase.endMs };
}

/** The caption's HTML: the phrase's words, the current one in a <mark>. */
export function captionHTML(caption) {
  if (!caption) return "";
  const { phrase, word } = caption;
  if (!phrase.words.length) return escapeHTML(phrase.text);
  return phrase.words.map((w, index) => (index === word ? `<mark>${escapeHTML(w.text)}</mark>` : escapeHTML(w.text))).join(" ");
}
