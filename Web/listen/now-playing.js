// The now-playing view (/listen/playing): both of Listen's players, speech above music, each with
// its seek bar (within the chapter), controls, speed, volume and Boost; above them play/pause for
// both, the sleep timer (with End of Chapter), what it says when it stopped them, and how far the
// music ducks under speech. Where no script can set a level, the volume controls say so.

import { PAUSE_ICON as PAUSE, PLAY_ICON as PLAY, icon } from "../areas.js";
import { trackCover } from "../cover.js";
import { announce, escapeHTML } from "../dom.js";
import { CHANNEL_NAMES as NAMES, DUCKING, SPEEDS, TIMER_OPTIONS, deck } from "./deck.js";
import { SLEEP_FADE_SECONDS, offlineFadeNote, sleepTimerClock, timerDialog } from "../player/sleep-timer.js";
import { clock } from "../player/time.js";
import { parseItemKey } from "../item-key.js";

const EMPTY = {
  speech: "Nothing to listen to yet. Open a book in your library and pick a chapter.",
  music: "No music playing. Pick a track in your library's Music to play it under a book.",
};
const BACK = "M4 12a8 8 0 1 0 2.3-5.7M4 4v4h4";
const FORWARD = "M20 12a8 8 0 1 1-2.3-5.7M20 4v4h-4";
const PREVIOUS = "M6 5v14M18 6l-9 6 9 6Z";
const NEXT = "M18 5v14M6 6l9 6-9 6Z";
const TIMER = "M12 21a8 8 0 1 0 0-16 8 8 0 0 0 0 16Zm0-12v4l2.5 2.5M9 2h6";
/** Said where no script can set a level (deck.levelFixed): the phone's own buttons do. */
const LEVEL_FIXED = "On iPhone, use the phone's volume buttons.";

/** Shows the view in `container`; returns what to call when the screen goes. */
export function renderNowPlaying(container) {
  container.innerHTML = `
    <section class="now" aria-labelledby="now-heading">
      <a class="back-link" href="/listen" data-link>${icon("M15 18l-6-6 6-6", 20)}<span>Library</span></a>
      <h1 id="now-heading">Now playing</h1>
      <div class="now-actions">
        <button class="button primary" type="button" data-both></button>
        <button class="button" type="button" data-timer aria-haspopup="dialog">${icon(TIMER, 20)}<span></span></button>
      </div>
      <p class="now-notice" role="status" data-notice hidden></p>
      <label class="now-duck">Music under speech
        <select data-ducking>${DUCKING.map((option) => `<option value="${option.value}">${escapeHTML(option.label)}</option>`).join("")}</select>
      </label>
      ${deck.levelFixed ? `<p class="now-level-note">${LEVEL_FIXED} The music is not lowered under speech here.</p>` : ""}
      <section class="deck-card" data-channel="speech" aria-labelledby="deck-speech"></section>
      <section class="deck-card" data-channel="music" aria-labelledby="deck-music"></section>
    </section>`;
  const $ = (selector) => container.querySelector(selector);
  $("[data-both]").addEventListener("click", () => deck.press());
  $("[data-timer]").addEventListener("click", async () => {
    if (deck.timer) { deck.cancelTimer(); announce("Sleep timer cancelled."); return; }
    const episode = parseItemKey(deck.speech.track?.item)?.kind === "podcast";
    const choices = TIMER_OPTIONS.filter((option) => option !== "episode" || episode).map((option) => option === "chapter"
      ? { value: option, label: "End of Chapter", disabled: !deck.speech.loaded }
      : option === "episode" ? { value: option, label: "End of Episode" }
      : { value: option, label: `${option} minutes` });
    const value = await timerDialog(choices, `Both players fade out over the last ${SLEEP_FADE_SECONDS} seconds and pause, even with the phone locked. End of Chapter pauses when the chapter ends; End of Episode when the episode does.${offlineFadeNote()}`);
    if (value == null) return;
    const atEnd = value === "chapter" || value === "episode";
    if (await deck.setTimer(atEnd ? value : Number(value))) {
      announce(atEnd ? `Sleep timer set: end of ${value}.` : `Sleep timer set: ${value} minutes.`);
    }
  });
  $("[data-ducking]").value = String(deck.ducking);
  $("[data-ducking]").disabled = deck.levelFixed;
  $("[data-ducking]").addEventListener("change", (event) => deck.setDucking(Number(event.target.value)));

  const cards = Object.fromEntries(deck.channels.map((channel) => [channel.kind, new Card(container.querySelector(`[data-channel="${channel.kind}"]`), channel)]));
  const paintTop = () => {
    const both = $("[data-both]");
    both.hidden = !deck.anyLoaded;
    // Says what the press (the headset's rule) will do.
    const plays = deck.pressPlays;
    both.textContent = deck.anyPlaying ? (deck.music.playing && deck.speech.playing ? "Pause both" : "Pause")
      : plays.music && plays.speech ? "Play both" : plays.music ? "Play music" : "Play speech";
    const timer = $("[data-timer]");
    timer.setAttribute("aria-pressed", String(Boolean(deck.timer)));
    timer.querySelector("span").textContent = !deck.timer ? "Sleep timer" : deck.timer.setting ? "Setting…"
      : deck.timer.option === "chapter" ? "End of chapter" : deck.timer.option === "episode" ? "End of episode" : `${sleepTimerClock(deck.timerLeft)} left`;
    timer.setAttribute("aria-label", deck.timer ? `${timer.querySelector("span").textContent}. Tap to cancel the sleep timer.` : "Sleep timer");
    const notice = $("[data-notice]");
    notice.textContent = deck.notice ?? "";
    notice.hidden = !deck.notice;
  };
  const onChange = () => { paintTop(); for (const card of Object.values(cards)) card.paint(); };
  deck.addEventListener("change", onChange);
  deck.addEventListener("timer", paintTop);
  onChange();
  return () => {
    deck.removeEventListener("change", onChange);
    deck.removeEventListener("timer", paintTop);
    for (const card of Object.values(cards)) card.close();
  };
}

/** One player's card. */
class Card {
  constructor(root, channel) {
    this.root = root;
    this.channel = channel;
    this.key = null;
    this.onTime = () => this.paintTime();
    channel.addEventListener("time", this.onTime);
  }

  close() { this.channel.removeEventListener("time", this.onTime); }

  paint() {
    const channel = this.channel, track = channel.track;
    // A new track (or chapter) gets a fresh card, so the seek bar starts from its own zero.
    const key = track ? `${channel.index}-${track.id}` : "empty";
    if (key !== this.key) { this.key = key; this.build(); }
    if (!track) return;
    const playing = channel.playing;
    const play = this.root.querySelector("[data-play]");
    play.setAttribute("aria-label", `${playing ? "Pause" : "Play"} ${NAMES[channel.kind].toLowerCase()}`);
    play.querySelector("path").setAttribute("d", playing ? PAUSE : PLAY);
    this.root.querySelector("[data-next]").disabled = !channel.hasNext;
    this.root.querySelector("[data-speed]").value = String(channel.speed);
    const volume = this.root.querySelector("[data-volume]");
    if (volume) volume.value = String(channel.volume);
    this.root.querySelector("[data-boost]").checked = channel.boost;
    const error = this.root.querySelector(".deck-error");
    error.textContent = channel.error || "";
    error.hidden = !channel.error;
    this.paintTime();
  }

  build() {
    const channel = this.channel, track = channel.track, kind = channel.kind;
    if (!track) {
      this.root.innerHTML = `
        <h2 id="deck-${kind}">${NAMES[kind]}</h2>
        <p class="deck-empty">${EMPTY[kind]} <a href="/listen" data-link>Go to the library</a></p>`;
      return;
    }
    const art = trackCover(track, "deck-art");
    // Counted within the item (Up Next puts the next item's tracks behind it).
    const own = channel.queue.filter((other) => other.book === track.book && (other.entry ?? null) === (track.entry ?? null));
    const where = track.chapter != null ? `Chapter ${track.chapter + 1} of ${own.length}` : own.length > 1 ? `${own.indexOf(track) + 1} of ${own.length}` : "";
    const sub = [kind === "speech" ? track.album : track.artist, where].filter(Boolean).map(escapeHTML).join(" · ");
    const unit = track.chapter != null ? "chapter" : "track";
    this.root.innerHTML = `
      <h2 id="deck-${kind}">${NAMES[kind]}</h2>
      <div class="deck-head">${art}<div><p class="deck-title">${escapeHTML(track.title)}</p><p class="deck-sub">${sub}</p></div></div>
      <p class="deck-error" role="alert" hidden></p>
      <input class="deck-slider" type="range" min="0" max="${Math.max(1, Math.round(channel.length))}" step="any" value="0" aria-label="Position in the ${unit}">
      <div class="deck-times"><span data-elapsed>0:00</span><span data-remaining></span></div>
      <div class="deck-controls">
        <button class="icon-button" type="button" data-previous aria-label="Previous ${unit}">${icon(PREVIOUS, 26)}</button>
        <button class="icon-button" type="button" data-back aria-label="Back 15 seconds">${icon(BACK, 28)}</button>
        <button class="deck-play" type="button" data-play>${icon(PLAY, 30)}</button>
        <button class="icon-button" type="button" data-forward aria-label="Forward 30 seconds">${icon(FORWARD, 28)}</button>
        <button class="icon-button" type="button" data-next aria-label="Next ${unit}">${icon(NEXT, 26)}</button>
      </div>
      <div class="deck-settings">
        <label>Speed <select data-speed>${SPEEDS[kind].map((speed) => `<option value="${speed}">${speed}×</option>`).join("")}</select></label>
        ${deck.levelFixed
          ? `<p class="deck-volume">Volume: ${LEVEL_FIXED}</p>`
          : `<label class="deck-volume">Volume <input type="range" min="0" max="1" step="0.05" data-volume></label>`}
        <label class="deck-boost"><input type="checkbox" role="switch" data-boost> Boost</label>
      </div>`;
    const $ = (selector) => this.root.querySelector(selector);
    const slider = $(".deck-slider");
    slider.addEventListener("input", () => { $("[data-elapsed]").textContent = clock(slider.value); });
    slider.addEventListener("change", () => channel.seek(Number(slider.value)));
    $("[data-previous]").addEventListener("click", () => channel.previous());
    $("[data-back]").addEventListener("click", () => channel.skip(-15));
    $("[data-play]").addEventListener("click", () => channel.toggle());
    $("[data-forward]").addEventListener("click", () => channel.skip(30));
    $("[data-next]").addEventListener("click", () => channel.next());
    $("[data-speed]").addEventListener("change", (event) => channel.setSpeed(Number(event.target.value)));
    $("[data-volume]")?.addEventListener("input", (event) => channel.setVolume(Number(event.target.value)));
    $("[data-boost]").addEventListener("change", (event) => {
      channel.setBoost(event.target.checked);
      announce(event.target.checked ? `${NAMES[kind]}: Boost on.` : `${NAMES[kind]}: Boost off.`);
    });
  }

  paintTime() {
    const channel = this.channel;
    const slider = this.root.querySelector(".deck-slider");
    if (!slider || !channel.track) return;
    const length = channel.length, offset = channel.offset;
    slider.max = String(Math.max(1, Math.round(length)));
    if (document.activeElement !== slider) slider.value = offset.toFixed(1);
    this.root.querySelector("[data-elapsed]").textContent = clock(offset);
    this.root.querySelector("[data-remaining]").textContent = `-${clock(length - offset)}`;
  }
}
