// Sound for a meditation: the whole session as one file (the plan's `sound`: every narration cue at
// its time, silence between, the bell at the end). The closing and the bell need no script, so they
// reach the ear with the phone locked, and the session's own sound keeps the page's audio alive.
// Pause and resume are a pause and a seek in that file, through the playback core's transport
// (Web/player/transport.js), which also claims the lock screen for the session.

import { Transport } from "../player/transport.js";

export class MeditationPlayer {
  /** `onError()`: the sound could not be loaded or played. `onPlayPause("play" | "pause")`: the
   *  lock screen's buttons. `onInterrupted()`: the system paused the sound (a call, another app's
   *  audio). `onEnded()`: the sound played to its end. */
  constructor({ onError, onPlayPause, onInterrupted, onEnded }) {
    this.transport = new Transport({ name: "meditate", className: "meditation-sound" });
    this.audio = this.transport.element;
    this.plan = null;
    this.wanted = false;        // the sound should be playing: not paused by the session, not stopped
    this.finishing = false;     // the session is over: the bell rings to its end, then the sound stops
    this.phaseTitle = null;     // what the lock screen shows under the session's name
    // Going on without the sound (the person chose it after a failure): the session's time runs on
    // the page's clock from `from` seconds, set off at `at` (performance.now()), or stands at
    // `from` while paused; the bell is tried on its own at the end.
    this.silent = null;
    this.onError = onError;
    const transport = this.transport;
    // A file that cannot load fails here (the play() promise does not always say so).
    transport.on("error", () => { if (this.isSession()) this.failed(); });
    transport.on("interrupted", () => {
      if (this.finishing) { this.stop(); return; }  // the bell paused from outside: the session is over anyway
      // Paused while it should play and still paused now, before its end: the system holds it.
      if (this.wanted && this.isSession() && transport.paused) {
        this.wanted = false;
        onInterrupted();
      }
    });
    transport.on("ended", () => {
      if (this.finishing) this.stop();
      else onEnded();
    });
    this.claim = transport.claim("Meditate", {
      metadata: () => (this.plan ? {
        title: this.plan.name, artist: this.phaseTitle || "Reverie", album: "Reverie",
        artwork: [{ src: "/icons/icon-512.png", sizes: "512x512", type: "image/png" }],
      } : null),
      isPlaying: () => this.wanted,
      position: () => (this.plan ? { duration: this.plan.totalSeconds, position: Math.min(this.position || 0, this.plan.totalSeconds), playbackRate: 1 } : null),
      handlers: { play: () => onPlayPause("play"), pause: () => onPlayPause("pause") },
    });
  }

  /** True while the element holds the session's sound (not the silence of `unlock`, not nothing). */
  isSession() {
    return Boolean(this.plan) && this.transport.holds(this.plan.sound.url);
  }

  /** Seconds into the session's sound: where the element is, or the place it is about to seek to;
   *  NaN while it holds no session. */
  get position() {
    if (this.silent) return this.silent.from + (this.silent.at === null ? 0 : (performance.now() - this.silent.at) / 1000);
    return this.isSession() ? this.transport.position : NaN;
  }

  /** True while the session goes on without its sound. */
  get withoutSound() { return Boolean(this.silent); }

  /** After a failure, the person goes on without the sound: the session's time runs on the page's
   *  clock from `fromSeconds` (so its screen, its phases and its end go on), and at the end the bell
   *  alone is tried. `retry` brings the sound back. */
  goOnSilently(plan, fromSeconds) {
    this.plan = plan;
    this.transport.unload();
    this.silent = { from: fromSeconds, at: performance.now() };
    this.wanted = true;
    this.claim.update();
  }

  failed() {
    this.wanted = false;
    this.claim.update();
    this.onError();
  }

  /** Call synchronously inside the tap that starts a session: it lets the element play later
   *  (phones allow sound only from a tap), before the plan has even arrived. */
  unlock(silenceURL) {
    this.transport.unlock(silenceURL);
  }

  /** Plays the plan's sound from `fromSeconds`: a seek in the file when the element holds it, or
   *  the file loaded again and sought to that place (a new page, an element the browser emptied or
   *  that failed, or `reload`). Call it inside a tap or a lock-screen action when it may be the
   *  first sound. */
  play(plan, fromSeconds, { reload = false } = {}) {
    this.plan = plan;
    this.finishing = false;
    if (this.silent) {  // resumed without the sound: the clock goes on from the place
      this.silent = { from: fromSeconds, at: performance.now() };
      this.wanted = true;
      this.claim.update();
      return;
    }
    const transport = this.transport;
    // The file again (a new page, an element the browser emptied or that failed, or `reload`),
    // going to its place once it knows its length; else a seek in it (held while it loads).
    if (reload) transport.load(plan.sound.url, { at: fromSeconds });
    else transport.ensure(plan.sound.url, { at: fromSeconds });
    this.wanted = true;
    this.claim.take();
    transport.play().then((result) => {
      // "aborted": paused or replaced meanwhile
      if ((result === "failed" || result === "needs-touch") && this.wanted) this.failed();
    });
  }

  /** After a failure: load the file again and play it from `fromSeconds`. */
  retry(fromSeconds) {
    this.silent = null;
    if (this.plan) this.play(this.plan, fromSeconds, { reload: true });
  }

  /** Pauses the sound; the lock screen stays the session's, so its play resumes it. */
  pause() {
    this.wanted = false;
    if (this.silent) this.silent = { from: this.position, at: null };
    this.transport.pause();
    this.claim.update();  // (its state is `wanted`: an element already paused has no pause event to come)
  }

  /** The session is complete: the bell in the sound rings to its end, then everything stops. */
  finish() {
    if (this.silent && this.plan) {
      // Without the session's sound, the bell is tried on its own; it stops everything when it ends
      // (or at once if it cannot play either).
      this.silent = null;
      this.finishing = true;
      this.transport.load(this.plan.bell.url);
      this.transport.play().then((result) => { if (result === "failed" || result === "needs-touch") this.stop(); });
      return;
    }
    if (!this.transport.playing) this.stop();
    else this.finishing = true;
  }

  /** Stops the sound at once and gives the lock screen back. */
  stop() {
    this.wanted = false;
    this.finishing = false;
    this.silent = null;
    this.transport.unload();
    this.audio.remove();
    this.claim.release();
  }

  /** Lock-screen artist: the phase (the position comes from the sound itself). */
  showOnLockScreen(phaseTitle) {
    this.phaseTitle = phaseTitle;
    this.claim.update();
  }
}
