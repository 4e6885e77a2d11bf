// Bedside's piece editor, opened from My Content: a meditation's or poem's title and words, the
// script checked as one types (phrases, pauses, warnings, about how long), Listen to hear it, Save.

import { api } from "../api.js";
import { announce, escapeHTML, showError } from "../dom.js";
import { captionAt, captionHTML, follow, speak } from "../speech.js";
import { aboutLength } from "../player/time.js";
import { Transport } from "../player/transport.js";
import { openSheet } from "./sheet.js";

/**
 * The editor: the script read as one types (pauses, warnings at line:column, the length), and Listen.
 * `onSaved()` is called once the piece is saved (My Content shows it).
 */
export function openPieceEditor(bedside, piece, onSaved) {
  const isNew = !piece.id;
  const noun = piece.kind === "poem" ? "poem" : "meditation";
  const heading = isNew ? `New ${noun}` : `Edit ${noun}`;
  const dialog = openSheet(`bs-editor${piece.kind === "poem" ? " poem" : ""}`, `
    <form method="dialog" novalidate>
      <h2>${heading}</h2>
      <label for="bs-piece-title">Title</label>
      <input id="bs-piece-title" name="title" maxlength="200" autocomplete="off" value="${escapeHTML(piece.title)}">
      <label for="bs-piece-script">Words</label>
      <textarea id="bs-piece-script" name="script" rows="9" spellcheck="true" placeholder="${piece.kind === "poem" ? "Title (0.3s) by Author (2s)&#10;A first line (1s)&#10;A second line (2s)" : "Settle in. (3s)&#10;Breathe in slowly… (4s) and out. (6s)"}">${escapeHTML(piece.script)}</textarea>
      <p class="hint">Pauses: (0.3s), (2s), (1.5m). Without them Reverie pauses after each line and longer after each stanza.</p>
      <p class="bs-check" role="status" aria-live="polite"></p>
      <ul class="bs-warnings" hidden></ul>
      <div class="bs-preview" hidden><p class="bs-caption"></p><p class="bs-preview-status" role="status"></p></div>
      <p class="form-error" role="alert" hidden></p>
      <div class="dialog-actions">
        <button class="button" type="button" data-listen>Listen</button>
        <button class="button" value="cancel" formnovalidate>Cancel</button>
        <button class="button primary" value="save">Save</button>
      </div>
    </form>`);
  const form = dialog.querySelector("form");
  const error = form.querySelector(".form-error");
  const preview = new Transport({ name: "bedside-preview" });
  let timeline = null, listening = 0, checkTimer = null, checked = 0;

  const check = async () => {
    const asked = ++checked;
    const text = form.script.value;
    try {
      const result = await api("/api/speech/check", { method: "POST", body: { text, rate: bedside.player.voiceSettings().rate } });
      if (asked !== checked) return;
      const summary = result.phrases
        ? `${result.phrases} phrase${result.phrases === 1 ? "" : "s"} · ${result.pauses} pause${result.pauses === 1 ? "" : "s"} · ${aboutLength(result.estimatedSeconds)}`
        : "Nothing to say yet.";
      form.querySelector(".bs-check").textContent = result.phrases && !result.hasMarkers ? `${summary} · pauses added after each line` : summary;
      const list = form.querySelector(".bs-warnings");
      list.innerHTML = result.warnings.map((w) => `<li>Line ${w.line}:${w.column} — ${escapeHTML(w.message)}</li>`).join("");
      list.hidden = !result.warnings.length;
    } catch (problem) {
      if (asked === checked) form.querySelector(".bs-check").textContent = problem.message;
    }
  };
  check();
  form.script.addEventListener("input", () => {
    clearTimeout(checkTimer);
    checkTimer = setTimeout(check, 300);
  });

  const listen = form.querySelector("[data-listen]");
  const stopListening = () => {
    listening += 1;
    preview.unload();
    listen.textContent = "Listen";
    form.querySelector(".bs-preview").hidden = true;
  };
  const paintPreview = () => {
    const caption = timeline ? captionAt(timeline, preview.position) : null;
    const box = form.querySelector(".bs-preview .bs-caption");
    const html = captionHTML(caption);
    if (box.innerHTML !== html) box.innerHTML = html;
  };
  const unfollow = follow(preview, paintPreview);
  preview.on("ended", () => { stopListening(); });
  listen.addEventListener("click", async () => {
    if (listen.textContent === "Stop") return stopListening();
    const text = form.script.value.trim();
    if (!text) {
      showError(error, new Error("Write some words to listen to."));
      return;
    }
    showError(error, null);
    const asked = ++listening;
    listen.textContent = "Stop";
    const box = form.querySelector(".bs-preview");
    box.hidden = false;
    const state = box.querySelector(".bs-preview-status");
    state.textContent = "Preparing…";
    try {
      const spoken = await speak(text, bedside.player.voiceSettings(), {
        progress: (fraction) => { if (asked === listening) state.textContent = `Preparing… ${Math.round(fraction * 100)}%`; },
        cancelled: () => asked !== listening,
      });
      if (asked !== listening) return;
      timeline = spoken.timeline;
      preview.load(spoken.render.audioURL);
      const played = await preview.play();
      if (played === "aborted") return;  // stopped meanwhile
      if (played === "needs-touch") throw new Error("The browser wants a tap first: press Listen again.");
      if (played === "failed") throw new Error("The words could not play.");
      state.textContent = "";
    } catch (problem) {
      if (asked !== listening || problem.name === "AbortError") return;
      stopListening();
      showError(error, problem);
    }
  });
  dialog.addEventListener("close", () => { unfollow(); stopListening(); clearTimeout(checkTimer); });

  form.querySelector('[value="save"]').addEventListener("click", async (event) => {
    event.preventDefault();
    const title = form.title.value.trim(), script = form.script.value;
    if (!title) {
      showError(error, new Error(`Give the ${noun} a title.`));
      form.title.focus();
      return;
    }
    if (!script.trim()) {
      showError(error, new Error(`Write the ${noun}'s words.`));
      form.script.focus();
      return;
    }
    const button = event.currentTarget;
    button.disabled = true;
    try {
      const saved = isNew
        ? await api("/api/bedside/pieces", { method: "POST", body: { kind: piece.kind, title, script } })
        : await api(`/api/bedside/pieces/${encodeURIComponent(piece.id)}`, { method: "PUT", body: { title, script } });
      dialog.close();
      announce(`Saved “${saved.title}”.`);
      await onSaved();
    } catch (problem) {
      button.disabled = false;
      showError(error, problem);
    }
  });
  (isNew ? form.title : form.script).focus();
}
