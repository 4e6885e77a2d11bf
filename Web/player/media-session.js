// The lock screen and the headset's buttons (the Media Session API,
// https://w3c.github.io/mediasession/) have one owner: whatever is sounding. This file is the only
// one that touches navigator.mediaSession.
//
// Each area that plays makes one claim and says what happens to it:
// - `take()` when it starts playing: it becomes the owner. Its metadata, playback state and
//   position are shown and exactly its handlers are set; every action it has no handler for is
//   set to null, so no button can reach an area that is no longer sounding.
// - `update()` when its metadata, state or position changes: shown only while it is the owner.
// - `release()` when it stops for good or closes. The lock screen goes back to the claimant that
//   took it most recently among those still playing; when none plays, to the one that took it
//   most recently among those that have not released (Listen, paused by the area that took the
//   lock screen from it, so the headset's play resumes it); else it is cleared.
// A pause (the headset's, the lock screen's, the area's own button) keeps the claim: the next
// press plays again.
//
// Listen is one claimant: what it shows of its two players is its own rule (Web/listen/lock-screen.js).

/** Artwork for the lock screen: the type's icon on its colour, drawn here. */
export function artwork(color, iconPath) {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${color}"/><stop offset="1" stop-color="#07060f"/></linearGradient></defs><rect width="512" height="512" fill="url(#g)"/><g transform="translate(136 136) scale(10)" fill="none" stroke="#fff" stroke-width="1.4" stroke-linecap="round" stroke-linejoin="round"><path d="${iconPath}"/></g></svg>`;
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}

/** Every action a claim may handle; those it does not handle are set to null when it takes over. */
export const ACTIONS = ["play", "pause", "stop", "seekbackward", "seekforward", "seekto", "previoustrack", "nexttrack"];

/** One area's hold on the lock screen, made by `LockScreenOwner.claim`. */
class Claim {
  constructor(owner, name, { metadata, handlers = {}, isPlaying, position = null }) {
    this.owner = owner;
    this.name = name;
    this.metadata = metadata;
    this.handlers = handlers;
    this.isPlaying = isPlaying;
    this.position = position;
  }

  /** True while the lock screen shows this claim. */
  get owns() { return this.owner.current === this; }

  /** It starts playing: the lock screen and the buttons are its own. */
  take() { this.owner.take(this); }

  /** Its metadata, state or position changed: shown if it owns the lock screen. */
  update() { if (this.owns) this.owner.show(this); }

  /** Shows it on a lock screen nobody holds (a player restored paused); otherwise `update()`. */
  offer() {
    if (!this.owner.current) this.owner.take(this);
    else this.update();
  }

  /** It stopped for good or closed: the lock screen goes back to another claimant, or is cleared. */
  release() { this.owner.release(this); }
}

/**
 * The one owner of a Media Session. `session` is `navigator.mediaSession` (null in a browser
 * without it: claims still take and release, and nothing is shown); `Metadata` is `MediaMetadata`.
 */
export class LockScreenOwner {
  constructor(session = globalThis.navigator?.mediaSession ?? null, Metadata = globalThis.MediaMetadata ?? null) {
    this.session = session;
    this.Metadata = Metadata;
    this.current = null;
    this.held = [];          // claims that took the lock screen and have not released, oldest first
    this.shownKey = null;    // the metadata shown, so an unchanged update does not set it again
  }

  /**
   * A claim for the area `name`, with:
   * - metadata(): {title, artist, album, artwork: [{src, sizes, type}]}, or null for none
   * - handlers: {play, pause, stop, seekbackward, seekforward, seekto, previoustrack, nexttrack},
   *   each optional, each given the action's details
   * - isPlaying(): whether it is sounding now
   * - position(): {duration, position, playbackRate} (seconds), or null; optional
   */
  claim(name, options) {
    return new Claim(this, name, options);
  }

  take(claim) {
    this.held = this.held.filter((one) => one !== claim);
    this.held.push(claim);
    if (this.current !== claim) {
      this.current = claim;
      this.shownKey = null;
      this.setHandlers(claim.handlers);
    }
    this.show(claim);
  }

  release(claim) {
    this.held = this.held.filter((one) => one !== claim);
    if (this.current !== claim) return;
    const next = this.held.findLast((one) => one.isPlaying()) ?? this.held.at(-1) ?? null;
    if (next) { this.take(next); return; }
    this.current = null;
    this.clear();
  }

  // MARK: - The browser's session

  show(claim) {
    const session = this.session;
    if (!session) return;
    const data = claim.metadata() ?? null;
    const key = JSON.stringify(data);
    if (key !== this.shownKey) {
      this.shownKey = key;
      session.metadata = data && this.Metadata ? new this.Metadata(data) : null;
    }
    session.playbackState = claim.isPlaying() ? "playing" : "paused";
    const place = claim.position?.();
    if (place && Number.isFinite(place.duration) && place.duration > 0) {
      try {
        session.setPositionState({
          duration: place.duration, position: Math.max(0, Math.min(place.position || 0, place.duration)), playbackRate: place.playbackRate || 1,
        });
      } catch { /* no position state in this browser */ }
    }
  }

  setHandlers(handlers) {
    if (!this.session) return;
    for (const action of ACTIONS) {
      try { this.session.setActionHandler(action, handlers[action] ?? null); } catch { /* an action this browser does not offer */ }
    }
  }

  clear() {
    this.shownKey = null;
    const session = this.session;
    if (!session) return;
    session.metadata = null;
    session.playbackState = "none";
    try { session.setPositionState?.(); } catch { /* no position state in this browser */ }
    this.setHandlers({});
  }
}

/** The one owner every area claims the lock screen from. */
export const lockScreenOwner = new LockScreenOwner();
