// Listen's two players, playing at once: music and speech, each with its own queue, volume, speed
// (pitch kept) and Boost, under one lock screen. The seed's critical systems, in the browser:
//
// - The lock screen follows lock-screen.js (the twin of Playback's LockScreenRule); a headset or
//   lock-screen press pauses both when anything plays and resumes what the lock screen shows.
//   A pause the system imposes on one player (headphones unplugged, a call) pauses the other too.
// - Chapters are time ranges in one file. The current chapter is the one that holds where the
//   audio is: a timer at the chapter's end and the element's time updates only ask "where is it
//   now?", so a notice that comes late (a locked phone runs no script; the audio plays on) moves
//   the chapter on to where the audio already is and never seeks, and a second notice of the same
//   end finds nothing left to do (no cascade). Skips and seeks set the chapter themselves.
// - Every chapter that playback ran through since the last known place is marked played (N to
//   N+1, or several after a long lock); a skip marks nothing.
// - The sleep timer is in the audio (issue 31): each playing player switches to the server's
//   rendition of its file that ends at the timer with its last SLEEP_FADE_SECONDS faded
//   (../player/rendition.js), asked for again after every seek, skip, speed change, pause and play so
//   the end still lands when the timer says. End of Chapter ends the speech at the chapter's end;
//   the music beside it ends at the same moment. A locked phone hears the fade and the stop.
// - Volume, ducking and Boost: the element's volume where the browser lets a page set it; where
//   it does not (iOS answers 1 and ignores a set), a Web Audio gain, and where there is no Web
//   Audio either the volume controls say to use the phone's buttons.
// - Each player's queue and place are kept on this device (playbackState_Music, _Speech) and come
//   back loaded and paused; the saved place is applied only on that restore, never when a person
//   picks a chapter.
// - Progress goes into the shared log: the book or track as `library:<id>` (seconds into the file)
//   and each chapter as `library:<id>/<index>` (ended = played, unplayed = not).

import { api } from "../api.js";
import { storedJSON } from "../dom.js";
import { record } from "../player/progress.js";
import { layFade } from "../player/sleep-timer.js";
import { gainOf, hasRendition, isRendition, isStationRelay, prepareRendition, renditionEnd, shapeOf, shapedSource } from "../player/rendition.js";
import { NEEDS_TOUCH, Transport } from "../player/transport.js";
import * as lockScreen from "./lock-screen.js";
import { artwork, lockScreenOwner } from "../player/media-session.js";
import { ElementGraph, elementVolumeWorks, levelFixed, startSharedContext } from "../player/volume.js";
import { itemKey, parseItemKey } from "../item-key.js";

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
/** How close to a chapter's end (seconds) playback counts as having reached it: a time update comes every ~0.25 s. */
const AT_END = 0.05;
/** A rendition whose end moved by less than this (seconds) is kept rather than asked for again. */
const RETIME_SLACK = 0.5;
/** A station's relay is asked for at a new level at most this often (ms) while its slider moves. */
const RELAY_LEVEL_EVERY = 400;
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
  const whole = parseItemKey(item);
  return itemKey(whole.kind, whole.id, index);
}

/** A book's chapters as a queue: one track per chapter, all in the book's one file. */
export function bookTracks(book) {
  const base = { item: itemKey("library", book.id), book: book.id, artist: book.author || "", album: book.title, src: book.audioURL, artwork: book.artworkURL || null };
  if (!book.chapters.length) return [{ ...base, id: book.id, chapter: null, title: book.title, start: 0, end: null }];
  return book.chapters.map((chapter, index) => ({ ...base, id: `${book.id}/${index}`, chapter: index, title: chapter.title, start: chapter.start, end: chapter.end }));
}

/** A LibriVox book streamed section by section (before or instead of a download). */
export function librivoxTracks(book) {
  const key = itemKey("librivox", book.id);
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
  const key = itemKey("podcast", episode.id);
  const base = { item: key, book: key, artist: podcast.author || podcast.title, album: podcast.title, src: `/api/episodes/${episode.id}/audio`,
    // Covers come through the server: the app loads pictures from its own address only.
    artwork: (episode.image || podcast.image) ? `/api/artwork?url=${encodeURIComponent(episode.image || podcast.image)}` : null, kept,
    // The transcript's lines (original seconds), so the lock screen can read along.
    transcript: transcript.map((line) => ({ start: line.start, text: line.speaker ? `${line.speaker}: ${line.text}` : line.text })) };
  if (!chapters.length) return [{ ...base, id: key, chapter: null, title: episode.title, start: 0, end: null }];
  return chapters.map((chapter, index) => ({
    ...base, id: `${key}/${index}`, chapter: index, title: chapter.title,
    start: toFile(kept, chapter.start), end: index + 1 < chapters.length ? toFile(kept, chapters[index + 1].start) : null,
  }));
}

/**
 * A radio station in the music player: relayed by the server, its listed address the fallback.
 * An HLS-only station plays its playlist (through the server) where the browser has HLS built in
 * (Safari), else the server's remux of it into one stream, which is also the fallback. Where the
 * element ignores its volume (an iPhone), always the remux: only the relay carries a level and the
 * sleep timer's fade in its bytes, which is all a locked iPhone plays (issue 46).
 */
export function stationTrack(station) {
  const src = `/api/radio/stations/${station.id}/stream`;
  const native = station.hls && elementVolumeWorks() && document.createElement("audio").canPlayType("application/vnd.apple.mpegurl") !== "";
  return {
    id: `radio:${station.id}`, item: null, book: null, chapter: null, title: station.name, artist: station.country || "Internet radio",
    album: "Radio", src: native ? `${src}?hls=1` : src, artwork: null, start: 0, end: null, live: true,
    fallbacks: native ? [src] : station.url && station.url !== station.urlResolved ? [`${src}?alternate=1`] : [],
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

/** How many of a joined stream's `parts`, from the first, are the `items` asked for, in order. */
export function matching(parts, items) {
  let count = 0;
  while (count < parts.length && parts[count].item === items[count]) count += 1;
  return count;
}

/** Whether `src` is a joined stream (GET /api/streams/audio), which the server answers at once. */
function isStream(src) {
  return (src ?? "").startsWith("/api/streams/");
}

/** The most songs one joined stream holds. */
const JOINED_SONGS = 50;

/** The part of a joined stream (GET /api/streams) a track is, when it is a file of its own the
 *  server can join: a song (`library:<id>`) or a LibriVox book's section (`librivox:<id>/<index>`). */
function partKey(track) {
  if (track.shift != null || track.live) return null;
  if (track.item?.startsWith("library:") && track.chapter == null) return track.item;
  if (track.item?.startsWith("librivox:") && track.chapter != null) return `${track.item}/${track.chapter}`;
  return null;
}

/**
 * `tracks` (songs of the library or a LibriVox book's sections, each its own file) placed in the
 * one stream the server joins them into (GET /api/streams): each with its `shift` (where its
 * second 0 falls in the stream) and its `file`; null when fewer than two can be joined. Those from
 * the first the server could not join on are left out (the caller keeps them in their own files).
 */
async function joinedTracks(tracks) {
  const run = [];
  for (const track of tracks) {
    if (!partKey(track)) break;
    run.push(track);
  }
  if (run.length < 2) return null;
  const keys = run.map(partKey);
  const plan = await api(`/api/streams?${new URLSearchParams({ parts: keys.join(",") })}`);
  // (Each part must be the track asked for in its place: the tracks are matched to the parts so.)
  if (plan.parts.length < 2 || matching(plan.parts, keys) !== plan.parts.length) return null;
  return plan.parts.map((part, index) => inStream(run[index], part, plan.audioURL, index === plan.parts.length - 1));
}

/** `track` (in its own file) placed in the joined stream `src` at `part` (the plan's: its start in
 *  the stream, the second of the file there, its length), with its `shift` and its `file`; the
 *  stream's `last` track ends with the stream. */
export function inStream(track, part, src, last) {
  const shift = part.start - part.from;
  const { resumeAt, ...rest } = track;
  return {
    ...rest, src, start: Math.max(part.from, track.start) + shift, end: last ? null : (track.end ?? part.from + part.length) + shift,
    shift, file: { src: track.src, start: track.start, end: track.end },
  };
}

/** A track as it is in its own file (one placed in a joined stream carries its `file`). */
export function fileTrack(track) {
  const { shift, file, ...rest } = track;
  return file ? { ...rest, ...file } : track;
}

/** Music items as a queue. */
export function musicTracks(items) {
  return items.map((item) => ({
    id: item.id, item: itemKey("library", item.id), book: null, chapter: null, title: item.title, artist: item.author || "",
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
    this.boost = localStorage.getItem(MODE_KEYS[kind]) === "boost";
    this.generation = 0;
    this.lastTransition = 0;
    this.restoring = false;
    this.drained = false;     // played to the end of its queue, which Up Next may still add to
    this.pausedAt = null;     // wall time (ms) of the last pause, for smart rewind
    this.error = null;
    this.endTimer = null;
    this.lastLocalSave = 0;
    this.lastServerSave = 0;
    this.source = null;       // the track's own file, loaded in the element (or its rendition is)
    this.fileDuration = 0;    // that file's length in seconds (a rendition is shorter)
    this.rendition = null;    // {until}: the element plays the sleep timer's rendition ending there
    this.request = null;      // {src}: the source asked for next (a rendition being made)
    this.switching = null;    // {src, at, play}: the element is changing source, to be at `at`
    this.starting = false;    // play() is putting the timer's source in place first
    this.noRendition = null;  // a file the server answered whole when asked for a rendition (a stream)
    this.fadeOut = null;      // {endsAt (wall ms), until}: the timer's fade through the gain (no rendition)
    this.preparedDuck = null; // the ducked rendition asked for ahead (music on an iPhone)
    this.fading = false;      // the gain holds that fade's ramp
    this.transport = this.makeTransport();
  }

  /** The element the transport plays (for its level and the Web Audio graph). */
  get audio() { return this.transport.element; }
  get track() { return this.queue[this.index] ?? null; }
  get loaded() { return Boolean(this.track); }
  get playing() { return Boolean(this.track) && (this.switching ? this.switching.play : !this.transport.paused); }
  get lockState() { return { loaded: this.loaded, playing: this.playing }; }
  get hasNext() { return this.index + 1 < this.queue.length; }
  /** Seconds into the file (while the source changes, the place it changes to). */
  get position() {
    return this.switching ? this.switching.at : this.transport.position;
  }
  /** Where playback has got to: the position, or the end of a rendition that played to its end
   *  (its last moments are the fade's silence, and its last frame may read a hair short of it). */
  get heardTo() {
    const at = this.position, until = this.rendition?.until;
    return until != null && !this.switching && (this.transport.ended || at >= until - 0.3) ? Math.max(at, until) : at;
  }
  /** The end the rendition playing has: a second of its file; for a station's relay the seconds
   *  of sound left by the wall clock (-1 once stale: paused or dropped, to be asked for again);
   *  null with none. */
  get renditionLeft() {
    const rendition = this.rendition;
    if (!rendition) return null;
    if (!this.track?.live) return rendition.until;
    return rendition.stale ? -1 : (rendition.endsAt - Date.now()) / 1000;
  }

  /** Where the track ends in the file (the file's end for a whole-file track). */
  get trackEnd() {
    const track = this.track;
    if (!track) return 0;
    return track.end != null ? track.end : this.fileDuration;
  }
  /** Seconds into the item's own file: the position, less where the item starts in a joined
   *  stream (Up Next's; a track in one carries its `shift`). */
  get itemPosition() {
    return this.position - (this.track?.shift ?? 0);
  }
  /** Seconds into the track, and its length: what the seek bar shows. */
  get offset() { return this.track ? Math.max(0, Math.min(this.position - this.track.start, this.length)) : 0; }
  get length() { return this.track ? Math.max(0, this.trackEnd - this.track.start) : 0; }

  /** The channel's transport (Web/player/transport.js); Boost makes a new one (an element's
   *  Web Audio source is for good). */
  makeTransport() {
    const transport = new Transport({ name: this.kind });
    transport.element.dataset.channel = this.kind;
    transport.rate = this.speed;
    transport.on("timeupdate", () => this.onTime());
    transport.on("play", () => this.onPlay());
    transport.on("pause", () => this.onPause());
    transport.on("ended", () => this.onEnded());
    // A pause or play nobody here asked for is the system's (headphones out, a call, and the
    // call's end): what it pauses with this one, and resumes with it, is the other player.
    transport.on("interrupted", () => { if (!this.switching && this.track && transport === this.transport) this.deck.systemPaused(this); });
    transport.on("resumed", () => { if (!this.switching && transport === this.transport) this.deck.systemResumed(this); });
    transport.on("loadedmetadata", () => {
      // The file's own length; a rendition's is where the timer ends it.
      const length = transport.duration;  // (a stream's is Infinity: none)
      if (renditionEnd(transport.src) == null) this.fileDuration = Number.isFinite(length) ? length : 0;
      this.changed();
    });
    transport.on("playing", () => { if (this.error) { this.error = null; this.changed(); } });
    transport.on("ratechange", () => this.schedule());
    transport.on("error", () => {
      if (!transport.src) return;
      // A rendition that fails is replaced by the file itself (useSource); nothing to say yet.
      if (this.switching && isRendition(transport.src)) return;
      const track = this.track;
      if (track?.fallbacks?.length && transport === this.transport) {
        // A station whose stream fails tries its next address, and says so; it plays only if
        // it was asked to (a station restored paused stays paused).
        const resume = !transport.paused;
        track.src = track.fallbacks.shift();
        this.source = track.src;
        this.rendition = null;     // (the timer's end and the level are asked of the other address)
        this.noRendition = null;
        transport.load(track.src);
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
    return transport;
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
    // (An Up Next entry that begins where the person left it carries that place on its first track.)
    const target = track.live ? 0 : (at ?? track.resumeAt ?? track.start);
    if (track.resumeAt != null) { delete track.resumeAt; this.queueJSON = JSON.stringify(this.queue); }
    this.drained = false;
    const sameFile = previous && previous.src === track.src && this.source === track.src;
    if (sameFile) {
      // A chapter of the same file: carry on if playback is already there, else go to it.
      if (Math.abs(this.position - target) > 1.5 || at != null) this.place(target);
      if (this.playing) this.deck.retime();
    } else {
      this.restoring = restoring;
      this.source = track.src;
      this.rendition = null;
      this.request = null;
      this.switching = null;
      this.fileDuration = 0;
      // The place is applied once the file is known (by the transport), and only the place asked for.
      this.transport.load(track.src, { at: target });
      this.transport.on("loadedmetadata", () => {
        this.restoring = false;
        this.changed();
        // A sleep timer set: its rendition of this file, once the file's length is known.
        if (this.deck.timer && (this.playing || this.starting)) this.deck.retime();
      }, { once: true });
    }
    this.dispatchEvent(new CustomEvent("track", { detail: { index } }));
    this.changed();
  }

  /** Goes to `seconds` of the file: through the file itself when the rendition playing ends first. */
  place(seconds) {
    if (this.switching) { this.switching.at = seconds; return; }
    if (this.rendition && seconds >= this.rendition.until - 0.3) { this.useSource(this.ownSource(), seconds); return; }
    this.transport.seek(seconds);
  }

  /**
   * Plays `src` (the track's file, or the sleep timer's rendition of it) from `at` seconds (by
   * default where playback has got to), playing if the player plays: the switch keeps the place
   * (../player/rendition.js). A rendition is made on its first ask (a second or so), so it is asked for
   * first while the current source plays on, and switched to where playback has got to by then:
   * the gap is only the reload's. A later call takes over one still on its way. A rendition the
   * server answers as the whole file (a streamed episode has none) or that fails leaves the file.
   */
  useSource(src, at = null) {
    const request = { src };
    this.request = request;
    // A station has no place: its relay, shaped or not, starts where the station is now.
    if (this.track?.live) return this.switchTo(request, src, 0);
    // (A joined stream is answered at once: no asking first.)
    if (at != null || !isRendition(src) || isStream(src)) return this.switchTo(request, src, at ?? this.heardTo);
    return prepareRendition(src).then(() => (this.request === request ? this.switchTo(request, src, this.heardTo) : false));
  }

  switchTo(request, src, at) {
    const switching = { src, at, play: this.playing || this.starting, asked: Date.now() };
    this.switching = switching;
    // A joined stream (Up Next's, or a rendition through it) is switched to in this task, playing
    // from its place with no script after: a phone locked a moment after a tap still gets there
    // (End of Chapter chosen, then the screen locked). A file's rendition, once made, as before.
    const now = isStream(src) || isStationRelay(src);
    const switched = now ? this.transport.switchNow(src, { at, play: switching.play })
      : this.transport.switchSource(src, { at: () => switching.at, play: false });
    return switched.then((done) => {
      if (this.switching !== switching) return false;  // a later switch took over
      if (this.request === request) this.request = null;
      const current = this.transport.src;
      // (A source that failed to load is still the element's, broken: a streamed episode has no
      // joined stream, 404.)
      if (!done && (current !== src || this.transport.broken)) {
        // It failed to load: the file itself, from the same place (a failing file says so itself).
        this.switching = null;
        if (src === this.source) { this.changed(); return false; }
        this.noRendition = this.source;   // no asking again: the fade (and a level) go through the gain
        return this.useSource(this.source, switching.at);
      }
      const live = Boolean(this.track?.live);
      if (!done && !live) this.transport.seek(switching.at);  // already the source playing
      else if (now && !live && switching.at !== at) this.transport.seek(switching.at);  // moved while it loaded
      this.switching = null;
      const until = renditionEnd(current), length = this.transport.duration;
      if (live) {
        // A station's shaped relay ends `until` seconds of sound from its start. Its end is
        // counted from when it was asked for, as the end it is compared with was (the switch's
        // moment is what its sound ends later by, as a file's rendition's does); `heardFrom` is
        // when it began to play.
        this.rendition = until != null ? { until, endsAt: switching.asked + until * 1000, heardFrom: Date.now() } : null;
      } else {
        // Answered whole (no rendition of a stream): the file it is, and no asking again.
        this.rendition = until != null && !(length > until + 0.5) ? { until } : null;
        if (until != null && !this.rendition) {
          this.noRendition = this.source;
          this.fileDuration = Number.isFinite(length) && length > 0 ? length : this.fileDuration;
        }
      }
      if (switching.play) this.transport.play();
      else if (now && !this.transport.paused) this.transport.pause();   // paused while it loaded
      this.changed();
      // Played again while it loaded, after a pause the timer's clock ran on through: its end is
      // now elsewhere (by more than a reload's moment), so it is asked for again.
      const due = this.rendition && this.deck.timer && switching.play ? this.deck.untilFor(this) : null;
      if (due != null && Math.abs(due - this.renditionLeft) > 2) this.deck.retime();
      if (this.noRendition === this.source && this.deck.timer && !this.fadeOut) this.deck.retime();  // its fade by the gain instead
      return true;
    });
  }

  // MARK: Playing

  async play() {
    if (!this.track) return;
    this.deck.wake();
    this.drained = false;
    this.deck.interrupted = null;   // the person plays: whatever the system paused is theirs again
    this.deck.notice = null;        // and has read that the timer stopped it
    if (this.switching) { this.switching.play = true; this.changed(); return; }
    if (this.pausedAt) {
      const back = smartRewind((Date.now() - this.pausedAt) / 1000);
      if (back > 0) this.place(Math.max(this.track.start, this.position - back));
      this.pausedAt = null;
    }
    this.error = null;
    if (this.deck.timer || this.rendition || this.request || this.levelInBytes) {
      // The sleep timer's rendition from this place (its end moved while paused), the level's
      // (on an iPhone), or the file again: asked for now, switched to when ready; meanwhile this
      // source plays.
      this.starting = true;
      this.deck.retime();
      this.starting = false;
      if (this.switching) { this.switching.play = true; this.changed(); return; }
    }
    // A file that cannot be played says so through the element's error event.
    const result = await this.transport.play();
    if (result === "playing") this.save("play");
    else if (result === "needs-touch") {
      this.error = NEEDS_TOUCH;
      this.changed();
    }
  }

  pause() {
    if (!this.playing) return;
    if (this.switching) {
      this.switching.play = false;
      this.pausedAt = Date.now();
      this.save("pause");
      this.changed();
      this.deck.retime();
      return;
    }
    this.transport.pause();
  }

  toggle() { return this.playing ? this.pause() : this.play(); }

  onPlay() {
    if (this.switching) return;
    this.changed();
  }

  /** A pause: the system's has paused the other player already ("interrupted" comes first), so the
   *  lock screen hears of both at once and keeps what both were playing. */
  onPause() {
    if (this.switching) return;   // a change of source, not a pause
    if (this.transport.ended || !this.track) { this.changed(); return; }
    // A station's relay counts its seconds of sound, and a pause holds them while the timer's
    // clock runs on: played again, it is asked for afresh.
    if (this.track.live && this.rendition) this.rendition.stale = true;
    this.pausedAt = Date.now();
    this.save("pause");
    this.changed();
    this.deck.retime();  // the music beside a chapter's end has none while the speech waits
  }

  // MARK: Seeking (within the track)

  seek(offset) {
    const track = this.track;
    if (!track) return;
    const length = this.length;
    const clamped = Math.max(0, Math.min(offset, length > 0.5 ? length - 0.25 : length));
    this.generation += 1;
    this.place(track.start + clamped);
    this.pausedAt = null;
    this.drained = false;
    this.save("seek");
    this.changed();
    this.deck.retime();   // the timer keeps its clock: its end, from the new place
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

  /**
   * The same audio from another file: `queue`'s tracks placed in `src` (Up Next's joined stream,
   * or back in the item's own file), the track `index` the one playing, and playback moved there
   * to `at` seconds of `src` as a rendition's switch does (the gap is only the reload's). The
   * sleep timer's end and the level are then asked of the new file.
   */
  rebase(queue, index, src, at) {
    this.setQueue(queue);
    this.index = index;
    this.source = src;
    this.rendition = null;
    this.noRendition = null;
    this.preparedDuck = null;
    this.generation += 1;
    const switched = this.useSource(src, at);
    this.persist();   // (the place is the switch's, in `src`'s seconds)
    return switched.then((done) => {
      if (done && this.source === src) this.deck.retime();
      return done;
    });
  }

  /** Tracks added behind the queue (Up Next's next entry, or an article's next spoken part). */
  append(tracks) {
    this.setQueue([...this.queue, ...tracks]);
    this.persist();
    this.changed();
  }

  /** After the queue ran out and more came (`append`): on to the next track, playing. */
  resumeDrained() {
    if (!this.drained || !this.hasNext) return;
    this.loadTrack(this.index + 1);
    this.persist();
    this.play();
  }

  /** Forgets the tracks before the current one (an Up Next entry played through). */
  dropBefore() {
    const index = this.index;
    if (index <= 0) return;
    this.setQueue(this.queue.slice(index));
    this.index = 0;
    this.persist();
    this.changed();
  }

  /** Forgets the tracks after the current one from the first that `test` picks (Up Next's next
   *  entry, when the queue's order changed). */
  dropAfter(test) {
    const from = this.queue.slice(this.index + 1).findIndex(test);
    if (from < 0) return;
    this.setQueue(this.queue.slice(0, this.index + 1 + from));
    this.persist();
    this.changed();
  }

  /** Back to the track's start, or the previous track when within its first 3 s. */
  previous() {
    if (this.offset > 3 || this.index === 0) { this.seek(0); return; }
    const playing = this.playing;
    this.loadTrack(this.index - 1);
    this.persist();
    if (playing) this.play();
  }

  // MARK: Chapter ends (critical system 6, as positions)

  /** A timer for the track's end, tagged with the generation it was set in. It only asks where
   *  the audio is (`follow`), so one that fires late does no harm. */
  schedule() {
    clearTimeout(this.endTimer);
    const track = this.track;
    if (!track || track.end == null || this.transport.paused || this.switching) return;
    const generation = this.generation;
    const wait = Math.max(0, (track.end - this.position) / (this.transport.rate || 1)) * 1000;
    this.endTimer = setTimeout(() => {
      if (generation !== this.generation) return;
      if (!this.follow() && this.heardTo < track.end - AT_END) this.schedule();
    }, wait + 30);
  }

  onTime() {
    if (this.switching) return;   // a source loading reads 0, not the place
    const track = this.track;
    if (track && !this.transport.paused) this.follow();
    this.dispatchEvent(new Event("time"));
    if (track?.transcript?.length) {
      const line = this.transcriptLine();
      if (line !== this.lineShown) { this.lineShown = line; this.deck.claim.update(); }
    }
    const now = Date.now();
    if (now - this.lastLocalSave > SAVE_LOCAL_EVERY) this.persist();
    if (!this.transport.paused && now - this.lastServerSave > SAVE_SERVER_EVERY) this.save("play");
  }

  /**
   * The chapter advance, worked out from where the audio is: the chapter of this file that holds
   * it is the current one, and every chapter played through on the way from the last known one
   * is marked played (one, or several after a long lock). It never seeks: a notice that comes
   * late finds the audio already there, and a second notice of the same end finds nothing to do.
   * The file's last chapter ends with the file (`onEnded`). True when the chapter moved on.
   */
  follow() {
    const track = this.track;
    if (!track || track.end == null || this.restoring || this.switching) return false;
    const at = this.heardTo;
    if (at < track.end - AT_END) return false;
    let index = this.index;
    while (index + 1 < this.queue.length) {
      const next = this.queue[index + 1];
      if (next.src !== track.src) break;
      index += 1;
      if (next.end == null || at < next.end - AT_END) break;
    }
    if (index === this.index) return false;
    const from = this.index;
    this.index = index;
    this.lastTransition = Date.now();
    this.generation += 1;
    this.pausedAt = null;
    let stops = false;
    for (let passed = from; passed < index; passed += 1) {
      this.markPlayed(passed);
      // An item heard to its end in a joined stream, another following: its end is kept, as
      // `trackEnded` keeps a file's (an episode then counts as played).
      const track = this.queue[passed];
      if (track.item && track.shift != null && this.queue[passed + 1].item !== track.item) {
        record(track.item, "ended", toOriginal(track.kept, (track.end ?? this.fileDuration) - track.shift));
      }
      stops ||= this.deck.endsAfter(this, passed);
    }
    this.dispatchEvent(new CustomEvent("track", { detail: { index } }));
    if (stops) this.deck.timerEnded();   // End of Chapter reached without a rendition (a stream)
    this.persist();
    this.changed();
    return true;
  }

  /** The element played to the end of what it was given: the timer's rendition, or the file. */
  onEnded() {
    if (this.switching) return;
    // A station's relay that ends well before its time: the station dropped, not the timer's end.
    // It is asked for again, from now.
    if (this.track?.live && this.rendition?.endsAt != null && Date.now() < this.rendition.endsAt - 5000) {
      this.rendition.stale = true;
      this.deck.retime();
      return;
    }
    if (this.rendition) { this.deck.timerReached(this); return; }
    this.trackEnded();
  }

  /** The file ended: its last chapter (or the whole track) is played; the next track plays, unless
   *  End of Chapter or End of Episode ends here. */
  trackEnded() {
    if (!this.track) return;
    this.follow();   // chapters run through on the way, when no script ran meanwhile
    const index = this.index;
    this.lastTransition = Date.now();
    this.generation += 1;
    this.markPlayed(index);
    const stops = this.deck.endsAfter(this, index);
    if (this.hasNext) {
      // The item ends here and another follows (Up Next): its end is kept, as at a queue's end.
      if (this.track.item && this.queue[index + 1].item !== this.track.item) this.save("ended");
      this.loadTrack(index + 1);
      if (!stops) this.play();
    } else {
      this.transport.pause();
      this.save("ended");
      // The end of what it holds: Up Next may have more on its way (./queues.js).
      this.drained = !stops;
      if (this.drained) this.dispatchEvent(new Event("drained"));
    }
    if (stops) this.deck.timerEnded();
    this.persist();
    this.changed();
  }

  /** Marks the queue's track `index` played (a chapter in the progress log) and says so. */
  markPlayed(index) {
    const track = this.queue[index];
    if (!track) return;
    if (track.chapter != null && track.item) {
      const end = track.end ?? this.fileDuration;
      record(chapterItem(track.item, track.chapter), "ended", Math.max(0, end - track.start));
    }
    this.dispatchEvent(new CustomEvent("played", { detail: { book: track.book, chapter: track.chapter, played: true, track } }));
  }

  /** The sleep timer ended (`at`, wall time in ms): paused where the audio got to, which is kept,
   *  and back on the file itself there. */
  stopForTimer(at) {
    if (!this.track) return;
    // A stream faded by its gain played on in silence: what was heard ended at the fade's end.
    const faded = this.fadeOut?.until;
    const place = faded != null && faded < this.heardTo ? faded : this.heardTo;
    if (this.switching) this.switching.play = false;
    else this.transport.pause();
    this.fadeOutAt(null);
    this.follow();
    if (this.rendition || this.switching || this.request) this.useSource(this.ownSource(), place);
    else if (place !== this.heardTo) this.place(place);
    this.pausedAt = at;
    this.save("pause");
    this.persist();
  }

  // MARK: Volume, speed, Boost, ducking

  setSpeed(speed) {
    this.speed = speed;
    this.transport.rate = speed;
    this.persist();
    this.changed();
    this.deck.retime();   // the timer keeps its clock: more of the file plays before it ends
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
    if (this.levelInBytes) {
      // On an iPhone Boost is a rendition with its limiter, played from the same place.
      this.applyGain();
      this.changed();
      return;
    }
    const playing = this.playing, at = this.position, track = this.track;
    const old = this.transport, src = this.switching?.src ?? old.src;
    this.request = null;
    this.switching = null;
    this.graph?.disconnect();
    old.unload();
    this.transport = this.makeTransport();
    this.generation += 1;
    if (track && src) {
      this.transport.load(src, { at });
      await this.transport.whenLoaded();
      this.lastTransition = Date.now();
      if (playing) await this.play();
    }
    this.changed();
  }

  /** Volume × ducking: the element's volume where the browser lets a page set it; where it is
   *  ignored (an iPhone), the file's rendition (a station's shaped relay) at that level, with Boost's
   *  limiter, which holds with the screen locked (issue 46). A source with none goes through a Web Audio
   *  gain there, and Boost always does on a desktop; so does a sleep timer's fade with no rendition
   *  to carry it (`fadeOut`), as a ramp the audio thread runs to its end while no script does. */
  applyGain() {
    if (this.levelInBytes) {
      this.audio.volume = 1;
      if ((this.playing || this.starting) && !this.restoring) {
        const pending = this.request ?? this.switching;
        const { gain, boost } = this.levelShape();
        const now = shapeOf(pending ? pending.src : this.transport.src);
        if (now.gain !== gain || now.boost !== boost) this.reshapeLevel();
        this.prepareDuck();
      }
      return;
    }
    const gain = this.volume * this.duck;
    const graphed = this.boost || this.fadeOut || (gain !== 1 && !this.deck.elementVolume);
    if (this.track && !this.graph && graphed) this.connectGraph();
    if (!this.graph) {
      this.audio.volume = Math.max(0, Math.min(1, gain));
      return;
    }
    const { context, output } = this.graph;
    const now = context.currentTime;
    this.audio.volume = 1;
    if (!this.fadeOut && !this.fading) {
      output.gain.setTargetAtTime(gain, now, 0.08);
      return;
    }
    // The ramp is laid out again from now: full until the fade, then evenly down to silence.
    this.fading = Boolean(this.fadeOut);
    if (!this.fadeOut) {
      output.gain.cancelScheduledValues(now);
      output.gain.setValueAtTime(output.gain.value, now);
      output.gain.setTargetAtTime(gain, now, 0.08);
      return;
    }
    layFade(output.gain, now, this.fadeOut.endsAt, gain);
  }

  /** Plays the source at the level (and Boost) now asked for. A file's rendition is played from
   *  the same place at each whole dB; a station's relay is a new connection each time, so while
   *  its slider moves it is asked for at once, then at most every RELAY_LEVEL_EVERY ms, and at
   *  the level the slider stopped on: a drag across 20 dB reconnects a few times, not 20. */
  reshapeLevel() {
    if (!this.track?.live) { this.deck.reshape(this); return; }
    const wait = (this.levelHeldUntil ?? 0) - Date.now();
    if (wait > 0) {
      if (!this.levelTimer) this.levelTimer = setTimeout(() => { this.levelTimer = null; this.applyGain(); }, wait);
      return;
    }
    this.levelHeldUntil = Date.now() + RELAY_LEVEL_EVERY;
    this.deck.reshape(this);
  }

  /** The sleep timer's fade through the gain, ending at `endsAt` (wall ms) at `until` seconds of
   *  the file (null for a station), or none: for a source with no rendition (a stream). */
  fadeOutAt(endsAt, until) {
    const same = this.fadeOut && endsAt != null && Math.abs(this.fadeOut.endsAt - endsAt) < RETIME_SLACK * 1000;
    if (same || (!this.fadeOut && endsAt == null)) return;
    this.fadeOut = endsAt == null ? null : { endsAt, until };
    this.applyGain();
  }

  /** The element through Web Audio on the page's one context (once: an element's source node is
   *  for good): Boost's lift and limiter, then the gain that sets its level (volume.js's ElementGraph). */
  connectGraph() {
    this.graph = ElementGraph.connect(this.audio, { boost: this.boost });
    if (this.graph) this.deck.wake();
  }

  /** Whether this channel's level is in its file's bytes: the element's volume is ignored (an
   *  iPhone) and the file has renditions, or the station is relayed by the server, which shapes it
   *  on the way (a streamed episode, or an HLS station the browser reads itself, has none). */
  get levelInBytes() {
    const src = this.source;
    if (this.deck.elementVolume || !this.track || this.graph || this.noRendition === src) return false;
    return this.track.live ? isStationRelay(src) : hasRendition(src);
  }

  /** The level and Boost the file plays at in its bytes: {gain (whole dB), boost}; none (0, false)
   *  where the level is the element's volume or a gain. */
  levelShape() {
    return this.levelInBytes ? { gain: gainOf(this.volume * this.duck), boost: this.boost } : { gain: 0, boost: false };
  }

  /** The track's own file at its level (on an iPhone its rendition at it), without a timer's end. */
  ownSource() {
    return shapedSource(this.source, this.levelShape());
  }

  /** Music on an iPhone, not ducked now: the ducked rendition is asked for ahead (made once on the
   *  server), so speech that starts later ducks it within moments, not the making's seconds. */
  prepareDuck() {
    if (this.track?.live) return;   // (a station's relay is shaped as it is read: nothing to make ahead)
    const ducking = this.deck.ducking;
    if (this !== this.deck.music || this.duck !== 1 || ducking === 1) return;
    const ahead = shapedSource(this.source, { gain: gainOf(this.volume * ducking), boost: this.boost });
    if (this.preparedDuck === ahead) return;
    this.preparedDuck = ahead;
    prepareRendition(ahead);
  }

  // MARK: Keeping

  save(kind, { keepalive = false } = {}) {
    // The track that holds where the audio is (a pause on waking may come before any timeupdate
    // moved on from one item of a joined stream to the next).
    if (kind !== "ended") this.follow();
    const track = this.track;
    if (!track) return;
    this.lastServerSave = Date.now();
    // A live station has no place to keep.
    if (!track.item) return;
    record(track.item, kind, toOriginal(track.kept, this.heardTo - (track.shift ?? 0)), { keepalive });
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
      user: this.deck.user, index: this.index, position: this.heardTo, speed: this.speed,
      volume: this.volume, pausedAt: this.pausedAt, savedAt: Date.now(),
    });
    localStorage.setItem(STATE_KEYS[this.kind], `${place.slice(0, -1)},"queue":${this.queueJSON}}`);
  }

  restore(user) {
    const state = storedJSON(STATE_KEYS[this.kind]);
    if (!state || state.user !== user || !Array.isArray(state.queue) || !state.queue.length) return;
    this.speed = SPEEDS[this.kind].includes(state.speed) ? state.speed : 1;
    this.transport.rate = this.speed;
    this.volume = typeof state.volume === "number" ? Math.max(0, Math.min(1, state.volume)) : 1;
    const index = Math.max(0, Math.min(state.index | 0, state.queue.length - 1));
    let at = state.position ?? null;
    const saved = state.queue[index];
    if (saved?.shift != null && saved.file && !saved.queue) {
      // Songs or a LibriVox book's sections in a joined stream come back in their own files (those
      // a device keeps play offline); online they are joined again once restored.
      if (at != null) at = Math.max(saved.file.start ?? 0, at - saved.shift);
      state.queue = state.queue.map(fileTrack);
    }
    this.setQueue(state.queue);
    this.loadTrack(index, { at, restoring: true });
    // Smart rewind counts from the pause, or from when the page went away while playing.
    this.pausedAt = state.pausedAt ?? state.savedAt ?? null;
  }

  unload() {
    clearTimeout(this.endTimer);
    this.request = null;
    this.switching = null;
    this.transport.unload();
    this.source = null;
    this.rendition = null;
    this.fileDuration = 0;
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
    const now = toOriginal(this.track.kept, this.itemPosition) + 0.05;
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
    this.elementVolume = elementVolumeWorks();  // false on iOS: levels go through Web Audio (the check is volume.js's)
    this.music = new Channel(this, "music");
    this.speech = new Channel(this, "speech");
    this.music.addEventListener("track", () => { this.joinRun(this.music); });
    // (A LibriVox book in Up Next is joined by the queue, with what comes after it: ./queues.js.)
    this.speech.addEventListener("track", () => { if (!this.speech.track?.queue) this.joinRun(this.speech); });
    this.flags = { musicWasPlaying: false, speechWasPlaying: false };
    this.shows = "nothing";
    this.ducking = Number(localStorage.getItem(DUCK_KEY) ?? 0.25);
    if (!DUCKING.some((option) => option.value === this.ducking)) this.ducking = 0.25;
    this.timer = null;        // {option, endsAt}: wall time (ms) it ends; a chapter's or episode's end while the speech plays, else null
    this.notice = null;       // what the players say after the timer stopped them, until a play
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
        // The lock screen's and a headset's play only plays and pause only pauses (issue 46): a
        // pause pressed when nothing plays (the timer stopped the book in the dark) starts nothing.
        // `press` (the toggle) is for a headset's single play/pause button, where one sends it.
        play: () => { if (!this.anyPlaying) this.press(); },
        pause: () => { this.interrupted = null; this.pauseAll(); },
        stop: () => this.pauseAll(),
        // A button pressed on a locked phone may be the first script to run since a chapter ended
        // (issue 46): the chapters are first brought to where the audio is, so Next, Back and the
        // skips act on the chapter that sounds, not the one the page last saw.
        nexttrack: () => this.whereTheAudioIs()?.next(),
        previoustrack: () => this.whereTheAudioIs()?.previous(),
        seekbackward: (details) => this.whereTheAudioIs()?.skip(-(details?.seekOffset || 15)),
        seekforward: (details) => this.whereTheAudioIs()?.skip(details?.seekOffset || 30),
        seekto: (details) => this.whereTheAudioIs()?.seek(details.seekTime),
      },
    });
    window.addEventListener("pagehide", () => {
      for (const channel of this.channels) if (channel.loaded) { channel.persist(); if (channel.playing) channel.save("pause", { keepalive: true }); }
    });
    // Wind Down's full-screen player pauses both; it takes the lock screen itself when it opens.
    window.addEventListener("reverie:solo-player", () => this.pauseAll());
  }

  get channels() { return [this.music, this.speech]; }

  /** The lock screen's player, its chapters first followed to where its audio is (`follow`). */
  whereTheAudioIs() {
    for (const channel of this.channels) if (channel.loaded) channel.follow();
    return this.shown;
  }
  get anyLoaded() { return this.music.loaded || this.speech.loaded; }
  get anyPlaying() { return this.music.playing || this.speech.playing; }
  /** True where no script can change a level: the element's volume is fixed (iOS), there is no
   *  Web Audio to do it instead, and what is loaded has no renditions to carry a level (a
   *  station). The volume controls say to use the phone's buttons. */
  get levelFixed() {
    return levelFixed() && !this.channels.some((channel) => channel.track && !channel.track.live && hasRendition(channel.source));
  }

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
    this.dispatchEvent(new Event("signout"));
  }

  /** Called on a person's play: the audio graph may only start from a gesture. Where levels can
   *  only go through Web Audio (iOS), the page's context starts within the tap (volume.js). */
  wake() {
    startSharedContext();
  }

  playBook(book, index, { at = null } = {}) {
    return this.speech.load(bookTracks(book), index, { play: true, at });
  }

  /** Plays the songs `items` from `index`, the first from its own file at once (within the tap);
   *  it and those after it are then joined into one stream (`joinRun`). */
  playMusic(items, index) {
    return this.music.load(musicTracks(items), index, { play: true });
  }

  /** The channel is on a track in its own file with tracks after it the server can join (a song
   *  just picked, a LibriVox book's section, or the end of a joined stream): it and up to 49 after
   *  it are joined by the server into one stream (as Up Next's, ./queues.js), so the next plays on
   *  a locked phone, and playback moves there in place (a moment's gap, near the track's start).
   *  Each track keeps its own file when the server cannot be reached. */
  async joinRun(channel) {
    const first = channel.track;
    if (channel.joining) { channel.rejoin = true; return; }
    if (!first || !partKey(first) || !channel.hasNext) return;
    // (One restored after a reload is joined once its file is known, still paused.)
    if (channel.restoring) { channel.transport.on("loadedmetadata", () => this.joinRun(channel), { once: true }); return; }
    channel.joining = true;
    try {
      const joined = await joinedTracks(channel.queue.slice(channel.index, channel.index + JOINED_SONGS)).catch(() => null);
      if (!joined || channel.track !== first || channel.switching) return;
      const queue = [...channel.queue.slice(0, channel.index), ...joined, ...channel.queue.slice(channel.index + joined.length)];
      await channel.rebase(queue, channel.index, joined[0].src, channel.position + joined[0].shift);
    } finally {
      channel.joining = false;
      if (channel.rejoin) { channel.rejoin = false; this.joinRun(channel); }
    }
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

  // MARK: Sleep timer (in the audio, issue 31)

  setTimer(option) {
    const atEnd = option === "chapter" || option === "episode";
    if (atEnd && !this.speech.loaded) return Promise.resolve();
    this.notice = null;
    // `setting` until each player plays the rendition that holds the timer's fade (issue 46):
    // until then the fade and the stop are not in the audio, and a phone locked now plays on.
    const timer = { option, endsAt: atEnd ? null : Date.now() + option * 60_000, setting: true };
    this.timer = timer;
    clearInterval(this.ticker);
    this.ticker = setInterval(() => this.tick(), 1000);
    this.changed();
    return this.retime().then(() => {
      if (this.timer !== timer) return false;
      timer.setting = false;
      this.changed();
      return true;
    });
  }

  cancelTimer() {
    this.timer = null;
    clearInterval(this.ticker);
    this.ticker = null;
    // Back to each file itself, where it is (a paused one too, so a later play does not end early).
    for (const channel of this.channels) {
      channel.fadeOutAt(null);
      if (channel.rendition || channel.switching || channel.request) channel.useSource(channel.ownSource());
    }
    this.changed();
  }

  /** Seconds left on a minutes timer, or null. */
  get timerLeft() {
    return typeof this.timer?.option === "number" ? Math.max(0, (this.timer.endsAt - Date.now()) / 1000) : null;
  }

  /**
   * Seconds (wall time) until the sleep timer ends `channel`, or null when it does not, or it is
   * not known: the music beside a chapter's or episode's end while the speech waits. Minutes: the
   * time left. End of Chapter and End of Episode: until the speech gets to that end at its speed.
   */
  timerEndsIn(channel) {
    const timer = this.timer;
    if (!timer || !channel.track) return null;
    if (typeof timer.option === "number") return this.timerLeft;
    const speech = this.speech;
    if (channel !== speech && !speech.playing && !speech.starting) return null;
    const end = this.speechEnd() ?? speech.fileDuration;
    return end > 0 ? Math.max(0, (end - speech.heardTo) / speech.speed) : null;
  }

  /**
   * Where the sleep timer ends `channel`: a second of its file (where it gets to at its speed by
   * the timer's end: a chapter's end for End of Chapter), or null when its file, or the music's
   * track, ends there or before (it needs no rendition), or for a station.
   */
  timerUntil(channel) {
    const left = this.timerEndsIn(channel);
    if (left == null || channel.track.live || !(channel.fileDuration > 0)) return null;
    const until = channel.heardTo + left * channel.speed;
    // (A song in its own file ends before the timer: the next one is asked for its own. In a
    // joined stream the songs after it are in the same file.)
    if (until <= channel.heardTo || until >= channel.fileDuration - 0.1 || (channel === this.music && channel.track.shift == null && until >= channel.trackEnd)) return null;
    return until;
  }

  /**
   * Where the sleep timer ends a station (`channel` on a live track): the seconds of sound from
   * now its shaped relay plays (1 s to a day), or null. Under a second left, the end of the
   * rendition already playing, so nothing is asked for again so near the end.
   */
  liveUntil(channel) {
    const left = this.timerEndsIn(channel);
    if (left == null) return null;
    if (left < 1) return channel.renditionLeft;
    return Math.min(left, 86400);
  }

  /** The end `channel`'s rendition should have now: a second of its file, or for a station the
   *  seconds of sound from now (null: none). */
  untilFor(channel) {
    return channel.track?.live ? this.liveUntil(channel) : this.timerUntil(channel);
  }

  /** Where End of Chapter or End of Episode ends the speech: a second of its file, or null at the
   *  file's end (which needs no rendition). */
  speechEnd() {
    const speech = this.speech, track = speech.track;
    if (!track) return null;
    if (this.timer?.option === "chapter") return track.end;
    let last = speech.index;
    while (speech.queue[last + 1]?.item === track.item && speech.queue[last + 1].src === track.src) last += 1;
    return speech.queue[last].end;
  }

  /**
   * Puts each player that plays (or is starting to) on the source the sleep timer wants: its
   * rendition ending where the timer ends it, or its own file. Called whenever that end moves (a
   * seek, a skip, a speed change, a pause or a play), so the fade lands when the timer says. A
   * paused player is put right when it plays.
   */
  retime() {
    const timer = this.timer, speech = this.speech;
    if (timer && typeof timer.option !== "number") {
      // When the speech gets to the chapter's (or episode's) end at its speed, while it plays.
      const end = this.speechEnd() ?? speech.fileDuration;
      timer.endsAt = speech.playing || speech.starting ? Date.now() + ((end - speech.heardTo) / speech.speed) * 1000 : null;
    }
    return Promise.all(this.channels.map((channel) => this.reshape(channel)));
  }

  /**
   * Puts `channel`, when it plays (or is starting to), on the source it should play now: its file,
   * or the file's rendition ending where the sleep timer ends it and, on an iPhone, at its level
   * (volume × ducking, Boost). Nothing changes when it is already there (an end within
   * RETIME_SLACK counts as there).
   */
  reshape(channel) {
    const timer = this.timer;
    if (!channel.loaded || channel.restoring || !(channel.playing || channel.starting)) return null;
    const src = channel.source;
    if (!src) return null;
    const pending = channel.request ?? channel.switching;
    const live = channel.track.live;
    // A station relayed by the server is shaped there (its fade in the bytes, as a file's).
    const renders = channel.noRendition !== src && (live ? isStationRelay(src) : hasRendition(src));
    // No rendition of this source (a station a browser reads as HLS itself, a streamed episode,
    // a download offline): the fade through its gain, where Web Audio plays on with the screen
    // locked. Not on an iPhone, whose Web Audio falls silent when it locks (issue 46): there the
    // sound plays on, plainly, and the timer stops it when the page runs again (the sheet says so).
    const left = renders || !this.elementVolume || !timer ? null : this.timerEndsIn(channel);
    channel.fadeOutAt(left == null ? null : Date.now() + left * 1000, channel.track.live ? null : channel.heardTo + left * channel.speed);
    const until = renders && timer ? this.untilFor(channel) : null;
    const wanted = { until, ...channel.levelShape() };
    // Where it is: the level and Boost its address asks for, and the end its rendition has (a file
    // answered whole for an end has none; a station's counts down from its start).
    const now = shapeOf(pending ? pending.src : channel.transport.src);
    // (A station's relay gone stale, paused or dropped, or one the rendition was forgotten of
    // while its address still asks for an end: to be asked for again.)
    const forgotten = live && !channel.rendition && !pending && now.until != null;
    const end = pending ? now.until : forgotten ? -1 : channel.renditionLeft;
    // (A station's end on its way counts from when it starts: kept, however long it takes.)
    const slack = live && pending && end != null ? Infinity : RETIME_SLACK;
    const sameEnd = until == null ? end == null : end != null && Math.abs(end - until) < slack;
    if (sameEnd && now.gain === wanted.gain && now.boost === wanted.boost) return null;
    return channel.useSource(shapedSource(src, wanted));
  }

  /** Once a second while a timer is set: the countdown, and a minutes timer's end by the wall clock
   *  (a locked phone's page wakes to it late; the audio stopped on time). A chapter's or episode's
   *  end is the audio's own. */
  tick() {
    const timer = this.timer;
    if (!timer) return;
    if (typeof timer.option === "number" && Date.now() >= timer.endsAt) { this.timerEnded(); return; }
    this.dispatchEvent(new Event("timer"));
  }

  /** A rendition played to its end: the sleep timer's end, heard. For End of Chapter or Episode
   *  that is the speech's: the music's may end a moment before it, and waits there. */
  timerReached(channel) {
    if (!this.timer) { channel.useSource(channel.ownSource()); return; }   // left from a timer since cancelled
    if (channel === this.music && typeof this.timer.option !== "number" && this.speech.playing) return;
    this.timerEnded();
  }

  /**
   * The sleep timer ended: both players pause where the audio got to, and keep that place (a page
   * that wakes late never seeks back to where it thinks the end was); the players say when.
   */
  timerEnded() {
    const timer = this.timer;
    if (!timer) return;
    const at = Math.min(Date.now(), timer.endsAt ?? Infinity);
    this.timer = null;
    clearInterval(this.ticker);
    this.ticker = null;
    this.interrupted = null;
    for (const channel of this.channels) channel.stopForTimer(at);
    const time = new Intl.DateTimeFormat(undefined, { timeStyle: "short" }).format(new Date(at));
    this.notice = `The sleep timer stopped playback at ${time}.`;
    this.changed();
  }

  /** Whether End of Chapter or End of Episode ends `channel` at the end of its queue's track `index`. */
  endsAfter(channel, index) {
    if (channel !== this.speech) return false;
    const option = this.timer?.option;
    if (option === "chapter") return true;
    if (option !== "episode") return false;
    const next = channel.queue[index + 1];
    return !(next && next.item === channel.queue[index]?.item);
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

  /** What the lock screen shows for Listen: the shown player's track, or both combined; End of
   *  Chapter or End of Episode after the title while one is set. */
  lockScreenMetadata() {
    const shown = this.shownMetadata();
    const end = { chapter: "End of Chapter", episode: "End of Episode" }[this.timer?.option];
    return shown && end ? { ...shown, title: `${shown.title} · ${end}` } : shown;
  }

  shownMetadata() {
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
