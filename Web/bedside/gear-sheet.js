// Bedside's gear sheet: voice, speed, captions, room volume and the 24-hour clock, each kept as it
// changes.

import { api } from "../api.js";
import { escapeHTML } from "../dom.js";
import { voiceOptionsHTML } from "../speech.js";
import { openSheet } from "./sheet.js";

/** Gear: the voice and speed of every piece, captions, the room's volume, the 24-hour clock. */
export async function openGearSheet(bedside) {
  const s = bedside.settings;
  // Where no script can change the room's level, the slider says so rather than moving and doing
  // nothing (issue 31). On an iPhone the level is in the room sound's bytes (issue 46), so it moves.
  const fixed = bedside.scene.roomLevel.fixed;
  const dialog = openSheet("bs-gear", `
    <form method="dialog" novalidate>
      <h2>Bedside settings</h2>
      <label for="bs-voice">Voice</label>
      <select id="bs-voice" name="voice"><option value="">The server's voice</option></select>
      <label for="bs-rate">Speed <output for="bs-rate" data-out="rate"></output></label>
      <input id="bs-rate" name="rate" type="range" min="0.8" max="1.2" step="0.05" value="${Number(s.rate) || 1}">
      <p class="hint">Voice and speed apply to meditations and poems alike.</p>
      <label class="bs-check"><input name="captions" type="checkbox"${s.captions !== false ? " checked" : ""}> Captions</label>
      <label for="bs-volume">Room volume <output for="bs-volume" data-out="volume"></output></label>
      <input id="bs-volume" name="volume" type="range" min="0" max="1" step="0.05" value="${bedside.scene.volume()}"${fixed ? ' disabled aria-describedby="bs-volume-fixed"' : ""}>
      ${fixed ? '<p class="hint" id="bs-volume-fixed">On this phone, use its volume buttons.</p>' : ""}
      <label class="bs-check"><input name="clock24" type="checkbox"${s.clock24 ? " checked" : ""}> 24-hour clock</label>
      <div class="dialog-actions"><button class="button primary" value="done">Done</button></div>
    </form>`);
  const form = dialog.querySelector("form");
  const outputs = () => {
    form.querySelector('[data-out="rate"]').textContent = `${Number(form.rate.value).toFixed(2)}×`;
    // A fixed level shows no percentage: the phone's buttons set what is heard.
    form.querySelector('[data-out="volume"]').textContent = fixed ? "" : `${Math.round(Number(form.volume.value) * 100)}%`;
  };
  outputs();
  form.addEventListener("input", (event) => {
    outputs();
    if (event.target.name === "volume") bedside.scene.setRoomVolume(Number(form.volume.value));
  });
  form.addEventListener("change", (event) => {
    const name = event.target.name;
    if (name === "voice") bedside.save({ voice: form.voice.value });
    if (name === "rate") bedside.save({ rate: Number(form.rate.value) });
    if (name === "captions") { bedside.save({ captions: form.captions.checked }); bedside.player.paintCaption(); }
    if (name === "volume") bedside.save({ roomVolume: Number(form.volume.value) });
    if (name === "clock24") { bedside.save({ clock24: form.clock24.checked }); bedside.redrawClock(); }
  });
  try {
    const voices = await api("/api/speech/voices");
    const select = form.voice;
    select.insertAdjacentHTML("beforeend", voiceOptionsHTML(voices));
    select.value = s.voice || "";
    if (select.value !== (s.voice || "")) select.value = "";
  } catch (problem) {
    form.voice.insertAdjacentHTML("afterend", `<p class="form-error">${escapeHTML(problem.message)}</p>`);
  }
}
