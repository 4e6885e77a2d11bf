// The level of a media element, where `audio.volume` may do nothing (issue 31). iOS ignores a set
// of HTMLMediaElement.volume and always reads 1 (Apple: "Volume control in JavaScript" in the
// Safari HTML5 Audio and Video Guide), so a level a script must change (a slider, ducking, a fade)
// goes there through a Web Audio gain instead: MediaElementSource → Gain → destination, on one
// AudioContext for the page, resumed inside a tap. Where the element's volume works (a desktop
// browser) the element's volume is used, as before. Where neither works the level is fixed and the
// controls say to use the phone's buttons (`levelFixed`).

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

/** The level of one media element, 0–1: its `volume` where that works, else a Web Audio gain. */
export class MediaLevel {
  /** `element`: the <audio> whose level this sets; nothing else should set its volume. */
  constructor(element) {
    this.element = element;
    this.wanted = 1;      // the level last asked for (a fade's end)
    this.graph = null;    // {source, gain} once the element goes through Web Audio (for good)
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
    if (!this.graph) return;
    this.graph.source.disconnect();
    this.graph.gain.disconnect();
  }

  /** The element's gain node, built on first need; null while the context has not started (the
   *  element plays on at full rather than go silent through a stopped graph: an alarm must sound)
   *  or without Web Audio. The level asked for meanwhile lands when the context starts. */
  gain() {
    if (this.graph) return this.graph.gain;
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
    const source = shared.createMediaElementSource(this.element);
    const gain = shared.createGain();
    gain.gain.value = 1;   // what the element played at until now
    source.connect(gain).connect(shared.destination);
    this.graph = { source, gain };
    return gain;
  }
}

function clamp(level) {
  const value = Number(level);
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 1;
}
