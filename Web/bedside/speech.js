// Speaking a script for Bedside: the render through the server's speech pipeline (its cache makes
// a piece heard before start at once), and captions read from the render's timeline so the phrase
// and word shown are the ones the audio is saying at its own current time.

import { api } from "../api.js";
import { escapeHTML } from "../dom.js";

/** AAC plays everywhere, iPhones included; Opus where AAC is missing. */
export function audioFormat() {
  return document.createElement("audio").canPlayType("audio/mp4") ? "m4a" : "opus";
}

/**
 * Renders `text` with the person's voice and speed and resolves with { render, timeline }.
 * `progress(fraction)` hears how far the render is; `cancelled()` ends the wait early (rejects
 * with an error named "AbortError").
 */
export async function speak(text, { voice, rate }, { progress = () => {}, cancelled = () => false } = {}) {
  const body = { text, rate: rate || 1, format: audioFormat() };
  if (voice) body.voice = voice;
  let render = await api("/api/speech/renders", { method: "POST", body });
  while (render.status === "rendering") {
    progress(render.progress);
    await new Promise((resolve) => setTimeout(resolve, 400));
    if (cancelled()) throw Object.assign(new Error("Stopped."), { name: "AbortError" });
    render = await api(`/api/speech/renders/${render.id}`);
  }
  if (render.status === "failed") throw new Error(render.error || "The voice could not speak this. Try again.");
  if (cancelled()) throw Object.assign(new Error("Stopped."), { name: "AbortError" });
  progress(1);
  const timeline = await api(render.timelineURL);
  return { render, timeline };
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

/** "about 5 min" / "about 40 s" for an estimate in seconds. */
export function aboutLength(seconds) {
  const whole = Math.round(seconds || 0);
  if (whole < 60) return `about ${whole} s`;
  const minutes = Math.floor(whole / 60), rest = whole % 60;
  return rest ? `about ${minutes} min ${rest} s` : `about ${minutes} min`;
}
