// The level of a media element, where `audio.volume` may do nothing (issues 31 and 46). iOS ignores
// a set of HTMLMediaElement.volume and always reads 1 (Apple: "Volume control in JavaScript" in the
// Safari HTML5 Audio and Video Guide). Where the element's volume works (a desktop browser) it is
// used. Where it does not, a level that must hold with the screen locked is in the bytes: the
// element plays a rendition at that level (`MediaLevel`, ./rendition.js), never a Web Audio gain,
// which goes silent when an iPhone locks. Where a source has no renditions the level is fixed and
// the controls say to use the phone's buttons.
//
// What still goes through Web Audio goes through here (`ElementGraph`), on the page's one context:
// Listen's players for a source with no rendition (a station: its level, ducking, Boost and the
// sleep timer's fade), Wind Down's player (its offline fade), on a browser whose element volume works.

import { prepareRendition } from "./rendition.js";

let settable = null;   // the probe's answer, asked once
let context = null;    // the one AudioContext levels share, made when a gain is first needed

/** Whether this browser lets a page set a media element's volume: set on a probe, read back
 *  (once; iOS answers 1 after a set of 0.5). */
export function elementVolumeWorks() {
  if (settable === null) {
    try {
      const probe = new Audio();
      probe.volume = 0.5;
      settable = Math.abs(probe.volume - 0.5) < 0.01;
    } catch {
      settable = true;
    }
  }
  return settable;
}

function contextClass() {
  return window.AudioContext || window.webkitAudioContext || null;
}

/** True where no script can change a level: the element's volume is fixed and there is no Web
 *  Audio to do it instead. A volume control says to use the phone's own buttons. */
export function levelFixed() {
  return !elementVolumeWorks() && !contextClass();
}

/** The page's AudioContext, made on first use (null without Web Audio). A suspended one is resumed
 *  by the next tap or key anywhere on the page: a browser lets it start only from a gesture. */
export function sharedContext() {
  if (context) return context;
  const Context = contextClass();
  if (!Context) return null;
  context = new Context();
  const wake = () => { if (context.state !== "running") context.resume().catch(() => {}); };
  for (const type of ["click", "touchend", "keydown"]) document.addEventListener(type, wake, { capture: true });
  return context;
}

/** Inside a person's tap: the page's context started, and made first where levels can only go
 *  through Web Audio (iOS), so a gain added later (ducking, a station's timer fade) is not a silent one. */
export function startSharedContext() {
  if (!elementVolumeWorks()) sharedContext();
  if (context && context.state === "suspended") context.resume().catch(() => {});
}

/**
 * One media element through the page's context, for good (an element's Web Audio source cannot be
 * undone): MediaElementSource → [Boost: a +8 dB lift → a limiter] → the gain that sets its level
 * (`output`, at 1 to start) → the speakers.
 */
export class ElementGraph {
  /** The element's graph, or null without Web Audio. `boost`: the lift and limiter (Listen's Boost). */
  static connect(element, { boost = false } = {}) {
    const shared = sharedContext();
    return shared ? new ElementGraph(shared, element, { boost }) : null;
  }

  constructor(context, element, { boost = false } = {}) {
    this.context = context;
    this.source = context.createMediaElementSource(element);
    this.output = context.createGain();
    this.lift = null;
    this.limiter = null;
    if (boost) {
      this.lift = context.createGain();
      this.lift.gain.value = 2.5;   // about +8 dB
      this.limiter = context.createDynamicsCompressor();
      this.limiter.threshold.value = -2;
      this.limiter.knee.value = 0;
      this.limiter.ratio.value = 20;
      this.limiter.attack.value = 0.002;
      this.limiter.release.value = 0.15;
      this.source.connect(this.lift).connect(this.limiter).connect(this.output);
    } else {
      this.source.connect(this.output);
    }
    this.output.connect(context.destination);
  }

  /** Takes the element's nodes out of the page's graph (its element is done with). */
  disconnect() {
    for (const node of [this.source, this.lift, this.limiter, this.output]) node?.disconnect();
  }
}

/**
 * The level of one media element, 0–1: its `volume` where that works; where the element ignores
 * it (an iPhone), the level is in the bytes: the element plays its source's rendition at that level
 * (`levelled`), switched to at the same place. Never a Web Audio gain: on an iPhone sound through
 * one goes silent when the screen locks (issue 46), and this element's sound must go on. Without a
 * rendition to switch to (a spoken piece) the level holds at 1 there, and a fade is a stop.
 */
export class MediaLevel {
  /** `element`: the <audio> whose level this sets; nothing else should set its volume.
   *  `transport`: its Transport (./transport.js), which switches its source keeping the place.
   *  `levelled(src, level)`: the address of `src` at `level`, or null where it has no such rendition. */
  constructor(element, { transport = null, levelled = null } = {}) {
    this.element = element;
    this.transport = transport;
    this.levelled = levelled;
    this.wanted = 1;       // the level last asked for (a fade's end)
    this.change = 0;       // a newer set or fade stops an older stepped fade
    this.following = null; // the switch to a level's rendition on its way
    this.again = false;    // the level changed again meanwhile
  }

  /** The level last asked for, 0–1. */
  get level() { return this.wanted; }

  /** True where nothing sets this element's level: its volume is ignored and it has no renditions. */
  get fixed() { return !elementVolumeWorks() && !this.levelled; }

  /** Whether the level is in the bytes here (the element's volume is ignored, renditions are had). */
  get inBytes() { return !elementVolumeWorks() && Boolean(this.levelled); }

  /** The address the element should play for `src` at the level asked for: its rendition where the
   *  level is in the bytes, else `src`. */
  source(src) {
    return (this.inBytes && src && this.levelled(src, this.wanted)) || src;
  }

  /** Sets the level at once: the element's volume, or a switch to the level's rendition. */
  set(level) {
    this.change += 1;
    this.wanted = clamp(level);
    if (elementVolumeWorks()) {
      this.element.volume = this.wanted;
      return;
    }
    if (this.inBytes) this.follow();
  }

  /** Moves the level to `level` over `seconds` (the element's volume in 0.1 s steps, the first at
   *  once); where the level is in the bytes or fixed, in one step now (a stop follows a fade to
   *  nothing, as the seed's iPhone app stops its voice). Resolves when the fade is done. */
  fadeTo(level, seconds) {
    const change = ++this.change;
    const from = this.wanted;
    this.wanted = clamp(level);
    if (!elementVolumeWorks()) {
      if (this.inBytes) this.follow();
      return Promise.resolve();
    }
    const done = new Promise((resolve) => setTimeout(resolve, Math.max(0, seconds) * 1000));
    const steps = Math.max(1, Math.round(seconds / 0.1));
    let step = 0;
    const next = () => {
      if (change !== this.change) return;
      step += 1;
      this.element.volume = clamp(from + (this.wanted - from) * (step / steps));
      if (step < steps) setTimeout(next, (seconds * 1000) / steps);
    };
    next();
    return done;
  }

  /** Nothing to let go of: the element never entered a graph (kept for the screens that close). */
  close() {
    this.change += 1;
  }

  /**
   * Puts the element on its source's rendition at the level asked for: the rendition is asked for
   * first while the current source plays on (the server makes it once), then switched to where
   * playback has got to; a level asked for meanwhile follows when that switch is done.
   */
  async follow() {
    if (this.following) { this.again = true; return this.following; }
    const transport = this.transport, src = transport?.src;
    const want = src && this.source(src);
    if (!want || want === src) return;
    this.following = (async () => {
      await prepareRendition(want);
      if (transport.src === src) await transport.switchSource(want);
    })().finally(() => { this.following = null; });
    await this.following;
    if (this.again) { this.again = false; await this.follow(); }
  }
}

function clamp(level) {
  const value = Number(level);
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 1;
}
