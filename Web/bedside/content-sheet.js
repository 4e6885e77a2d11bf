// Bedside's My Content sheet (the Quote button): meditations and poems, the person's own and the
// presets, to play now, edit (Web/bedside/piece-editor.js), duplicate, or delete with Undo.

import { api } from "../api.js";
import { announce, escapeHTML } from "../dom.js";
import { aboutLength } from "../player/time.js";
import { openPieceEditor } from "./piece-editor.js";
import { openSheet } from "./sheet.js";
import { poolDownload, poolKey } from "./piece-preparation.js";
import { downloadHTML, wireDownload } from "../player/download-button.js";

/** My Content; `bedside` is the screen, which plays a piece chosen here. One for the screen, opened as often as asked. */
export class ContentSheet {
  constructor(bedside) {
    this.bedside = bedside;
  }

  close() {
    clearTimeout(this.undoTimer);
  }

  async open(kind = "meditation") {
    const dialog = openSheet("bs-content", `
      <div class="bs-sheet-head"><h2 id="bs-content-title">My Content</h2>
        <button class="button small" type="button" data-close>Close</button></div>
      <div class="bs-tabs" role="tablist" aria-label="Content type">
        <button role="tab" type="button" id="bs-tab-meditation" data-kind="meditation" aria-controls="bs-panel">Meditations</button>
        <button role="tab" type="button" id="bs-tab-poem" data-kind="poem" aria-controls="bs-panel">Poems</button>
      </div>
      <div class="bs-panel" id="bs-panel" role="tabpanel"></div>
      <p class="bs-undo" role="status" hidden><span></span> <button class="button small" type="button" data-undo>Undo</button></p>`);
    dialog.querySelector("[data-close]").addEventListener("click", () => dialog.close());
    const tabs = dialog.querySelector(".bs-tabs");
    tabs.addEventListener("click", (event) => {
      const tab = event.target.closest("[role=tab]");
      if (tab) this.showContent(dialog, tab.dataset.kind);
    });
    tabs.addEventListener("keydown", (event) => {
      if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
      event.preventDefault();
      const next = dialog.dataset.kind === "meditation" ? "poem" : "meditation";
      this.showContent(dialog, next);
      dialog.querySelector(`[data-kind="${next}"]`).focus();
    });
    dialog.querySelector(".bs-panel").addEventListener("click", (event) => this.contentAction(dialog, event));
    dialog.querySelector("[data-undo]").addEventListener("click", () => this.undoDelete(dialog));
    await this.showContent(dialog, kind);
  }

  async showContent(dialog, kind) {
    dialog.dataset.kind = kind;
    for (const tab of dialog.querySelectorAll("[role=tab]")) {
      const selected = tab.dataset.kind === kind;
      tab.setAttribute("aria-selected", String(selected));
      tab.tabIndex = selected ? 0 : -1;
    }
    const panel = dialog.querySelector(".bs-panel");
    panel.setAttribute("aria-labelledby", `bs-tab-${kind}`);
    const noun = kind === "poem" ? "poem" : "meditation";
    try {
      const pieces = await api(`/api/bedside/pieces?kind=${kind}`);
      if (dialog.dataset.kind !== kind) return;
      this.pieces = [...pieces.mine, ...pieces.presets];
      const item = (piece) => {
        const name = escapeHTML(piece.title);
        const meta = [aboutLength(piece.estimatedSeconds), piece.author ? `by ${escapeHTML(piece.author)}` : ""].filter(Boolean).join(" · ");
        const own = !piece.isPreset;
        return `<li class="bs-item" data-id="${escapeHTML(piece.id)}">
          <div class="bs-item-text"><span class="bs-item-title">${name}</span><span class="bs-item-meta">${meta}</span></div>
          <div class="bs-item-actions">
            <button class="button small" type="button" data-do="play" aria-label="Play ${name} now">Play</button>
            ${own ? `<button class="button small" type="button" data-do="edit" aria-label="Edit ${name}">Edit</button>` : ""}
            <button class="button small" type="button" data-do="duplicate" aria-label="Duplicate ${name}">Duplicate</button>
            ${own ? `<button class="button small danger" type="button" data-do="delete" aria-label="Delete ${name}">Delete</button>` : ""}
          </div></li>`;
      };
      panel.innerHTML = `
        <p class="bs-panel-head"><button class="button primary small" type="button" data-do="new">New ${noun}</button></p>
        <h3>Yours</h3>
        <ul class="bs-list" aria-label="Your ${noun}s">${pieces.mine.map(item).join("")}</ul>
        <p class="hint">Leaf picks at random from these and the ${pieces.presets.length} presets below, with no repeat until all have played.</p>
        <div class="bs-download"><p class="hint">For a night with no network: yours and the presets, spoken in your voice, with the room sounds.</p>${downloadHTML({ small: true })}</div>
        <details class="bs-presets"><summary>Presets (${pieces.presets.length})</summary>
          <ul class="bs-list" aria-label="Preset ${noun}s">${pieces.presets.map(item).join("")}</ul></details>`;
      const settings = this.bedside.player.voiceSettings();
      wireDownload(panel, poolKey(kind, settings), (progress) => poolDownload(kind, settings, progress));
    } catch (problem) {
      panel.innerHTML = `<p class="form-error"></p>`;
      panel.firstChild.textContent = problem.message;
    }
  }

  async contentAction(dialog, event) {
    const button = event.target.closest("[data-do]");
    if (!button) return;
    const kind = dialog.dataset.kind;
    const itemID = button.closest("[data-id]") ? button.closest("[data-id]").dataset.id : null;
    const piece = this.pieces && this.pieces.find((p) => p.id === itemID);
    const action = button.dataset.do;
    if (action === "new") return openPieceEditor(this.bedside, { kind, title: "", script: "" }, () => this.showContent(dialog, kind));
    if (!piece) return;
    if (action === "play") {
      dialog.close();
      return this.bedside.player.playNow(piece);
    }
    if (action === "edit") return openPieceEditor(this.bedside, piece, () => this.showContent(dialog, piece.kind));
    button.disabled = true;
    try {
      if (action === "duplicate") {
        const copy = await api(`/api/bedside/pieces/${encodeURIComponent(piece.id)}/duplicate`, { method: "POST" });
        announce(`Made “${copy.title}”.`);
        await this.showContent(dialog, kind);
        const row = dialog.querySelector(`[data-id="${copy.id}"] .bs-item-title`);
        if (row) row.scrollIntoView({ block: "nearest" });
      } else if (action === "delete") {
        await api(`/api/bedside/pieces/${encodeURIComponent(piece.id)}`, { method: "DELETE" });
        this.deleted = piece;
        const undo = dialog.querySelector(".bs-undo");
        undo.querySelector("span").textContent = `Deleted “${piece.title}”.`;
        undo.hidden = false;
        clearTimeout(this.undoTimer);
        this.undoTimer = setTimeout(() => { undo.hidden = true; this.deleted = null; }, 10000);
        await this.showContent(dialog, kind);
        undo.querySelector("button").focus();
      }
    } catch (problem) {
      button.disabled = false;
      this.flash(dialog, problem.message);
    }
  }

  async undoDelete(dialog) {
    const piece = this.deleted;
    if (!piece) return;
    this.deleted = null;
    dialog.querySelector(".bs-undo").hidden = true;
    try {
      await api("/api/bedside/pieces", { method: "POST", body: { kind: piece.kind, title: piece.title, script: piece.script } });
      announce(`“${piece.title}” is back.`);
      await this.showContent(dialog, piece.kind);
    } catch (problem) {
      this.flash(dialog, problem.message);
    }
  }

  flash(dialog, message) {
    const undo = dialog.querySelector(".bs-undo");
    undo.querySelector("span").textContent = message;
    undo.querySelector("button").hidden = true;
    undo.hidden = false;
    setTimeout(() => { undo.hidden = true; undo.querySelector("button").hidden = false; }, 6000);
  }
}
