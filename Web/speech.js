// Speaking a script through the server's speech pipeline, for every screen that does (Settings'
// Try a voice, Bedside): the render started and followed to its end (the cache makes a script heard
// before done at once), and captions read from the render's timeline, so the phrase and word shown
// are the ones the audio is saying at its own current time.

import { api } from "./api.js";
import { escapeHTML } from "./dom.js";

/** AAC plays everywhere, iPhones included; Opus where AAC is missing. */
export function audioFormat() {
  return document.createElement("audio").canPlayType("audio/mp4") ? "m4a" : "opus";
}

/**
 * Renders `text` with `voice` (the server's default when empty) and `rate`, and resolves with the
 * finished render (its audioURL, captionsURL, timelineURL, warnings). `progress(fraction)` hears
 * how far it is; `opening(url)` hears, once, where the opening (up to the end of the first
 * phrase) can be played while the rest is spoken; `cancelled()` ends the wait early (rejects
 * with an error named "AbortError").
 */
export async function render(text, { voice, rate }, { progress = () => {}, opening = null, cancelled = () => false } = {}) {
  const body = { text, rate: rate || 1, format: audioFormat() };
  if (voice) body.voice = voice;
  let render = await api("/api/speech/renders", { method: "POST", body });
  let heard = !opening;
  while (render.status === "rendering") {
    progress(render.progress);
    if (!heard && render.firstPhraseURL) {
      heard = true;
      opening(render.firstPhraseURL);
    }
    // Asked often until the opening is there (it comes within a second), then calmly.
    await new Promise((resolve) => setTimeout(resolve, heard ? 400 : 100));
    if (cancelled()) throw Object.assign(new Error("Stopped."), { name: "AbortError" });
    render = await api(`/api/speech/renders/${render.id}`);
  }
  if (render.status === "failed") throw new Error(render.error || "The voice could not speak this. Try again.");
  if (cancelled()) throw Object.assign(new Error("Stopped."), { name: "AbortError" });
  progress(1);
  return render;
}

/**
 * Calls `paint()` while `audio` plays (every 100 ms, finer than its timeupdate events), and once
 * at every seek, pause and end; nothing runs while it is silent. Returns a function that stops.
 */
export function follow(audio, paint) {
  let timer = null;
  const still = () => { clearInterval(timer); timer = null; paint(); };
  const playing = () => { clearInterval(timer); timer = setInterval(paint, 100); };
  const events = [["playing", playing], ["pause", still], ["ended", still], ["emptied", still], ["seeked", paint], ["timeupdate", paint]];
  for (const [type, handler] of events) audio.addEventListener(type, handler);
  return () => {
    clearInterval(timer);
    for (const [type, handler] of events) audio.removeEventListener(type, handler);
  };
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
