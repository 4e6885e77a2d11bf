// Bedside's alarm sheet (the Clock button): the time, the days, on or off, and when it rings next.

import { secureContextNotice, showError } from "../dom.js";
import * as alarms from "./alarm.js";
import { NO_WAKE_LOCK } from "./ringing.js";
import { openSheet } from "./sheet.js";

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

/** The alarm: on or off, the time, the days it repeats, and when it rings next. */
export function openAlarmSheet(bedside) {
  const rule = alarms.rule(bedside.settings.alarm) || { hour: 7, minute: 0, enabled: false, days: [] };
  const time = `${String(rule.hour).padStart(2, "0")}:${String(rule.minute).padStart(2, "0")}`;
  const dialog = openSheet("bs-alarm", `
    <form method="dialog" novalidate>
      <h2>Alarm</h2>
      <label class="bs-check"><input name="enabled" type="checkbox"${rule.enabled ? " checked" : ""}> Alarm on</label>
      <label for="bs-alarm-time">Time</label>
      <input id="bs-alarm-time" name="time" type="time" required value="${time}">
      <fieldset class="bs-days"><legend>Repeat</legend>
        ${DAYS.map((day, index) => `<label class="bs-day"><input type="checkbox" name="day" value="${index}"${rule.days.includes(index) ? " checked" : ""}><span>${day}</span></label>`).join("")}
      </fieldset>
      <p class="hint bs-alarm-next" aria-live="polite"></p>
      <p class="hint">A web page cannot ring while it is closed: leave Reverie open on this screen, plugged in. The chime rises gently over a minute; after a meditation or poem that played to its end, a spoken good morning follows.</p>
      ${navigator.wakeLock ? "" : secureContextNotice(NO_WAKE_LOCK)}
      <p class="form-error" role="alert" hidden></p>
      <div class="dialog-actions">
        <button class="button" value="cancel" formnovalidate>Cancel</button>
        <button class="button primary" value="save">Save</button>
      </div>
    </form>`);
  const form = dialog.querySelector("form");
  const read = () => ({
    time: form.time.value,
    enabled: form.enabled.checked,
    days: [...form.querySelectorAll('[name="day"]:checked')].map((box) => Number(box.value)),
  });
  const preview = () => {
    const chosen = alarms.rule(read());
    const next = document.querySelector(".bs-alarm-next");
    if (!chosen) next.textContent = "Choose a time.";
    else if (!chosen.enabled) next.textContent = "The alarm is off.";
    else {
      const at = alarms.nextRing(chosen, Date.now());
      next.textContent = `Rings ${bedside.ringing.describeRing(at)}, ${alarms.fromNow(at, Date.now())}.${chosen.days.length ? "" : " No days chosen: it rings once."}`;
    }
  };
  preview();
  form.addEventListener("input", (event) => {
    // Choosing a time or a day means the alarm is wanted.
    if (event.target.name === "time" || event.target.name === "day") form.enabled.checked = true;
    preview();
  });
  form.querySelector('[value="save"]').addEventListener("click", (event) => {
    event.preventDefault();
    const chosen = read();
    if (!alarms.rule(chosen)) {
      showError(form.querySelector(".form-error"), new Error("Choose the time the alarm rings."));
      form.time.focus();
      return;
    }
    dialog.close();
    bedside.ringing.setAlarm(chosen);
  });
}
