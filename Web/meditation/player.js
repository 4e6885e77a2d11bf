// Sound for a meditation: narration cues one at a time, the bell, a silent keep-alive loop that
// keeps a locked phone's page awake, and the session's claim on the lock screen (Web/player/media-session.js).

import { lockScreenOwner } from "../player/media-session.js";

export class MeditationPlayer {
  constructor({ onError, onPlayPause }) {
    this.narration = new Audio();
    this.narration.preload = "auto";
    this.bell = new Audio();
    this.keepAlive = new Audio();
    this.keepAlive.loop = true;
    this.queue = [];
    this.current = null;
    this.onError = onError;
    this.onPlayPause = onPlayPause;
    this.narration.addEventListener("ended", () => this.next());
    // A file that cannot load fails here (the play() promise does not always say so).
    this.narration.addEventListener("error", () => this.failed());
    this.playing = false;       // the session runs (not paused, not stopped)
    this.phaseTitle = null;     // what the lock screen shows under the session's name
    this.elapsed = 0;           // seconds of the session so far, for the lock screen
    this.claim = lockScreenOwner.claim("Meditate", {
      metadata: () => (this.plan ? {
        title: this.plan.name, artist: this.phaseTitle || "Reverie", album: "Reverie",
        artwork: [{ src: "/icons/icon-512.png", sizes: "512x512", type: "image/png" }],
      } : null),
      isPlaying: () => this.playing,
      position: () => (this.plan ? { duration: this.plan.totalSeconds, position: this.elapsed, playbackRate: 1 } : null),
      handlers: { play: () => this.onPlayPause("play"), pause: () => this.onPlayPause("pause") },
    });
  }

  failed() {
    if (!this.current || this.current.reported) return;
    this.current.reported = true;
    this.onError(this.current);
  }

  /** Call synchronously inside the tap that starts a session: it lets the elements play later
   *  (phones allow sound only from a tap), before the plan has even arrived. */
  unlock(silenceURL) {
    for (const element of [this.keepAlive, this.narration, this.bell]) {
      element.src = silenceURL;
      element.play().then(() => { if (element !== this.keepAlive) element.pause(); }).catch(() => {});
    }
  }

  /** Starts the keep-alive loop and the lock-screen controls for a plan. */
  async begin(plan) {
    this.plan = plan;
    this.keepAlive.src = plan.silence.url;
    this.keepAlive.volume = 0.01;
    try {
      await this.keepAlive.play();
    } catch {
      // No keep-alive (autoplay refused, or no audio device): the session still runs on screen.
    }
    this.playing = true;
    this.claim.take();
  }

  /** Plays a cue after any that is still playing; never two at once. The schedule leaves room
   *  for each cue, so one still playing when the next is due is running late (it stalled while
   *  loading): it gives way rather than pushing everything after it later. */
  cue(cue) {
    const playing = this.current;
    const due = playing && playing.durationMs != null && playing.atSeconds + playing.durationMs / 1000 <= cue.atSeconds;
    this.queue.push(cue);
    if (!playing || due) this.next();
  }

  async next() {
    this.current = this.queue.shift() || null;
    if (!this.current) return;
    await this.playCurrent();
  }

  async playCurrent() {
    const cue = this.current;
    cue.reported = false;
    this.narration.src = cue.url;
    try {
      await this.narration.play();
    } catch (problem) {
      if (problem && problem.name === "AbortError") return;  // paused or replaced meanwhile
      if (this.current === cue) this.failed();
    }
  }

  /** After a failed cue: try the same file again. */
  retry() {
    if (this.current) this.playCurrent();
  }

  /** After a failed cue: go on without it. */
  skip() {
    this.next();
  }

  async ringBell() {
    this.bell.src = this.plan.bell.url;
    try {
      await this.bell.play();
    } catch {
      // The bell is a nicety; the completion screen says the session is over.
    }
  }

  /** Pauses every sound; the lock screen stays the session's, so its play resumes it. */
  pause() {
    this.narration.pause();
    this.keepAlive.pause();
    this.playing = false;
    this.claim.update();
  }

  async resume() {
    try {
      await this.keepAlive.play();
      if (this.current && this.narration.src && !this.narration.ended) await this.narration.play();
    } catch {
      // As in begin().
    }
    this.playing = true;
    this.claim.take();
  }

  /** Stops every sound at once and gives the lock screen back. */
  stop() {
    this.queue = [];
    this.current = null;
    for (const element of [this.narration, this.keepAlive]) {
      element.pause();
      element.removeAttribute("src");
      element.load();
    }
    this.playing = false;
    this.claim.release();
  }

  /** Lock-screen title, artist (the phase) and position (seconds of the session). */
  showOnLockScreen(phaseTitle, elapsedSeconds) {
    this.phaseTitle = phaseTitle;
    this.elapsed = elapsedSeconds;
    this.claim.update();
  }
}
