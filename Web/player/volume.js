// The level of a media element, where `audio.volume` may do nothing (issue 31). iOS ignores a set
// of HTMLMediaElement.volume and always reads 1 (Apple: "Volume control in JavaScript" in the
// Safari HTML5 Audio and Video Guide), so a level a script must change (a slider, ducking, a fade)
// goes there through a Web Audio gain instead: MediaElementSource → Gain → destination, on one
// AudioContext for the page, resumed inside a tap. Where the element's volume works (a desktop
// browser) the element's volume is used, as before. Where neither works the level is fixed and the
// controls say to use the phone's buttons (`levelFixed`).
//
// Every element that goes through Web Audio goes through here (`ElementGraph`), on the page's one
// context: a MediaLevel's gain, Listen's players (their level, ducking, Boost and the sleep timer's
// fade with no rendition to carry it), Wind Down's player (its offline fade).

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

/** The level of one media element, 0–1: its `volume` where that works, else a Web Audio gain. */
export class MediaLevel {
  /** `element`: the <audio> whose level this sets; nothing else should set its volume. */
  constructor(element) {
    this.element = element;
    this.wanted = 1;      // the level last asked for (a fade's end)
    this.graph = null;    // its ElementGraph once the element goes through Web Audio (for good)
    this.change = 0;      // a newer set or fade stops an older stepped fade
    this.waiting = false; // a gain is wanted but the context has not started yet
    // Where levels need a gain, the context is made now, so the first tap starts it (its capture
    // listener runs before the tap's own handler asks for a level).
    if (!elementVolumeWorks()) sharedContext();
  }

  /** The level last asked for, 0–1. */
  get level() { return this.wanted; }

  /** True where nothing can set this element's level (see `levelFixed`). */
  get fixed() { return levelFixed(); }

  /** Sets the level at once (a short glide through a gain, against clicks). */
  set(level) {
    this.change += 1;
    this.wanted = clamp(level);
    if (elementVolumeWorks()) {
      this.element.volume = this.wanted;
      return;
    }
    const gain = this.gain();
    if (!gain) return;
    const now = gain.context.currentTime;
    gain.gain.cancelScheduledValues(now);
    gain.gain.setValueAtTime(gain.gain.value, now);
    gain.gain.setTargetAtTime(this.wanted, now, 0.03);
  }

  /** Moves the level to `level` over `seconds`: a ramp the audio thread runs through a gain, or the
   *  element's volume in 0.1 s steps (the first at once). Resolves when the time has passed, on the
   *  page's timers, whether or not a newer set took over meanwhile. */
  fadeTo(level, seconds) {
    const change = ++this.change;
    const from = this.wanted;
    this.wanted = clamp(level);
    const done = new Promise((resolve) => setTimeout(resolve, Math.max(0, seconds) * 1000));
    if (elementVolumeWorks()) {
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
    const gain = this.gain();
    if (gain) {
      const now = gain.context.currentTime;
      gain.gain.cancelScheduledValues(now);
      gain.gain.setValueAtTime(gain.gain.value, now);
      gain.gain.linearRampToValueAtTime(this.wanted, now + Math.max(0.01, seconds));
    }
    return done;
  }

  /** Lets the element go from the page's audio graph (the screen that owned it closed). */
  close() {
    this.change += 1;
    this.graph?.disconnect();
  }

  /** The element's gain node, built on first need; null while the context has not started (the
   *  element plays on at full rather than go silent through a stopped graph: an alarm must sound)
   *  or without Web Audio. The level asked for meanwhile lands when the context starts. */
  gain() {
    if (this.graph) return this.graph.output;
    const shared = sharedContext();
    if (!shared) return null;
    if (shared.state !== "running") {
      shared.resume().catch(() => {});  // inside a tap this starts it; else the next tap does
      if (!this.waiting) {
        this.waiting = true;
        const started = () => {
          if (shared.state !== "running") return;
          shared.removeEventListener("statechange", started);
          this.waiting = false;
          if (!this.graph) this.set(this.wanted);
        };
        shared.addEventListener("statechange", started);
      }
      return null;
    }
    this.graph = new ElementGraph(shared, this.element);   // at 1: what the element played at until now
    return this.graph.output;
  }
}

function clamp(level) {
  const value = Number(level);
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 1;
}
