// The playback core's sleep timer: its rule and its sheet, shared by Wind Down's player
// (Web/wind-down/player.js) and Listen's deck (Web/listen/deck.js). A timer runs on wall-clock time
// (a hidden page's timers fire late); the fade and the stop reach the ear with the page's scripts
// stopped because they are in the audio itself: the server's rendition that ends at the timer
// (./rendition.js), or a gain ramp scheduled on the audio clock where there is none (layFade, on a
// gain of ./volume.js's ElementGraph). The rule is the twin of
// Playback's SleepTimer (Sources/Playback/SleepTimer.swift); both answer
// Tests/Shared/sleep-timer-cases.json, which also pins the fade (its length, shape and gains), so it
// is written once on each side and held equal.

import { escapeHTML } from "../dom.js";
import { clock } from "./time.js";
import { elementVolumeWorks } from "./volume.js";

/**
 * The sleep timer's fade (Playback's `SleepTimer.fade`): its length in seconds before the timer
 * ends, and its shape, "linear" (a straight line to silence). sleepTimerVolume is its gain.
 */
export const SLEEP_FADE = Object.freeze({ seconds: 30, shape: "linear" });
/** Seconds of fade before a sleep timer ends. */
export const SLEEP_FADE_SECONDS = SLEEP_FADE.seconds;
/** Pressing play this many seconds after a timer stopped starts the same timer again. */
export const SLEEP_REARM_SECONDS = 5 * 60;

/**
 * Seconds from now until a timer set now ends: `option` minutes (a number) or "end" (End of
 * Content), with the player at `position` of an item `duration` seconds long played at `rate`.
 * No timer outlasts the item.
 */
export function sleepTimerLength(option, position, duration, rate = 1) {
  const toEnd = Math.max(0, duration - position) / Math.max(rate, 0.01);
  return option === "end" ? toEnd : Math.min(option * 60, toEnd);
}

/**
 * The volume (0…1) with `left` seconds to go, the fade's gain (Playback's `SleepFade.gain`): full
 * until the fade, then down to silence in its shape; linear, the share of the fade still to go.
 */
export function sleepTimerVolume(left) {
  return left <= 0 ? 0 : Math.min(1, left / SLEEP_FADE.seconds);
}

/**
 * Lays the sleep timer's fade out on an AudioParam (a gain), from the audio clock's `now`: `full`
 * times sleepTimerVolume, so at `full` until the fade, then down to silence at `endsAt` (wall ms).
 * Whatever was scheduled is replaced; the audio thread carries it out with no script running (a
 * locked phone). The fade is linear, so a linear ramp between its gains where it starts and ends
 * is the whole of it; another shape would lay sleepTimerVolume's values with setValueCurveAtTime.
 */
export function layFade(param, now, endsAt, full = 1) {
  param.cancelScheduledValues(now);
  param.setValueAtTime(param.value, now);
  const left = Math.max(0, (endsAt - Date.now()) / 1000);
  param.linearRampToValueAtTime(full * sleepTimerVolume(left), now + 0.08);
  if (left > SLEEP_FADE.seconds) param.setValueAtTime(full * sleepTimerVolume(SLEEP_FADE.seconds), now + left - SLEEP_FADE.seconds);
  param.linearRampToValueAtTime(full * sleepTimerVolume(0), now + Math.max(left, 0.1));
}

/** What is left as the countdown shows it ("15:32"), rounded up so it never shows 0:00 while sound plays. */
export function sleepTimerClock(left) {
  return clock(Math.ceil(Math.max(0, left)));
}

/**
 * Where playback resumes when play is pressed `since` seconds after a timer stopped it at
 * `position` (seconds into the item): within the rearm window, the same timer starts again from
 * the fade's length back, so nothing heard during the fade is lost; otherwise null (play as usual).
 */
export function sleepTimerResume(since, position) {
  return since >= 0 && since <= SLEEP_REARM_SECONDS ? Math.max(0, position - SLEEP_FADE.seconds) : null;
}

/**
 * The sleep timer's choices as a sheet: resolves with the chosen option's value (a string), or
 * null. `choices` are {value, label, disabled}; shared by this player and Listen's.
 */
export function timerDialog(choices, explanation) {
  const dialog = document.createElement("dialog");
  dialog.className = "dialog timer-sheet";
  dialog.setAttribute("aria-label", "Sleep timer");
  dialog.innerHTML = `
    <form method="dialog">
      <h2>Sleep timer</h2>
      <p>${escapeHTML(explanation)}</p>
      <div class="timer-options">
        ${choices.map((choice) => `<button class="button" value="${escapeHTML(String(choice.value))}"${choice.disabled ? " disabled" : ""}>${escapeHTML(choice.label)}</button>`).join("")}
      </div>
      <div class="dialog-actions"><button class="button" value="cancel">Cancel</button></div>
    </form>`;
  document.body.append(dialog);
  dialog.showModal();
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      const value = dialog.returnValue;
      dialog.remove();
      resolve(value && value !== "cancel" ? value : null);
    });
  });
}

/**
 * What the timer sheet adds offline: no rendition can be had, so the fade is laid out on this
 * device's audio clock (a Web Audio gain), which an iPhone does not play with the screen locked.
 * "" when the server can be reached or the device plays Web Audio fades locked.
 */
export function offlineFadeNote() {
  if (navigator.onLine) return "";
  return elementVolumeWorks()
    ? " Offline, the fade is made on this device."
    : " Offline, though, the fade would be made on this device, and an iPhone does not play that with the screen locked: the sound plays on, and stops when the screen wakes after the timer.";
}
