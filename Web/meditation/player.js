// Sound for a meditation: the whole session as one file (the plan's `sound`: every narration cue at
// its time, silence between, the bell at the end). The closing and the bell need no script, so they
// reach the ear with the phone locked, and the session's own sound keeps the page's audio alive.
// Pause and resume are a pause and a seek in that file. The session claims the lock screen through
// Web/player/media-session.js.

import { lockScreenOwner } from "../player/media-session.js";

export class MeditationPlayer {
  /** `onError()`: the sound could not be loaded or played. `onPlayPause("play" | "pause")`: the
   *  lock screen's buttons. `onInterrupted()`: the system paused the sound (a call, another app's
   *  audio). `onEnded()`: the sound played to its end. */
  constructor({ onError, onPlayPause, onInterrupted, onEnded }) {
    this.audio = new Audio();
    this.audio.preload = "auto";
    this.audio.className = "meditation-sound";
    this.plan = null;
    this.wanted = false;        // the sound should be playing: not paused by the session, not stopped
    this.seekTo = null;         // the place (seconds) a reloaded sound seeks to once it can
    this.finishing = false;     // the session is over: the bell rings to its end, then the sound stops
    this.phaseTitle = null;     // what the lock screen shows under the session's name
    this.onError = onError;
    this.audio.addEventListener("loadedmetadata", () => this.seekToPlace());
    // A file that cannot load fails here (the play() promise does not always say so).
    this.audio.addEventListener("error", () => { if (this.isSession()) this.failed(); });
    this.audio.addEventListener("pause", () => {
      if (this.audio.ended) return;  // the end: "ended" comes next
      if (this.finishing) { this.stop(); return; }  // the bell paused from outside: the session is over anyway
      // Paused while it should play and still paused now, before its end: the system holds it.
      if (this.wanted && this.isSession() && this.audio.paused) {
        this.wanted = false;
        onInterrupted();
      }
    });
    this.audio.addEventListener("ended", () => {
      if (this.finishing) this.stop();
      else onEnded();
    });
    this.claim = lockScreenOwner.claim("Meditate", {
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
    return Boolean(this.plan) && this.audio.getAttribute("src") === this.plan.sound.url;
  }

  /** Seconds into the session's sound: where the element is, or the place it is about to seek to;
   *  NaN while it holds no session. */
  get position() {
    if (!this.isSession()) return NaN;
    return this.seekTo ?? this.audio.currentTime;
  }

  failed() {
    this.wanted = false;
    this.claim.update();
    this.onError();
  }

  /** Call synchronously inside the tap that starts a session: it lets the element play later
   *  (phones allow sound only from a tap), before the plan has even arrived. */
  unlock(silenceURL) {
    this.audio.src = silenceURL;
    this.audio.play().then(() => {
      if (this.audio.getAttribute("src") === silenceURL) this.audio.pause();
    }).catch(() => {});
  }

  /** Plays the plan's sound from `fromSeconds`: a seek in the file when the element holds it, or
   *  the file loaded again and sought to that place (a new page, an element the browser emptied or
   *  that failed, or `reload`). Call it inside a tap or a lock-screen action when it may be the
   *  first sound. */
  play(plan, fromSeconds, { reload = false } = {}) {
    this.plan = plan;
    this.finishing = false;
    if (reload || !this.isSession() || this.audio.error || this.audio.networkState === HTMLMediaElement.NETWORK_EMPTY) {
      this.seekTo = fromSeconds;
      this.audio.src = plan.sound.url;
    } else if (this.seekTo != null) {
      this.seekTo = fromSeconds;  // still loading: it seeks there once it can
    } else if (Math.abs(this.audio.currentTime - fromSeconds) > 0.25) {
      this.audio.currentTime = fromSeconds;
    }
    this.seekToPlace();
    this.wanted = true;
    this.claim.take();
    this.audio.play().catch((problem) => {
      if (problem && problem.name === "AbortError") return;  // paused or replaced meanwhile
      if (this.wanted) this.failed();
    });
  }

  /** A reloaded sound goes to its place as soon as it knows its length. */
  seekToPlace() {
    if (this.seekTo == null || this.audio.readyState < HTMLMediaElement.HAVE_METADATA) return;
    if (Math.abs(this.audio.currentTime - this.seekTo) > 0.25) this.audio.currentTime = this.seekTo;
    this.seekTo = null;
  }

  /** After a failure: load the file again and play it from `fromSeconds`. */
  retry(fromSeconds) {
    if (this.plan) this.play(this.plan, fromSeconds, { reload: true });
  }

  /** Pauses the sound; the lock screen stays the session's, so its play resumes it. */
  pause() {
    this.wanted = false;
    this.audio.pause();
    this.claim.update();
  }

  /** The session is complete: the bell in the sound rings to its end, then everything stops. */
  finish() {
    if (this.audio.paused || this.audio.ended) this.stop();
    else this.finishing = true;
  }

  /** Stops the sound at once and gives the lock screen back. */
  stop() {
    this.wanted = false;
    this.finishing = false;
    this.seekTo = null;
    this.audio.pause();
    this.audio.removeAttribute("src");
    this.audio.load();
    this.audio.remove();
    this.claim.release();
  }

  /** Lock-screen artist: the phase (the position comes from the sound itself). */
  showOnLockScreen(phaseTitle) {
    this.phaseTitle = phaseTitle;
    this.claim.update();
  }
}
