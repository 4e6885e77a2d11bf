// Write's lyrics editor: rhyming words light up under a transparent textarea, scheme letters and
// syllables sit beside each line, rhymes wait above the keyboard; saving with the version the
// text came from (a conflict kept as a copy), offline drafts, export, and the song's player.

import { api } from "../api.js";
import { announce, debounce, escapeHTML } from "../dom.js";
import { uuid } from "../ids.js";
import * as drafts from "./drafts.js";
import * as offlineRhymes from "./offline-rhymes.js";
import { SongPlayer } from "./player.js";
import { loadPlan, showPaywall } from "../plan.js";

/** What the editor says of words kept in this browser's storage that the server has not had yet. */
export const KEPT_HERE = "Kept on this device; it goes to the server when it is back";

export class Editor {
  constructor(container, session, songID) {
    this.container = container;
    this.session = session;
    this.id = songID;
    this.analysis = null;
    this.analyze = debounce(() => this.runAnalysis(), 250);
    this.suggest = debounce(() => this.runSuggestions(), 250);
    this.autosave = debounce(() => this.save(), 800);
    this.onViewport = () => this.placeBar();
    this.onSelection = () => { if (document.activeElement === this.textarea) this.suggest(); };
    this.local = !drafts.syncEnabled();  // sync off: the song lives on this device only
  }

  async open() {
    let song;
    try {
      // A new song exists only in this page until something is typed (see saveNow), so backing
      // out leaves no empty "Untitled" behind.
      if (this.id === "new") song = { title: "", lyrics: "", version: null };
      else if (this.local) {
        song = await drafts.localSong(this.id);
        if (!song || song.deleted) throw Object.assign(new Error("This device has no such song. With sync off, only the songs kept here open."), { status: 404 });
      } else song = await api(`/api/compositions/${this.id}`);
    } catch (problem) {
      // Not reachable, or not made there yet: this device's draft of it, when it has one.
      const kept = !this.local && (problem.status === 0 || problem.status === 404);
      const draft = kept ? await drafts.find(this.id).catch(() => null) : null;
      if (draft) return this.show({ title: draft.title, lyrics: draft.lyrics, version: draft.baseVersion }, draft);
      const offline = problem.status === 0;
      this.container.innerHTML = `<section class="empty-state"><h1>${offline ? "Not on this device yet" : "Song not found"}</h1><p></p>
        <a class="button primary" href="/write" data-link>Back to your songs</a></section>`;
      this.container.querySelector("p").textContent = offline
        ? "This song has not been opened on this device, so there is no copy of it here. It opens when Reverie's server can be reached."
        : problem.message;
      return;
    }
    return this.show(song);
  }

  /** Shows `song`: the server's, or with `draft` this device's copy (the server cannot be reached, or has not made it yet). */
  async show(song, draft = null) {
    if (this.id === "new") this.id = null;
    this.version = song.version;
    drafts.setEditing(this.id);
    this.container.innerHTML = `
      <section class="editor" aria-labelledby="editor-heading">
        <h1 id="editor-heading" class="visually-hidden">Lyrics editor</h1>
        <div class="editor-top">
          <a href="/write" data-link class="back" aria-label="Back to your songs">‹ Songs</a>
          <span class="editor-top-end">
            <span class="save-state" role="status" data-save>${this.id ? (this.local ? "Saved on this device" : draft ? KEPT_HERE : "Saved") : "New song"}</span>
            <details class="export-menu" data-export ${this.id && !this.local ? "" : "hidden"}>
              <summary class="button small">Export</summary>
              <div class="export-choices">
                <a class="button small" data-export-format="txt" download>Text (.txt)</a>
                <a class="button small" data-export-format="pdf" download>Lyric sheet (PDF)</a>
              </div>
            </details>
            <button class="button small player-button" type="button" data-player aria-label="Player: the song's tracks and loop" ${this.local ? "hidden" : ""}>♪ Player</button>
          </span>
        </div>
        ${(this.player = new SongPlayer(null, this.id, (reason) => this.showPlus(reason))).html()}
        <p class="conflict-note" role="status" data-conflict hidden><span></span> <a data-link>Open your copy</a></p>
        <input class="title-input" name="title" aria-label="Title" maxlength="200" placeholder="Untitled" ${this.id ? "" : "data-autofocus"}>
        <div class="lyrics">
          <div class="lyrics-backdrop" aria-hidden="true" data-backdrop></div>
          <textarea name="lyrics" aria-label="Lyrics" spellcheck="true" autocapitalize="sentences" placeholder="Start writing…"></textarea>
        </div>
        <p class="rhymes-offline" role="status" data-rhymes-offline hidden>Offline: perfect and near rhymes only. Scheme letters come back with the connection.</p>
        <p class="hint legend"><span class="legend-end">Rhyme</span> <span class="legend-identical">Same word</span> <span class="legend-near">Near rhyme</span> <span class="legend-unstressed" title="The last syllables rhyme, one of them unstressed (be / poetry)">Unstressed end</span> <span class="legend-eye" title="Spelled alike, said differently (love / move)">Eye rhyme</span> · letters show each stanza's rhyme scheme, numbers count syllables.</p>
        <p class="plus-row"><button class="plus-link" type="button" data-plus="Online rhymes and the AI co-writer are coming to Plus; neither is built yet, so no plan has them.">Online rhymes and AI ideas <span class="plus-badge">Plus · coming</span></button></p>
        <div class="suggestions" role="toolbar" aria-label="Rhyme suggestions" data-bar hidden></div>
      </section>`;
    this.paintExport();
    this.player.host = this.container.querySelector(".editor");
    this.player.wire(this.container.querySelector("[data-player]"));
    this.title = this.container.querySelector(".title-input");
    this.textarea = this.container.querySelector("textarea");
    this.backdrop = this.container.querySelector("[data-backdrop]");
    this.bar = this.container.querySelector("[data-bar]");
    this.title.value = song.title === "Untitled" && !song.lyrics ? "" : song.title;
    this.textarea.value = song.lyrics;
    this.title.addEventListener("input", () => { this.dirty = true; this.setState("Editing…"); this.keepDraft(); this.autosave(); });
    this.title.addEventListener("keydown", (event) => { if (event.key === "Enter") { event.preventDefault(); this.textarea.focus(); } });
    this.textarea.addEventListener("input", () => this.changed());
    this.container.querySelector("[data-plus]").addEventListener("click", (event) => this.showPlus(event.currentTarget.dataset.plus));
    this.bar.addEventListener("pointerdown", (event) => event.preventDefault());  // keep the keyboard up
    this.bar.addEventListener("click", (event) => {
      const chip = event.target.closest("[data-word]");
      if (chip) this.insert(chip.dataset.word);
    });
    document.addEventListener("selectionchange", this.onSelection);
    if (window.visualViewport) {
      visualViewport.addEventListener("resize", this.onViewport);
      visualViewport.addEventListener("scroll", this.onViewport);
    }
    // The analysis saved with these lyrics lights the rhymes at once; otherwise ask for one.
    try {
      this.analysis = song.rhymeAnalysisCache ? JSON.parse(song.rhymeAnalysisCache) : null;
    } catch {
      this.analysis = null;
    }
    this.draw();
    if (!this.analysis && this.textarea.value) this.runAnalysis();
    // The rhyme pack this device keeps for writing away from the server (fetched once, then checked).
    offlineRhymes.keep();
    if (draft) {
      // Sent when the server can be reached (now, if it can).
      if (!this.left) window.addEventListener("online", () => this.save(), { once: true });
      this.save();
    } else if (this.id && !this.local) await this.applyDraft(song);
  }

  /** A Plus feature was tapped: the paywall card, with the reason. */
  async showPlus(reason) {
    try {
      await showPaywall(this.session, await loadPlan(), { reason });
    } catch (problem) {
      announce(`The plan cannot be loaded: ${problem.message}`);
    }
  }

  /** An edit this device kept but the server does not have yet (made offline, or the tab closed). */
  async applyDraft(song) {
    let draft;
    try {
      draft = await drafts.find(this.id);
    } catch {
      return;  // no IndexedDB (private mode): saving still works online
    }
    if (!draft || (draft.title === song.title && draft.lyrics === song.lyrics)) return;
    if (draft.baseVersion === song.version) {
      this.title.value = draft.title;
      this.textarea.value = draft.lyrics;
      this.changed();
      announce("Your unsaved edit from this device is back.");
      return;
    }
    // The song changed elsewhere since: the server keeps the draft as a conflict copy.
    try {
      const result = await drafts.send(draft);
      if (result.conflict) {
        this.setState(`Changed elsewhere — your offline edit is kept as “${result.conflict.conflictCopy.title}”`);
        announce(`Your offline edit is kept as ${result.conflict.conflictCopy.title}.`);
      }
    } catch {
      // Offline again: it stays for next time.
    }
  }

  leave() {
    this.left = true;
    if (this.player) this.player.close();
    drafts.setEditing(null);
    this.analyze.cancel();
    this.suggest.cancel();
    document.removeEventListener("selectionchange", this.onSelection);
    if (window.visualViewport) {
      visualViewport.removeEventListener("resize", this.onViewport);
      visualViewport.removeEventListener("scroll", this.onViewport);
    }
    if (this.dirty) { this.autosave.cancel(); this.save(); }
  }

  changed() {
    this.dirty = true;
    this.setState("Editing…");
    this.keepDraft();
    this.draw();        // the text at once, with the last highlights where lines are unchanged
    this.analyze();
    this.suggest();
    this.autosave();
  }

  setState(text) {
    const state = this.container.querySelector("[data-save]");
    if (state) state.textContent = text;
  }

  keepDraft() {
    if (!this.local && !this.id && (this.title.value || this.textarea.value)) this.adopt(uuid());  // kept from its first keystroke
    if (!this.id || this.local) return Promise.resolve(null);
    this.draftWrite = drafts.keep({ id: this.id, title: this.title.value, lyrics: this.textarea.value, baseVersion: this.version })
      .catch(() => null);  // no IndexedDB: the server copy is all there is
    return this.draftWrite;
  }

  /** Saves the draft; one save at a time, so each goes out with the version the last one got. */
  save() {
    if (this.saving) {
      this.saveAgain = true;
      return this.saving;
    }
    this.saving = this.saveNow().finally(() => {
      this.saving = null;
      if (this.saveAgain) {
        this.saveAgain = false;
        this.save();
      }
    });
    return this.saving;
  }

  async saveNow() {
    if (!this.textarea) return;
    if (this.local) return this.saveOnDevice();
    if (!this.id) this.adopt(uuid());
    this.dirty = false;
    const fresh = this.version == null;
    this.setState(fresh ? "Sending…" : "Saving…");
    const kept = await this.keepDraft();
    const draft = kept
      || { id: this.id, title: this.title.value, lyrics: this.textarea.value, baseVersion: this.version, changedAt: Date.now() };
    try {
      const result = await drafts.send(draft);
      if (fresh && result.saved && !this.left) this.player.setSong(this.id);  // made on the server: its tracks can be attached
      if (result.conflict) {
        await this.showNewer(result.conflict, draft);
        return;
      }
      if (result.gone) {
        this.setState("This song was deleted elsewhere");
        return;
      }
      this.version = result.saved.version;
      this.setState(this.dirty ? "Editing…" : "Saved");
    } catch (problem) {
      this.notSaved(problem, Boolean(kept));
    }
  }

  /**
   * A new song's first keystroke: it takes an id made here, and the address becomes the song's.
   * Its text is kept in IndexedDB from then on (a closed tab or a restarted phone loses nothing)
   * and created on the server with that id, once, when it can be reached.
   */
  adopt(id) {
    this.id = id;
    this.version = null;
    if (this.left) return;
    drafts.setEditing(id);
    history.replaceState({}, "", `/write/${id}`);
    this.paintExport();
  }

  /** Sync off: the song is saved in this browser only (a new one gets its id here). */
  async saveOnDevice() {
    this.dirty = false;
    const fresh = !this.id;
    if (fresh) this.id = uuid();
    try {
      await drafts.saveLocal({ id: this.id, title: this.title.value, lyrics: this.textarea.value });
      if (fresh && !this.left) history.replaceState({}, "", `/write/${this.id}`);
      this.setState(this.dirty ? "Editing…" : "Saved on this device");
    } catch (problem) {
      this.dirty = true;
      this.setState(`Not saved on this device: ${problem.message}`);
    }
  }

  /** Export links for a song the server has: the saved version as text, or as a lyric sheet. */
  paintExport() {
    const menu = this.container.querySelector("[data-export]");
    if (!menu) return;
    menu.hidden = !this.id || this.local;
    for (const link of menu.querySelectorAll("[data-export-format]")) {
      if (this.id) link.href = `/api/compositions/${this.id}/export?format=${link.dataset.exportFormat}`;
    }
  }

  /**
   * A save that did not reach the server: say where the words are (kept in this browser's
   * storage, or only on this page), and try again when the connection returns. A fetch that
   * could not reach the server rejects with a TypeError ("Failed to fetch"): that is the server
   * being away, not a reason to show.
   */
  notSaved(problem, kept) {
    this.dirty = true;
    const unreachable = problem instanceof TypeError || problem.status === 0 || !navigator.onLine;
    if (kept) {
      this.setState(unreachable ? KEPT_HERE : `Kept on this device; the server said: ${problem.message}`);
    } else {
      this.setState(unreachable ? "Not saved: Reverie's server cannot be reached. Keep this page open; it is sent when the server is back."
        : `Not saved: ${problem.message}`);
    }
    if (this.left) return;
    window.addEventListener("online", () => this.autosave(), { once: true });
    // The server back with the network up all along: the app's probe says so.
    const back = (event) => {
      if (!event.detail?.online) return;
      window.removeEventListener("reverie:connection", back);
      if (this.dirty && !this.left) this.autosave();
    };
    window.addEventListener("reverie:connection", back);
  }

  /**
   * Another device saved first: show what is saved now, and keep this page's text as the
   * conflict copy (one tap away). Words typed while the save was on its way go into the copy too,
   * so no edit is ever saved over the newer version or lost.
   */
  async showNewer({ current, conflictCopy }, sent) {
    this.autosave.cancel();
    this.saveAgain = false;
    const title = this.title.value, lyrics = this.textarea.value;
    if (title !== sent.title || lyrics !== sent.lyrics) {
      const late = { id: conflictCopy.id, title: conflictCopy.title, lyrics, baseVersion: conflictCopy.version };
      try {
        await drafts.keep(late);
      } catch { /* no IndexedDB: sent below all the same */ }
      drafts.send(late).catch(() => { /* offline: the draft goes up when the connection returns */ });
    }
    drafts.forget(this.id).catch(() => null);
    if (this.left) return;  // saved on the way out: the copy is kept, there is no editor to update
    this.version = current.version;
    this.title.value = current.title === "Untitled" && !current.lyrics ? "" : current.title;
    this.textarea.value = current.lyrics;
    this.analysis = null;
    this.dirty = false;
    this.draw();
    this.runAnalysis();
    const note = this.container.querySelector("[data-conflict]");
    note.querySelector("span").textContent = `This song was saved on another device. You are seeing that version; yours is kept as “${conflictCopy.title}”.`;
    note.querySelector("a").href = `/write/${conflictCopy.id}`;
    note.hidden = false;
    this.setState("Saved elsewhere too");
    announce(`This song changed on another device. Showing that version; yours is kept as ${conflictCopy.title}.`);
  }

  async runAnalysis() {
    const text = this.textarea.value;
    let analysis = null;
    try {
      analysis = await api("/api/rhymes/analyze", { method: "POST", body: { text } });
    } catch (problem) {
      // Away from the server, the pack this device keeps lights perfect and near rhymes.
      // Highlights are a help: without either, writing goes on without them.
      if (problem.status === 0) analysis = await this.offlineRhymes((pack) => offlineRhymes.analyze(pack, text));
    }
    if (analysis && this.textarea && this.textarea.value === text) {
      this.analysis = analysis;
      this.showOffline(Boolean(analysis.offline));
      this.draw();
    }
  }

  /** `work` on the device's rhyme pack; null when the device has none. */
  async offlineRhymes(work) {
    const pack = await offlineRhymes.pack();
    return pack ? work(pack) : null;
  }

  /** Says when the rhymes shown are the device's own. */
  showOffline(offline) {
    const note = this.container.querySelector("[data-rhymes-offline]");
    if (note) note.hidden = !offline;
  }

  /** The backdrop: the same text as the textarea, with rhyme words marked, and each line's
   *  scheme letter and syllables in the margins. */
  draw() {
    const lines = this.textarea.value.split("\n");
    const byLine = new Map();
    const info = new Map();
    if (this.analysis) {
      this.analysis.lines.forEach((line, index) => { if (line.text === lines[index]) info.set(index, line); });
      for (const group of this.analysis.groups) {
        for (const occurrence of group.occurrences) {
          if (!info.has(occurrence.line)) continue;  // changed since: wait for the next analysis
          if (!byLine.has(occurrence.line)) byLine.set(occurrence.line, []);
          // Perfect and same-word rhymes are filled; near ones dashed; unstressed and eye rhymes dotted.
          const style = occurrence.type === "near" ? (occurrence.rhyme === "eye" || occurrence.rhyme === "unstressed" ? occurrence.rhyme : "near")
            : occurrence.rhyme === "identical" ? "identical" : "";
          byLine.get(occurrence.line).push({ ...occurrence, color: group.colorIndex, style });
        }
      }
    }
    this.backdrop.innerHTML = lines.map((line, index) => {
      const marks = (byLine.get(index) || []).sort((a, b) => a.start - b.start);
      let html = "";
      let at = 0;
      for (const mark of marks) {
        html += escapeHTML(line.slice(at, mark.start));
        html += `<mark class="rhyme hl-${mark.color}${mark.style ? ` ${mark.style}` : ""}${mark.guessed ? " guessed" : ""}">${escapeHTML(line.slice(mark.start, mark.end))}</mark>`;
        at = mark.end;
      }
      html += escapeHTML(line.slice(at)) || "&#8203;";
      const details = info.get(index);
      const scheme = details && details.scheme ? `<span class="scheme">${details.scheme}</span>` : "";
      const syllables = details && details.syllables ? `<span class="syllables">${details.syllables}</span>` : "";
      return `<div class="lyric-line">${scheme}${html}${syllables}</div>`;
    }).join("");
    // Grow with the text, so the page scrolls and the two layers stay aligned.
    this.textarea.style.height = "auto";
    this.textarea.style.height = `${Math.max(this.textarea.scrollHeight, this.backdrop.scrollHeight)}px`;
  }

  async runSuggestions() {
    const text = this.textarea.value;
    const caret = this.textarea.selectionStart;
    try {
      let result;
      try {
        result = await api("/api/rhymes/suggestions", { method: "POST", body: { text, caret } });
      } catch (problem) {
        result = problem.status === 0 ? await this.offlineRhymes((pack) => offlineRhymes.suggest(pack, text, caret)) : null;
        if (!result) throw problem;
      }
      if (this.textarea.value !== text) return;
      this.suggestion = result;
      if (!result.suggestions.length) {
        this.bar.hidden = true;
        return;
      }
      const label = result.target ? `${result.nextLine ? "Next line: rhymes" : "Rhymes"} for “${escapeHTML(result.target.word)}”` : "";
      this.bar.innerHTML = `<span class="bar-label">${label}</span>`
        + result.suggestions.map((s) => `<button type="button" class="chip ${s.type}" data-word="${escapeHTML(s.word)}">${escapeHTML(s.word)}</button>`).join("");
      this.bar.hidden = false;
      this.placeBar();
    } catch {
      this.bar.hidden = true;
    }
  }

  /** Keeps the bar just above the on-screen keyboard, or above the tab bar when no keyboard is up. */
  placeBar() {
    if (this.bar.hidden) return;
    const keyboard = window.visualViewport ? window.innerHeight - (visualViewport.height + visualViewport.offsetTop) : 0;
    const tabs = document.querySelector(".tabs");
    const edge = tabs && !tabs.hidden ? tabs.getBoundingClientRect() : null;
    // The tab bar runs along the bottom on phones (on wide screens it stands at the left).
    const tabBar = edge && edge.width > edge.height ? Math.max(0, window.innerHeight - edge.top) : 0;
    this.bar.style.bottom = `${Math.max(keyboard, tabBar, 0)}px`;
  }

  /** Puts a word at the caret, replacing the word being typed; for a finished line, the word
   *  ends a new line below it, with the caret before the word to write the line. */
  insert(word) {
    const s = this.suggestion;
    const caret = this.textarea.selectionStart;
    const fresh = s && s.replaceEnd === caret;
    // A bar made before the last keys (a quick typist, a slow phone) still replaces the word being
    // typed at the caret, never leaving its start in front ("fli" + "flight").
    const typed = this.textarea.value.slice(0, caret).match(/[\p{L}\p{M}'’]*$/u)[0].length;
    const start = fresh ? s.replaceStart : caret - typed;
    this.textarea.focus();
    if (fresh && s.nextLine) {
      this.textarea.setRangeText(`\n ${word}`, start, this.textarea.selectionEnd, "start");
      this.textarea.setSelectionRange(start + 1, start + 1);
    } else {
      this.textarea.setRangeText(word, start, this.textarea.selectionEnd, "end");
    }
    announce(`Inserted ${word}`);
    this.changed();
  }
}
