// The Leaf/Masks button's machine, the browser's twin of Bedside's ContentModeMachine (Swift):
// both answer the cases in Tests/Shared/bedside-mode-cases.json (e2e/test_bedside.py runs them here).
//
// Off → Meditation → Poetry → Off. An idle tap moves to the next mode and starts a random piece
// of it; from meditation a tap stops, waits the 1.5 s gap with the three dots, then starts a poem;
// from poetry a tap stops and goes Off. A tap while a piece is starting is the person's last wish:
// Off at once, silencing what was on its way (issue 31); taps while stopping or in the gap do
// nothing. A piece played to its end marks the wake greeting's flag; one stopped by hand clears it.

export const GAP_SECONDS = 1.5;

const NEXT = { off: "meditation", meditation: "poetry", poetry: "off" };

/** The mode an idle tap in `modeName` moves to. */
export function after(modeName) {
  return NEXT[modeName];
}

/** Off, nothing playing. */
export function createMachine() {
  return { mode: "off", phase: "idle", afterStop: null, needsGesture: false };
}

/** The screen opened with `saved` as the person's contentMode: { machine, effects }. */
export function opened(saved) {
  if (saved !== "meditation" && saved !== "poetry") return { machine: createMachine(), effects: [] };
  return { machine: { mode: saved, phase: "starting", afterStop: null, needsGesture: false }, effects: [`start ${saved}`] };
}

/** What the button shows: leafOutline, leafFilled, masksOutline, masksFilled or dots. */
export function icon(machine) {
  if (machine.afterStop === "poetry") return "dots";
  const sounding = machine.phase === "starting" || machine.phase === "playing";
  if (machine.mode === "meditation") return sounding ? "leafFilled" : "leafOutline";
  if (machine.mode === "poetry") return sounding ? "masksFilled" : "masksOutline";
  return "leafOutline";
}

/** Whether a piece is on its way or going (the button says it is busy; My Content's Play waits). */
export function isBusy(machine) {
  return machine.phase === "starting" || machine.phase === "stopping" || machine.phase === "gap";
}

/**
 * Moves `machine` (in place) on an event: tap, continueTapped, started, refused, failed, finished,
 * stopped, gapElapsed, roomChanged, alarmRang (the alarm ends the night's content: Off). Returns the effects to carry out, as strings: "start MODE",
 * "stop" (a fade, then "stopped"), "silence" (everything sounding stops at once, and the piece on
 * its way never plays by itself), "wait gap", "save MODE", "mark completed", "clear completed".
 */
export function handle(machine, event) {
  const { phase, mode } = machine;
  if (phase === "idle" && event === "tap") {
    machine.needsGesture = false;
    machine.mode = NEXT[mode];
    if (machine.mode === "off") return ["save off"];
    machine.phase = "starting";
    return [`save ${machine.mode}`, `start ${machine.mode}`];
  }
  if (phase === "idle" && event === "continueTapped" && machine.needsGesture && mode !== "off") {
    machine.needsGesture = false;
    machine.phase = "starting";
    return [`start ${mode}`];
  }
  if (phase === "starting" && event === "started") { machine.phase = "playing"; return []; }
  if (phase === "starting" && event === "tap") {
    // The person changed their mind before it sounded: Off at once, stopped by hand.
    machine.mode = "off";
    machine.phase = "idle";
    return ["silence", "clear completed", "save off"];
  }
  if (phase === "starting" && event === "refused") { machine.phase = "idle"; machine.needsGesture = true; return []; }
  if ((phase === "starting" || phase === "playing") && event === "failed") { machine.phase = "idle"; return []; }
  if (phase === "playing" && event === "tap") {
    machine.phase = "stopping";
    machine.afterStop = mode === "meditation" ? "poetry" : "off";
    return ["stop", "clear completed"];
  }
  if (phase === "playing" && event === "finished") { machine.phase = "idle"; return ["mark completed"]; }
  if (phase === "playing" && event === "roomChanged") { machine.phase = "starting"; return ["clear completed", `start ${mode}`]; }
  if (phase === "stopping" && event === "stopped") {
    if (machine.afterStop === "poetry") { machine.phase = "gap"; return ["wait gap"]; }
    machine.afterStop = null;
    machine.mode = "off";
    machine.phase = "idle";
    return ["save off"];
  }
  if ((phase === "starting" || phase === "playing") && event === "alarmRang") {
    // Not stopped by hand: the greeting's flag stays as it is.
    machine.phase = "stopping";
    machine.afterStop = "off";
    return ["stop"];
  }
  if (phase === "stopping" && event === "alarmRang") { machine.afterStop = "off"; return []; }
  if (phase === "gap" && event === "alarmRang") {
    machine.afterStop = null;
    machine.mode = "off";
    machine.phase = "idle";
    return ["save off"];
  }
  if (phase === "idle" && event === "alarmRang" && mode !== "off") {
    machine.needsGesture = false;
    machine.mode = "off";
    return ["save off"];
  }
  if (phase === "gap" && event === "gapElapsed") {
    machine.afterStop = null;
    machine.mode = "poetry";
    machine.phase = "starting";
    return ["save poetry", "start poetry"];
  }
  return [];
}
