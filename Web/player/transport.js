// The playback core's transport: one `<audio>` element driven the same way by every area that plays
// (Wind Down's player, Listen's two channels, Meditate, Bedside's voice, room, chime and greeting,
// articles read aloud, Try a voice). The rest of the core sits beside it in Web/player/: the lock
// screen's one owner (media-session.js), the sleep timer's rule and sheet (sleep-timer.js), its
// renditions (rendition.js), the iPhone's volume rule (volume.js) and time as the app writes it
// (time.js).
//
// What it settles once, so no area has its own answer:
// - **A place asked for before the file is known** (a restored place, a chapter, a resume) is held
//   and applied when the length arrives; `position` reads it meanwhile. Places are kept inside the
//   file, a hair before its end, so a seek never ends what plays.
// - **Speed** survives a change of source (a new source starts at the default rate otherwise), with
//   the pitch kept.
// - **Who paused.** A pause or play made through the transport is its own; one nobody here asked
//   for (a call, another app's audio, headphones out) is the system's, and the transport says so
//   with an `interrupted` or `resumed` event, so an area can keep its clock and place right.
// - **What a play came to:** "playing", "needs-touch" (a phone allows sound only from a tap),
//   "aborted" (replaced or paused meanwhile) or "failed".
// - **Changing source in place** (a sleep timer's rendition, a render's opening handed to the
//   whole): the new source starts at the same second, at the same speed, playing if it was.
// - **A loaded file whose reading fails** (a network error once its length is known): behind the
//   front, the element reads a signed media address Reverie redirected it to, which expires after
//   six to seven hours (nginx then answers 410), so a book paused in the evening and played hours
//   later, or a long night's listening, fails on its next read; so does a brief loss of the
//   network. The transport loads the same source again (the API address, which Reverie answers
//   with a fresh signed one) at the place it had got to, at the same speed, playing if it was,
//   and says so with a `recovered` event. One retry, not a loop: a failure while the retry has not
//   yet got back to its place, or within RECOVERY_WINDOW seconds of it, stands, and only a failure
//   that stands reaches the areas' `error` listeners (they show their own message).

import { lockScreenOwner } from "./media-session.js";

/** Seconds kept before a file's end when seeking, so a seek lands in the sound. */
export const END_MARGIN = 0.25;

/** Seconds a source loaded again after a failure must have been back at its place before another
 *  failure of it is retried: a link that will not come back, or a network that is gone, fails
 *  once more and that stands; a failure hours later (one early in the night, one at dawn) is
 *  retried again. */
export const RECOVERY_WINDOW = 30;

/** Seconds from the place asked for within which `ensure` leaves the sound where it is: a resume
 *  at the place it was paused would otherwise seek, and stutter, for nothing. */
export const NEAR_ENOUGH = 0.25;

/** What a play that came to "needs-touch" says, in every area that says it. */
export const NEEDS_TOUCH = "Tap play to start: the browser needs a touch first.";

/** The transport's own events; every other type is the element's. */
const OWN_EVENTS = new Set(["interrupted", "resumed", "recovered", "error"]);

/** The element's events that change what a lock-screen claim shows (state, speed, place, length). */
const LOCK_SCREEN_EVENTS = ["play", "pause", "ratechange", "seeked", "durationchange"];

export class Transport extends EventTarget {
  /**
   * `element`: an `<audio>` already in the page (a player's own markup); by default a new one.
   * `name`: set as `data-transport`, so tests and styles can find the element.
   * `className`: the element's class, for an area whose styles and tests know it by one.
   */
  constructor({ element = null, name = null, className = null } = {}) {
    super();
    const audio = element ?? new Audio();
    audio.preload = "auto";
    audio.preservesPitch = true;
    if (name) audio.dataset.transport = name;
    if (className) audio.className = className;
    this.element = audio;
    this.pending = null;       // a place (seconds) to go to once the source's length is known
    this.speed = audio.playbackRate || 1;
    // Pause and play events the transport's own calls will cause, not yet seen: a pause() of a
    // playing element fires one "pause", a play() of a paused one one "play" (none when the
    // browser refuses it first). Counted, not timed, so a busy phone that delivers them late
    // still tells them from the system's. A new source drops the element's events still queued
    // (the media load algorithm), so the counts start again there (`forgetQueuedEvents`).
    this.ownPauses = 0;
    this.ownPlays = 0;
    // Whether it plays, as its events last said: when a read fails, Chromium has paused the
    // element by its error event (`paused` no longer tells) and sends the "pause" only after it.
    this.sounding = false;
    // {src, back}: the source last loaded again after a failure, and when it got back to its
    // place (ms; null while on its way). A load by an area starts afresh.
    this.recovery = null;
    audio.addEventListener("loadedmetadata", () => this.applyPending());
    audio.addEventListener("pause", () => {
      this.sounding = false;
      if (this.ownPauses > 0) { this.ownPauses -= 1; return; }
      if (!audio.ended && this.src) this.dispatchEvent(new Event("interrupted"));
    });
    audio.addEventListener("play", () => {
      this.sounding = true;
      if (this.ownPlays > 0) { this.ownPlays -= 1; return; }
      if (this.src) this.dispatchEvent(new Event("resumed"));
    });
    audio.addEventListener("error", () => {
      if (!this.recover()) this.dispatchEvent(new Event("error"));
    });
  }

  /** Listens to the element's events (timeupdate, ended…) or the transport's own (interrupted,
   *  resumed, recovered, and error: the element's, unless the transport recovered from it);
   *  returns a function that stops listening. */
  on(type, handler, options) {
    const target = OWN_EVENTS.has(type) ? this : this.element;
    target.addEventListener(type, handler, options);
    return () => target.removeEventListener(type, handler, options);
  }

  // MARK: - What it holds

  /** The source as it was set (a path, not the resolved URL; without the place a `switchNow` gave
   *  it), or null. */
  get src() { return this.element.getAttribute("src")?.replace(/#t=[0-9.]*$/, "") ?? null; }
  holds(src) { return this.src === src; }
  /** The source's length is known (and a seek lands). */
  get ready() { return this.element.readyState >= HTMLMediaElement.HAVE_METADATA; }
  /** The source's length in seconds, or NaN while unknown (a stream is Infinity). */
  get duration() {
    const d = this.element.duration;
    return d > 0 ? d : NaN;
  }
  /** Seconds into the source: the place it is about to go to while loading, else where it is. */
  get position() {
    if (this.pending != null) return this.pending;
    const t = this.element.currentTime;
    return Number.isFinite(t) && t >= 0 ? t : 0;
  }
  get paused() { return this.element.paused; }
  get ended() { return this.element.ended; }
  get playing() { return Boolean(this.src) && !this.element.paused && !this.element.ended; }
  /** The element cannot play its source (it failed, or the browser emptied it). */
  get broken() { return Boolean(this.element.error) || this.element.networkState === HTMLMediaElement.NETWORK_EMPTY; }

  // MARK: - Transport

  /** Loads `src` (a play follows with `play()`); `at` seconds is where it starts once its length
   *  is known. The speed carries over. The place is also in the address (a media fragment,
   *  `#t=`), so the element starts there itself: a play asked for at once could otherwise begin
   *  from the file's start, on a busy phone, before the length's event reaches the script (and
   *  with the page locked, never reach it). The held place still applies it, clamped into the
   *  file, where the fragment lies past the end. */
  load(src, { at = null } = {}) {
    this.pause();  // (a new source stops the old without a pause event of its own)
    this.pending = at;
    this.recovery = null;
    this.element.src = at > 0 && Number.isFinite(at) && !src.includes("#") ? `${src}#t=${at.toFixed(3)}` : src;
    this.forgetQueuedEvents();
    this.element.playbackRate = this.speed;
  }

  /** Plays; resolves with "playing", "needs-touch", "aborted" or "failed" (the element's error
   *  event says why a file failed). */
  async play() {
    const starts = this.element.paused;
    if (starts) this.ownPlays += 1;
    this.element.playbackRate = this.speed;
    try {
      await this.element.play();
      return "playing";
    } catch (problem) {
      // Paused or replaced meanwhile: its "play" came. Refused or unplayable: none did.
      if (problem?.name === "AbortError") return "aborted";
      if (starts) this.ownPlays = Math.max(0, this.ownPlays - 1);
      return problem?.name === "NotAllowedError" ? "needs-touch" : "failed";
    }
  }

  pause() {
    if (this.element.paused) return;
    this.ownPauses += 1;
    this.element.pause();
  }

  /** Goes to `seconds`, kept inside the source (`margin` seconds before its end); held until its
   *  length is known. Returns the place. */
  seek(seconds, { margin = END_MARGIN } = {}) {
    const end = this.duration;
    const place = Math.max(0, Number.isFinite(end) ? Math.min(seconds, Math.max(0, end - margin)) : seconds);
    if (!this.ready) { this.pending = place; return place; }
    this.pending = null;
    if (Math.abs(this.element.currentTime - place) > 0.01) this.element.currentTime = place;
    return place;
  }

  skip(seconds) { return this.seek(this.position + seconds); }

  /** Makes `src` the source at `at` seconds (or where it is, when null): loaded when it is not the
   *  source or cannot play (failed, or emptied by the browser), else a seek, when more than
   *  NEAR_ENOUGH seconds away. */
  ensure(src, { at = null } = {}) {
    if (!this.holds(src) || this.broken) this.load(src, { at });
    else if (at != null && Math.abs(this.position - at) > NEAR_ENOUGH) this.seek(at);
  }

  /** The speed (0.5…3), kept across sources, with the pitch kept. */
  get rate() { return this.speed; }
  set rate(value) {
    this.speed = value;
    this.element.defaultPlaybackRate = value;
    this.element.playbackRate = value;
  }

  /** Stops and lets go of the source (the element stays, ready for the next). */
  unload() {
    this.pause();
    this.pending = null;
    this.recovery = null;
    this.element.removeAttribute("src");
    this.element.load();
    this.forgetQueuedEvents();
  }

  /** Call synchronously inside a tap, before the sound to play is known: the element may then
   *  play later (phones allow sound only from a tap). Plays `silenceURL` and stops. */
  unlock(silenceURL) {
    this.load(silenceURL);
    this.play().then(() => { if (this.holds(silenceURL)) this.pause(); });
  }

  /** Resolves once the source's length is known (true) or it failed to load (false). */
  whenLoaded() {
    if (this.ready) return Promise.resolve(true);
    const audio = this.element;
    return new Promise((resolve) => {
      const done = (event) => {
        audio.removeEventListener("loadedmetadata", done);
        audio.removeEventListener("error", done);
        resolve(event.type === "loadedmetadata");
      };
      audio.addEventListener("loadedmetadata", done);
      audio.addEventListener("error", done);
    });
  }

  /**
   * Switches to `src` keeping the place: once the new source's length is known it goes to `at`
   * seconds (a number, or a function read then, for a place that moved while it loaded; by
   * default where it was), at the same speed, and plays if it was playing. Resolves with true once
   * there, false when `src` was already the source or did not load (its error event says why).
   */
  async switchSource(src, { at = this.position, play = this.playing } = {}) {
    if (this.holds(src)) return false;
    this.pause();
    this.load(src);
    const loaded = await this.whenLoaded();
    if (!loaded || !this.holds(src)) return false;
    this.seek(typeof at === "function" ? at() : at);
    if (play) await this.play();
    return true;
  }

  /**
   * Switches to `src` at `at` seconds as `switchSource` does, but all in this task: the place is
   * in the address (a media fragment, `#t=`) and the play is asked for at once, so the element
   * gets there and plays with no script to run after (the page may be locked a moment later).
   * For a source the server answers at once (a joined stream). Resolves as `switchSource` does.
   */
  async switchNow(src, { at = this.position, play = this.playing } = {}) {
    if (this.holds(src)) return false;
    this.pause();
    this.load(`${src}#t=${Math.max(0, at).toFixed(3)}`);
    if (play) this.play();
    const loaded = await this.whenLoaded();
    if (!loaded || !this.holds(src)) return false;
    if (play && this.element.paused) await this.play();
    return true;
  }

  // MARK: - The lock screen

  /** A claim on the lock screen (./media-session.js) whose state, position and buttons (play and
   *  pause) are this transport's unless `options` says otherwise. It updates itself at every play,
   *  pause, speed, seek and length the element has (shown only while it owns the lock screen), so
   *  an area updates it only for what is its own (its metadata, a state it keeps itself). */
  claim(name, options) {
    const claim = lockScreenOwner.claim(name, {
      isPlaying: () => this.playing,
      position: () => ({ duration: this.duration, position: this.position, playbackRate: this.speed }),
      handlers: { play: () => this.src && this.play(), pause: () => this.pause() },
      ...options,
    });
    for (const type of LOCK_SCREEN_EVENTS) this.on(type, () => claim.update());
    return claim;
  }

  // MARK: - Inside

  /** The element's queued events were dropped by a load: none of the own ones will come, nor
   *  the pause a failure queued (a load pauses the element without one). */
  forgetQueuedEvents() {
    this.ownPauses = 0;
    this.ownPlays = 0;
    this.sounding = false;
  }

  /**
   * The element failed: when it is a network error on a source whose length was known, and not
   * a failure of this source's retry (one on its way, or back less than RECOVERY_WINDOW seconds
   * ago), loads the source again at its place and speed, playing if it was (the load drops the
   * pause the failure queued, so it is no `interrupted`), and returns true; a `recovered` event
   * follows once it can play from that place (its detail: src, at, and what the play came to, or
   * null when it was paused). False: the error stands. A `load` by an area starts afresh.
   */
  recover() {
    const audio = this.element, src = this.src;
    if (!src || audio.error?.code !== MediaError.MEDIA_ERR_NETWORK || !Number.isFinite(this.duration)) return false;
    const last = this.recovery;
    if (last?.src === src && (last.back == null || Date.now() - last.back < RECOVERY_WINDOW * 1000)) return false;
    const at = this.position, playing = this.sounding;
    this.load(src, { at });
    const recovery = { src, back: null };
    this.recovery = recovery;
    const played = playing ? this.play() : Promise.resolve(null);
    Promise.all([played, this.whenPlayable()]).then(([result, playable]) => {
      if (!playable || this.recovery !== recovery) return;  // loaded afresh, or failed, meanwhile
      recovery.back = Date.now();
      this.dispatchEvent(new CustomEvent("recovered", { detail: { src, at, result } }));
    });
    return true;
  }

  /** Resolves true once the source has data at its place (any place held is applied, and the
   *  seek there done), false if it fails first. Its length alone is not enough: the browser may
   *  know it from what it kept of the source, and fail only at the place's read. */
  whenPlayable() {
    const audio = this.element;
    return new Promise((resolve) => {
      const types = ["canplay", "seeked", "playing", "error"];
      const check = (event) => {
        const failed = event.type === "error";
        if (!failed && (this.pending != null || audio.seeking || audio.readyState < HTMLMediaElement.HAVE_FUTURE_DATA)) return;
        for (const type of types) audio.removeEventListener(type, check);
        resolve(!failed);
      };
      for (const type of types) audio.addEventListener(type, check);
    });
  }

  applyPending() {
    if (this.pending == null || !this.ready) return;
    const place = this.pending;
    this.pending = null;
    this.seek(place);
  }
}

/**
 * Calls `paint()` while `transport` plays (every 100 ms, finer than timeupdate), and once at every
 * seek, pause and end; nothing runs while it is silent. Returns a function that stops.
 */
export function follow(transport, paint) {
  let timer = null;
  const still = () => { clearInterval(timer); timer = null; paint(); };
  const playing = () => { clearInterval(timer); timer = setInterval(paint, 100); };
  const stops = [["playing", playing], ["pause", still], ["ended", still], ["emptied", still], ["seeked", paint], ["timeupdate", paint]]
    .map(([type, handler]) => transport.on(type, handler));
  return () => {
    clearInterval(timer);
    for (const stop of stops) stop();
  };
}
