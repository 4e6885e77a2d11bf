// Listen's two players, playing at once: music and speech, each with its own queue, volume, speed
// (pitch kept) and Boost, under one lock screen. The seed's critical systems, in the browser:
//
// - The lock screen follows lock-screen.js (the twin of Playback's LockScreenRule); a headset or
//   lock-screen press pauses both when anything plays and resumes what the lock screen shows.
//   A pause the system imposes on one player (headphones unplugged, a call) pauses the other too.
// - Chapters are time ranges in one file. The end of a chapter is noticed by a timer and by the
//   element's time updates, each tagged with the playback generation; every load, seek, pause and
//   speed change starts a new generation, so a stale notice never advances, and a 1 s cooldown
//   after each transition stops a seek to a chapter's end from advancing twice.
// - A natural advance from N to N+1 marks N played; a skip does not.
// - Each player's queue and place are kept on this device (playbackState_Music, _Speech) and come
//   back loaded and paused; the saved place is applied only on that restore, never when a person
//   picks a chapter.
// - Progress goes into the shared log: the book or track as `library:<id>` (seconds into the file)
//   and each chapter as `library:<id>/<index>` (ended = played, unplayed = not).

import { storedJSON } from "../dom.js";
import { record } from "./progress.js";
import { artwork, sleepTimerVolume } from "./player.js";
import * as lockScreen from "./lock-screen.js";
import { lockScreenOwner } from "./media-session.js";

export const CHANNEL_NAMES = { speech: "Speech", music: "Music" };
export const NOTE_ICON = "M9 18V5l11-2v13M9 18a3 3 0 1 1-6 0 3 3 0 0 1 6 0Zm11-2a3 3 0 1 1-6 0 3 3 0 0 1 6 0Z";
export const BOOK_ICON = "M6 3h11a1 1 0 0 1 1 1v16H7a2 2 0 0 1-2-2V5a2 2 0 0 1 1-2Zm-1 15a2 2 0 0 1 2-2h11";

export const SPEEDS = { speech: [0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.5, 3], music: [0.5, 0.75, 1, 1.25, 1.5, 2] };
/** How far the music goes down while speech plays (a gain factor): off, −6, −12, −18 dB. */
export const DUCKING = [
  { value: 1, label: "Off" },
  { value: 0.5, label: "A little (−6 dB)" },
  { value: 0.25, label: "More (−12 dB)" },
  { value: 0.125, label: "Most (−18 dB)" },
];
export const TIMER_OPTIONS = [15, 30, 45, 60, "chapter", "episode"];
const COOLDOWN = 1000;
const SAVE_LOCAL_EVERY = 5000;
const SAVE_SERVER_EVERY = 15_000;
const STATE_KEYS = { music: "playbackState_Music", speech: "playbackState_Speech" };
const MODE_KEYS = { music: "audioMode_Music", speech: "audioMode_Speech" };
const DUCK_KEY = "listen-ducking";
const LOGO = "/icons/icon-512.png";

/**
 * Smart rewind: seconds to go back when playback resumes after a pause of `pausedSeconds`. Nothing
 * after a few seconds, growing with the log of the pause to 30 s after a day or more.
 */
export function smartRewind(pausedSeconds) {
  if (!(pausedSeconds > 10)) return 0;
  return Math.min(30, Math.round(30 * Math.log(pausedSeconds / 10) / Math.log(86_400 / 10)));
}

/** A chapter's key in the progress log: `library:<id>/<index>` (`ended` = played, `unplayed` = not). */
export function chapterItem(item, index) {
  return `${item}/${index}`;
}

/** A book's chapters as a queue: one track per chapter, all in the book's one file. */
export function bookTracks(book) {
  const base = { item: `library:${book.id}`, book: book.id, artist: book.author || "", album: book.title, src: book.audioURL, artwork: book.artworkURL || null };
  if (!book.chapters.length) return [{ ...base, id: book.id, chapter: null, title: book.title, start: 0, end: null }];
  return book.chapters.map((chapter, index) => ({ ...base, id: `${book.id}/${index}`, chapter: index, title: chapter.title, start: chapter.start, end: chapter.end }));
}

/** A LibriVox book streamed section by section (before or instead of a download). */
export function librivoxTracks(book) {
  const key = `librivox:${book.id}`;
  return book.sections.map((section, index) => ({
    id: `${key}/${index}`, item: key, book: key, chapter: index, title: section.title, artist: book.authors.join(", "),
    album: book.title, src: `/api/librivox/books/${book.id}/sections/${section.number}/audio`, artwork: null, start: 0, end: null,
  }));
}

/**
 * A podcast episode: one track, or one a chapter when it has chapters. `kept` is its download's
 * time map (the parts of the original kept, when silences were shortened): chapters arrive in the
 * original's seconds and are placed in the file's, and places are saved in the original's.
 */
export function episodeTracks(podcast, episode, chapters = [], kept = [], transcript = []) {
  const key = `podcast:${episode.id}`;
  const base = { item: key, book: key, artist: podcast.author || podcast.title, album: podcast.title, src: `/api/episodes/${episode.id}/audio`,
    // Covers come through the server: the app loads pictures from its own address only.
    artwork: (episode.image || podcast.image) ? `/api/podcasts/artwork?url=${encodeURIComponent(episode.image || podcast.image)}` : null, kept,
    // The transcript's lines (original seconds), so the lock screen can read along.
    transcript: transcript.map((line) => ({ start: line.start, text: line.speaker ? `${line.speaker}: ${line.text}` : line.text })) };
  if (!chapters.length) return [{ ...base, id: key, chapter: null, title: episode.title, start: 0, end: null }];
  return chapters.map((chapter, index) => ({
    ...base, id: `${key}/${index}`, chapter: index, title: chapter.title,
    start: toFile(kept, chapter.start), end: index + 1 < chapters.length ? toFile(kept, chapters[index + 1].start) : null,
  }));
}

/** A radio station in the music player: relayed by the server, its listed address the fallback. */
export function stationTrack(station) {
  const src = `/api/radio/stations/${station.id}/stream`;
  return {
    id: `radio:${station.id}`, item: null, book: null, chapter: null, title: station.name, artist: station.country || "Internet radio",
    album: "Radio", src, artwork: null, start: 0, end: null, live: true,
    fallbacks: station.url && station.url !== station.urlResolved ? [`${src}?alternate=1`] : [],
  };
}

/** Where `seconds` of an original plays in a file made with the time map `kept` (a time inside a cut: where the cut is). */
export function toFile(kept, seconds) {
  if (!kept?.length) return seconds;
  let before = 0;
  for (const [start, end] of kept) {
    if (seconds < start) return before;
    if (seconds < end) return before + seconds - start;
    before += end - start;
  }
  return before;
}

/** What second of the original `seconds` of the file is. */
export function toOriginal(kept, seconds) {
  if (!kept?.length) return seconds;
  let before = 0;
  for (const [start, end] of kept) {
    if (seconds < before + end - start) return start + Math.max(0, seconds - before);
    before += end - start;
  }
  return kept[kept.length - 1][1];
}

/** Music items as a queue. */
export function musicTracks(items) {
  return items.map((item) => ({
    id: item.id, item: `library:${item.id}`, book: null, chapter: null, title: item.title, artist: item.author || "",
    album: item.album || "", src: item.audioURL, artwork: item.artworkURL || null, start: 0, end: null,
  }));
}

// MARK: - One player

class Channel extends EventTarget {
  constructor(deck, kind) {
    super();
    this.deck = deck;
    this.kind = kind;
    this.queue = [];
    this.index = 0;
    this.speed = 1;
    this.volume = 1;
    this.duck = 1;            // music only: the ducking factor while speech plays
    this.fade = 1;            // the sleep timer's fade
    this.boost = localStorage.getItem(MODE_KEYS[kind]) === "boost";
    this.generation = 0;
    this.lastTransition = 0;
    this.restoring = false;
    this.pausedAt = null;     // wall time (ms) of the last pause, for smart rewind
    this.ownPauseUntil = 0;   // pauses before then are this code's own (not the system's)
    this.ownPlayUntil = 0;    // and plays likewise
    this.error = null;
    this.endTimer = null;
    this.lastLocalSave = 0;
    this.lastServerSave = 0;
    this.audio = this.makeElement();
  }

  get track() { return this.queue[this.index] ?? null; }
  get loaded() { return Boolean(this.track); }
  get playing() { return Boolean(this.track) && !this.audio.paused; }
  get lockState() { return { loaded: this.loaded, playing: this.playing }; }
  get hasNext() { return this.index + 1 < this.queue.length; }
  /** Seconds into the file. */
  get position() { const t = this.audio.currentTime; return Number.isFinite(t) && t >= 0 ? t : 0; }
  /** Where the track ends in the file (the file's end for a whole-file track). */
  get trackEnd() {
    const track = this.track;
    if (!track) return 0;
    if (track.end != null) return track.end;
    const d = this.audio.duration;
    return Number.isFinite(d) && d > 0 ? d : 0;
  }
  /** Seconds into the track, and its length: what the seek bar shows. */
  get offset() { return this.track ? Math.max(0, Math.min(this.position - this.track.start, this.length)) : 0; }
  get length() { return this.track ? Math.max(0, this.trackEnd - this.track.start) : 0; }

  makeElement() {
    const audio = new Audio();
    audio.preload = "auto";
    audio.preservesPitch = true;
    audio.dataset.channel = this.kind;
    audio.addEventListener("timeupdate", () => this.onTime());
    audio.addEventListener("play", () => this.onPlay());
    audio.addEventListener("pause", () => this.onPause());
    audio.addEventListener("ended", () => this.chapterEnded(this.generation));
    audio.addEventListener("loadedmetadata", () => this.changed());
    audio.addEventListener("playing", () => { if (this.error) { this.error = null; this.changed(); } });
    audio.addEventListener("ratechange", () => this.schedule());
    audio.addEventListener("error", () => {
      if (!audio.getAttribute("src")) return;
      const track = this.track;
      if (track?.fallbacks?.length && audio === this.audio) {
        // A station whose stream fails tries its next address, and says so; it plays only if
        // it was asked to (a station restored paused stays paused).
        const resume = !audio.paused;
        track.src = track.fallbacks.shift();
        this.quietly(() => { audio.src = track.src; });
        if (resume) {
          this.error = "The station's stream failed; trying its other address…";
          this.play();
        }
        this.changed();
        return;
      }
      if (track?.live) {
        this.error = "This station is not answering. It may be off the air; try another, or this one later.";
        this.changed();
        return;
      }
      this.error = "This audio could not be loaded. Check the connection, or whether it is still in your library.";
      this.changed();
    });
    this.graph = null;
    return audio;
  }

  changed() {
    this.schedule();
    this.applyGain();
    this.dispatchEvent(new Event("change"));
    this.deck.changed();
  }

  // MARK: Loading

  /**
   * Loads a queue. `at` is a place in the file to start from (Resume); without it the track starts
   * at its beginning. `restoring` applies the saved place and never plays (critical systems 7, 8).
   */
  async load(queue, index, { play = false, at = null, restoring = false } = {}) {
    this.setQueue(queue);
    this.error = null;
    this.loadTrack(Math.max(0, Math.min(index, queue.length - 1)), { at, restoring });
    this.persist();
    if (play) await this.play();
  }

  loadTrack(index, { at = null, restoring = false } = {}) {
    const previous = this.track;
    this.index = index;
    this.lastTransition = Date.now();
    this.generation += 1;
    this.pausedAt = null;
    const track = this.track;
    if (!track) return;
    const target = track.live ? 0 : (at ?? track.start);
    const sameFile = previous && previous.src === track.src && this.audio.getAttribute("src") === track.src;
    if (sameFile) {
      // A chapter of the same file: carry on if playback is already there, else go to it.
      if (Math.abs(this.position - target) > 1.5 || at != null) this.audio.currentTime = target;
    } else {
      this.restoring = restoring;
      this.quietly(() => { this.audio.src = track.src; });
      this.audio.playbackRate = this.speed;
      this.audio.addEventListener("loadedmetadata", () => {
        // The place is applied once the file is known, and only the place asked for.
        this.audio.currentTime = Math.min(target, Math.max(0, (this.audio.duration || target) - 0.5));
        this.restoring = false;
        this.changed();
      }, { once: true });
    }
    this.dispatchEvent(new CustomEvent("track", { detail: { index } }));
    this.changed();
  }

  /** Runs `change` without the pause it causes counting as the system's (the event comes later). */
  quietly(change) {
    this.ownPauseUntil = Date.now() + 1000;
    change();
  }

  // MARK: Playing

  async play() {
    if (!this.track) return;
    this.deck.wake();
    this.deck.interrupted = null;   // the person plays: whatever the system paused is theirs again
    this.ownPlayUntil = Date.now() + 1000;
    if (this.pausedAt) {
      const back = smartRewind((Date.now() - this.pausedAt) / 1000);
      if (back > 0) this.audio.currentTime = Math.max(this.track.start, this.position - back);
      this.pausedAt = null;
    }
    this.error = null;
    this.audio.playbackRate = this.speed;
    try {
      await this.audio.play();
      this.save("play");
    } catch (error) {
      // A file that cannot be played says so through the element's error event.
      if (error.name === "NotAllowedError") {
        this.error = "Tap play to start: the browser needs a touch first.";
        this.changed();
      }
    }
  }

  pause() {
    if (!this.playing) return;
    this.quietly(() => this.audio.pause());
  }

  toggle() { return this.playing ? this.pause() : this.play(); }

  onPlay() {
    const own = Date.now() < this.ownPlayUntil;
    this.ownPlayUntil = 0;
    // A play nobody here asked for is the system's, after an interruption it imposed (a call
    // ended): what it paused with this one resumes with it.
    if (!own) this.deck.systemResumed(this);
    this.changed();
  }

  onPause() {
    const own = Date.now() < this.ownPauseUntil;
    this.ownPauseUntil = 0;
    if (this.audio.ended || !this.track) { this.changed(); return; }
    this.pausedAt = Date.now();
    this.save("pause");
    // A pause nobody here asked for is the system's (headphones out, a call): both pause, before
    // the lock screen hears of it, so it keeps what both were playing.
    if (!own) this.deck.systemPaused(this);
    this.changed();
  }

  // MARK: Seeking (within the track)

  seek(offset) {
    const track = this.track;
    if (!track) return;
    const length = this.length;
    const clamped = Math.max(0, Math.min(offset, length > 0.5 ? length - 0.25 : length));
    this.generation += 1;
    this.audio.currentTime = track.start + clamped;
    this.pausedAt = null;
    this.save("seek");
    this.changed();
  }

  skip(seconds) { this.seek(this.offset + seconds); }

  /** The next track by hand: a skip, which never marks the one left played. */
  next() {
    if (!this.hasNext) return;
    const playing = this.playing;
    this.loadTrack(this.index + 1);
    this.persist();
    if (playing) this.play();
  }

  /** Back to the track's start, or the previous track when within its first 3 s. */
  previous() {
    if (this.offset > 3 || this.index === 0) { this.seek(0); return; }
    const playing = this.playing;
    this.loadTrack(this.index - 1);
    this.persist();
    if (playing) this.play();
  }

  // MARK: Chapter ends (critical system 6)

  /** A timer for the track's end, tagged with the generation it was set in. */
  schedule() {
    clearTimeout(this.endTimer);
    const track = this.track;
    if (!track || track.end == null || this.audio.paused) return;
    const generation = this.generation;
    const wait = Math.max(0, (track.end - this.position) / (this.audio.playbackRate || 1)) * 1000;
    this.endTimer = setTimeout(() => {
      if (generation !== this.generation) return;
      if (this.position >= track.end - 0.15) this.chapterEnded(generation);
      else this.schedule();
    }, wait + 30);
  }

  onTime() {
    const track = this.track;
    if (track && track.end != null && !this.restoring && !this.audio.paused && this.position >= track.end - 0.05) {
      this.chapterEnded(this.generation);
    }
    this.dispatchEvent(new Event("time"));
    if (track?.transcript?.length) {
      const line = this.transcriptLine();
      if (line !== this.lineShown) { this.lineShown = line; this.deck.claim.update(); }
    }
    const now = Date.now();
    if (now - this.lastLocalSave > SAVE_LOCAL_EVERY) this.persist();
    if (!this.audio.paused && now - this.lastServerSave > SAVE_SERVER_EVERY) this.save("play");
  }

  chapterEnded(generation) {
    if (generation !== this.generation) return;
    if (Date.now() - this.lastTransition <= COOLDOWN) return;
    const track = this.track;
    if (!track) return;
    this.lastTransition = Date.now();
    this.generation += 1;
    if (track.chapter != null && track.item) record(chapterItem(track.item, track.chapter), "ended", this.length);
    this.dispatchEvent(new CustomEvent("played", { detail: { book: track.book, chapter: track.chapter, played: true } }));
    const stopHere = this.deck.chapterEndStops(this);
    if (!this.hasNext) {
      this.quietly(() => this.audio.pause());
      this.save("ended");
      this.persist();
      this.changed();
      return;
    }
    this.loadTrack(this.index + 1);
    if (stopHere) {
      this.quietly(() => this.audio.pause());
      this.audio.currentTime = this.track.start;
    } else if (this.audio.paused || this.audio.ended) {
      this.play();
    }
    this.persist();
  }

  // MARK: Volume, speed, Boost, ducking

  setSpeed(speed) {
    this.speed = speed;
    this.audio.playbackRate = speed;
    this.persist();
    this.changed();
  }

  setVolume(volume) {
    this.volume = Math.max(0, Math.min(1, volume));
    this.persist();
    this.applyGain();
    this.dispatchEvent(new Event("change"));
  }

  /** The seed's Quality/Boost: Boost reloads the track through a gain with a limiter. */
  async setBoost(on) {
    if (on === this.boost) return;
    this.boost = on;
    localStorage.setItem(MODE_KEYS[this.kind], on ? "boost" : "quality");
    const playing = this.playing, at = this.position, track = this.track;
    const old = this.audio;
    this.graph?.output.disconnect();
    this.quietly(() => old.pause());
    old.removeAttribute("src");
    old.load();
    this.audio = this.makeElement();
    this.generation += 1;
    if (track) {
      this.audio.src = track.src;
      this.audio.playbackRate = this.speed;
      await new Promise((resolve) => {
        this.audio.addEventListener("loadedmetadata", resolve, { once: true });
        this.audio.addEventListener("error", resolve, { once: true });
      });
      this.audio.currentTime = at;
      this.lastTransition = Date.now();
      if (playing) await this.play();
    }
    this.changed();
  }

  /** Volume × ducking × the sleep timer's fade, through the graph in Boost, else the element. */
  applyGain() {
    const gain = this.volume * this.duck * this.fade;
    if (this.boost && this.track && !this.graph) this.connectGraph();
    if (this.graph) {
      const { context, output } = this.graph;
      output.gain.setTargetAtTime(gain, context.currentTime, 0.08);
      this.audio.volume = 1;
    } else {
      this.audio.volume = Math.max(0, Math.min(1, gain));
    }
  }

  connectGraph() {
    const context = this.deck.context();
    if (!context) return;
    const source = context.createMediaElementSource(this.audio);
    const lift = context.createGain();
    lift.gain.value = 2.5;   // about +8 dB
    const limiter = context.createDynamicsCompressor();
    limiter.threshold.value = -2;
    limiter.knee.value = 0;
    limiter.ratio.value = 20;
    limiter.attack.value = 0.002;
    limiter.release.value = 0.15;
    const output = context.createGain();
    source.connect(lift).connect(limiter).connect(output).connect(context.destination);
    this.graph = { context, source, lift, limiter, output };
  }

  // MARK: Keeping

  save(kind, { keepalive = false } = {}) {
    const track = this.track;
    if (!track) return;
    this.lastServerSave = Date.now();
    // A live station has no place to keep.
    if (!track.item) return;
    record(track.item, kind, toOriginal(track.kept, this.position), { keepalive });
  }

  /** A new queue, serialized once here: the place is kept every few seconds while playing, and a
   *  book of hundreds of chapters need not be written out again each time. */
  setQueue(queue) {
    this.queue = queue;
    this.queueJSON = JSON.stringify(queue);
  }

  persist() {
    this.lastLocalSave = Date.now();
    if (!this.track) { localStorage.removeItem(STATE_KEYS[this.kind]); return; }
    const place = JSON.stringify({
      user: this.deck.user, index: this.index, position: this.position, speed: this.speed,
      volume: this.volume, pausedAt: this.pausedAt, savedAt: Date.now(),
    });
    localStorage.setItem(STATE_KEYS[this.kind], `${place.slice(0, -1)},"queue":${this.queueJSON}}`);
  }

  restore(user) {
    const state = storedJSON(STATE_KEYS[this.kind]);
    if (!state || state.user !== user || !Array.isArray(state.queue) || !state.queue.length) return;
    this.speed = SPEEDS[this.kind].includes(state.speed) ? state.speed : 1;
    this.volume = typeof state.volume === "number" ? Math.max(0, Math.min(1, state.volume)) : 1;
    this.setQueue(state.queue);
    this.loadTrack(Math.max(0, Math.min(state.index | 0, state.queue.length - 1)), { at: state.position ?? null, restoring: true });
    // Smart rewind counts from the pause, or from when the page went away while playing.
    this.pausedAt = state.pausedAt ?? state.savedAt ?? null;
  }

  unload() {
    clearTimeout(this.endTimer);
    this.quietly(() => this.audio.pause());
    this.audio.removeAttribute("src");
    this.setQueue([]);
    this.index = 0;
    this.generation += 1;
    this.changed();
  }

  /** Lock-screen metadata for this player alone. */
  metadata() {
    const track = this.track;
    const art = track.artwork
      ? [{ src: track.artwork, sizes: "512x512", type: "image/jpeg" }]
      : [{ src: artwork("#0EA5E9", this.kind === "music" ? NOTE_ICON : BOOK_ICON), sizes: "512x512", type: "image/svg+xml" }];
    // An episode with a transcript reads along on the lock screen: the line being said.
    const line = this.transcriptLine();
    if (line >= 0) return { title: track.title, artist: track.transcript[line].text, album: track.album || track.artist || "Reverie", artwork: art };
    return { title: track.title, artist: track.artist, album: track.album || "Reverie", artwork: art };
  }

  /** The index of the transcript line being said (-1: none, or no transcript). */
  transcriptLine() {
    const lines = this.track?.transcript;
    if (!lines?.length) return -1;
    const now = toOriginal(this.track.kept, this.position) + 0.05;
    let found = -1;
    for (let low = 0, high = lines.length - 1; low <= high;) {
      const middle = (low + high) >> 1;
      if (lines[middle].start <= now) { found = middle; low = middle + 1; } else { high = middle - 1; }
    }
    return found;
  }
}

// MARK: - Both players

class Deck extends EventTarget {
  constructor() {
    super();
    this.user = null;
    this.music = new Channel(this, "music");
    this.speech = new Channel(this, "speech");
    this.flags = { musicWasPlaying: false, speechWasPlaying: false };
    this.shows = "nothing";
    this.ducking = Number(localStorage.getItem(DUCK_KEY) ?? 0.25);
    if (!DUCKING.some((option) => option.value === this.ducking)) this.ducking = 0.25;
    this.timer = null;        // {option, endsAt (ms) or null for a chapter}
    this.audioContext = null;
    this.interrupted = null;  // what a pause the system imposed stopped: {music, speech}
    this.ticker = null;       // the sleep timer's once-a-second check, only while one runs
    this.wasPlaying = false;  // whether either player played at the last change
    // Listen is one claimant of the lock screen: what it shows of its two players is lock-screen.js's rule.
    this.claim = lockScreenOwner.claim("Listen", {
      metadata: () => this.lockScreenMetadata(),
      isPlaying: () => this.anyPlaying,
      position: () => {
        const shown = this.shown;
        return shown && shown.length > 0 ? { duration: shown.length, position: shown.offset, playbackRate: shown.speed } : null;
      },
      handlers: {
        play: () => this.press(),
        pause: () => this.press(),
        stop: () => this.pauseAll(),
        nexttrack: () => this.shown?.next(),
        previoustrack: () => this.shown?.previous(),
        seekbackward: (details) => this.shown?.skip(-(details?.seekOffset || 15)),
        seekforward: (details) => this.shown?.skip(details?.seekOffset || 30),
        seekto: (details) => this.shown?.seek(details.seekTime),
      },
    });
    window.addEventListener("pagehide", () => {
      for (const channel of this.channels) if (channel.loaded) { channel.persist(); if (channel.playing) channel.save("pause", { keepalive: true }); }
    });
    // Wind Down's full-screen player pauses both; it takes the lock screen itself when it opens.
    window.addEventListener("reverie:solo-player", () => this.pauseAll());
  }

  get channels() { return [this.music, this.speech]; }
  get anyLoaded() { return this.music.loaded || this.speech.loaded; }
  get anyPlaying() { return this.music.playing || this.speech.playing; }

  /** Brings back this person's players, loaded and paused. */
  restore(user) {
    if (this.user === user) return;
    this.user = user;
    for (const channel of this.channels) channel.restore(user);
    this.changed();
  }

  /** Signing out: the players stop and leave the screen (their state stays for the next sign-in). */
  signOut() {
    for (const channel of this.channels) { if (channel.loaded) channel.persist(); channel.unload(); }
    this.user = null;
    this.cancelTimer();
  }

  context() {
    if (!this.audioContext) {
      const Context = window.AudioContext || window.webkitAudioContext;
      if (!Context) return null;
      this.audioContext = new Context();
    }
    return this.audioContext;
  }

  /** Called on a person's play: the audio graph may only start from a gesture. */
  wake() {
    if (this.audioContext && this.audioContext.state === "suspended") this.audioContext.resume().catch(() => {});
  }

  playBook(book, index, { at = null } = {}) {
    return this.speech.load(bookTracks(book), index, { play: true, at });
  }

  playMusic(items, index) {
    return this.music.load(musicTracks(items), index, { play: true });
  }

  /** Which players a press would leave playing. */
  get pressPlays() {
    return lockScreen.togglePress(this.music.lockState, this.speech.lockState, this.flags);
  }

  /** A headset or lock-screen press (critical system 1's companion). */
  press() {
    this.interrupted = null;
    const after = this.pressPlays;
    for (const [channel, plays] of [[this.music, after.music], [this.speech, after.speech]]) {
      if (plays && !channel.playing) channel.play();
      else if (!plays && channel.playing) channel.pause();
    }
  }

  pauseAll() {
    for (const channel of this.channels) channel.pause();
  }

  systemPaused(channel) {
    const other = channel === this.music ? this.speech : this.music;
    this.interrupted = { [channel.kind]: true, [other.kind]: other.playing };
    if (other.playing) other.pause();
  }

  systemResumed(channel) {
    const other = channel === this.music ? this.speech : this.music;
    const resume = this.interrupted?.[other.kind];
    this.interrupted = null;
    if (resume && !other.playing) other.play();
  }

  setDucking(value) {
    this.ducking = value;
    localStorage.setItem(DUCK_KEY, String(value));
    this.changed();
  }

  // MARK: Sleep timer

  setTimer(option) {
    const atEnd = option === "chapter" || option === "episode";
    if (atEnd && !this.speech.loaded) return;
    this.timer = { option, endsAt: atEnd ? null : Date.now() + option * 60_000 };
    clearInterval(this.ticker);
    if (this.timer.endsAt) this.ticker = setInterval(() => this.tick(), 1000);
    this.changed();
  }

  cancelTimer() {
    this.timer = null;
    clearInterval(this.ticker);
    for (const channel of this.channels) { channel.fade = 1; channel.applyGain(); }
    this.changed();
  }

  /** Seconds left on a minutes timer, or null. */
  get timerLeft() {
    return this.timer?.endsAt ? Math.max(0, (this.timer.endsAt - Date.now()) / 1000) : null;
  }

  tick() {
    if (!this.timer?.endsAt) return;
    const left = this.timerLeft;
    const fade = sleepTimerVolume(left);
    for (const channel of this.channels) { channel.fade = fade; channel.applyGain(); }
    if (left <= 0) this.timerEnded();
    this.dispatchEvent(new Event("timer"));
  }

  timerEnded() {
    this.pauseAll();
    this.cancelTimer();
  }

  /** End of Chapter: the chapter that just ended was the last one to play. End of Episode: the
   *  same once the episode's last chapter (the last track of its item) ends. */
  chapterEndStops(channel) {
    if (channel !== this.speech) return false;
    const option = this.timer?.option;
    if (option === "episode") {
      const next = channel.queue[channel.index + 1];
      if (next && next.item === channel.track?.item) return false;
    } else if (option !== "chapter") {
      return false;
    }
    this.cancelTimer();
    this.music.pause();
    return true;
  }

  // MARK: The lock screen

  changed() {
    // Ducking: the music goes down while the speech plays.
    const duck = this.speech.playing ? this.ducking : 1;
    if (this.music.duck !== duck) { this.music.duck = duck; this.music.applyGain(); }
    const { shows, flags } = lockScreen.update(this.music.lockState, this.speech.lockState, this.flags);
    this.flags = flags;
    this.shows = shows;
    this.lockScreenChanged();
    this.dispatchEvent(new Event("change"));
  }

  /** The channel the lock screen's seek and skip act on. */
  get shown() {
    return this.shows === "music" ? this.music : this.shows === "nothing" ? null : this.speech;
  }

  /**
   * Listen's claim follows its players: either starting to play takes the lock screen, nothing
   * loaded gives it back, and a change while loaded is shown if Listen holds it (or nobody does:
   * the players restored paused after a reload).
   */
  lockScreenChanged() {
    const playing = this.anyPlaying;
    const started = playing && !this.wasPlaying;
    this.wasPlaying = playing;
    if (this.shows === "nothing") this.claim.release();
    else if (started) this.claim.take();
    else this.claim.offer();
  }

  /** What the lock screen shows for Listen: the shown player's track, or both combined. */
  lockScreenMetadata() {
    if (this.shows === "nothing") return null;
    if (this.shows === "combined") {
      return {
        title: `${this.speech.track.title} + ${this.music.track.title}`, artist: "Reverie",
        album: `${this.speech.track.album || "Speech"} with ${this.music.track.artist || "music"}`,
        artwork: [{ src: LOGO, sizes: "512x512", type: "image/png" }],
      };
    }
    return this.shown.metadata();
  }
}

/** The one deck every screen reaches. */
export const deck = new Deck();
