// Write's song list: search titles and lyrics, a new song, importing .txt files, delete with Undo;
// with sync off, the songs this device keeps.

import { api } from "../api.js";
import { announce, debounce, escapeHTML, friendlyDate, showError } from "../dom.js";
import { uuid } from "../ids.js";
import * as drafts from "./drafts.js";

export class SongList {
  constructor(container, session) {
    this.container = container;
    this.session = session;
    this.search = debounce(() => this.load(), 200);
  }

  async open() {
    this.container.innerHTML = `
      <section class="write-home" aria-labelledby="write-heading">
        <h1 id="write-heading" class="page-title">Write</h1>
        <div class="row search-row">
          <input type="search" name="q" aria-label="Search titles and lyrics" placeholder="Search titles and lyrics" autocomplete="off">
          <button class="button primary" type="button" data-action="new">New song</button>
          <label class="button file-button">Import .txt<input type="file" accept=".txt,text/plain" multiple data-import></label>
        </div>
        ${drafts.syncEnabled() ? "" : `<p class="notice sync-off-note">Sync is off on this device: these songs are kept in this browser only. <a href="/settings" data-link>Sync settings</a></p>`}
        <p class="form-error" role="alert" hidden></p>
        <ul class="list song-list" data-list aria-live="polite"><li class="list-empty">Loading…</li></ul>
        <div class="toast" role="status" hidden></div>
      </section>`;
    this.container.querySelector('input[name="q"]').addEventListener("input", () => this.search());
    if (drafts.syncEnabled()) drafts.syncAll().then(() => this.load()).catch(() => {});
    this.container.querySelector('[data-action="new"]').addEventListener("click", () => this.session.navigate("/write/new"));
    this.container.querySelector("[data-import]").addEventListener("change", (event) => this.importFiles([...event.target.files]));
    this.container.querySelector("[data-list]").addEventListener("click", (event) => {
      const button = event.target.closest("[data-delete]");
      if (button) this.remove(button.dataset.delete, button.dataset.title);
    });
    await this.load();
  }

  leave() {
    this.search.cancel();
  }

  /** Each .txt file becomes a song named after it. */
  async importFiles(files) {
    const error = this.container.querySelector(".form-error");
    showError(error, null);
    let added = 0;
    for (const file of files) {
      try {
        if (!drafts.syncEnabled()) {
          await drafts.saveLocal({ id: uuid(), title: file.name.replace(/\.txt$/i, "").slice(0, 200) || "Untitled", lyrics: await file.text() });
          added += 1;
          continue;
        }
        const response = await fetch("/api/compositions/import", {
          method: "POST", credentials: "same-origin", body: file,
          headers: { Accept: "application/json", "Content-Type": "text/plain", "X-File-Name": encodeURIComponent(file.name) },
        });
        const answer = await response.json().catch(() => null);
        if (!response.ok) throw new Error(`${file.name}: ${answer?.error?.message || `the server answered ${response.status}`}`);
        added += 1;
      } catch (problem) {
        showError(error, problem);
      }
    }
    this.container.querySelector("[data-import]").value = "";
    if (added) announce(`Imported ${added} song${added === 1 ? "" : "s"}.`);
    await this.load();
  }

  async load() {
    const list = this.container.querySelector("[data-list]");
    const query = this.container.querySelector('input[name="q"]').value.trim();
    let waiting = new Set();
    try {
      waiting = await drafts.pendingIDs();
    } catch {
      // no IndexedDB: nothing waits on this device
    }
    // Songs made on this device that the server has not made yet: shown first, whatever it answers.
    let fresh = [];
    if (drafts.syncEnabled() && !query) {
      try {
        fresh = (await drafts.newSongs()).map((draft) => ({ id: draft.id, title: draft.title.trim() || "Untitled", updatedAt: new Date(draft.changedAt).toISOString(),
          snippet: draft.lyrics.split("\n").map((line) => line.trim()).find(Boolean) || "", onDevice: true }));
      } catch {
        // no IndexedDB: nothing waits on this device
      }
    }
    try {
      let songs;
      try {
        songs = drafts.syncEnabled() ? await api(`/api/compositions${query ? `?q=${encodeURIComponent(query)}` : ""}`) : await localList(query);
      } catch (problem) {
        if (!fresh.length) throw problem;
        songs = [];
      }
      songs = [...fresh, ...songs.filter((song) => !fresh.some((mine) => mine.id === song.id))];
      if (!songs.length) {
        list.innerHTML = `<li class="list-empty">${query ? `No song has “${escapeHTML(query)}” in its title or lyrics.` : "No songs yet. Tap New song to start one."}</li>`;
        return;
      }
      list.innerHTML = songs.map((song) => `
        <li class="list-item song">
          <a href="/write/${song.id}" data-link class="song-link">
            <strong>${escapeHTML(song.title)}</strong>
            <span class="meta">${song.onDevice ? "<em>On this device only: sent when Reverie's server can be reached</em>"
              : `Updated ${friendlyDate(song.updatedAt)}${waiting.has(song.id.toLowerCase()) ? " · <em>edited on this device, waiting to be saved</em>" : ""}`}</span>
            ${song.snippet ? `<span class="snippet">${escapeHTML(song.snippet)}</span>` : ""}
          </a>
          <button class="button danger small" type="button" data-delete="${song.id}" data-title="${escapeHTML(song.title)}" aria-label="Delete ${escapeHTML(song.title)}">Delete</button>
        </li>`).join("");
    } catch (problem) {
      const message = problem.status === 0
        ? (query ? "Searching needs Reverie's server, which cannot be reached. Clear the search to see the songs this device saved."
          : "Your songs cannot be loaded: Reverie's server cannot be reached and this device has no saved list yet.")
        : `Your songs cannot be loaded: ${problem.message}`;
      list.innerHTML = `<li class="list-empty"></li>`;
      list.firstChild.textContent = message;
    }
  }

  async remove(id, title) {
    const local = !drafts.syncEnabled();
    // A song made here that the server has not made yet goes from this device (Undo keeps it again).
    const mine = local ? null : await drafts.find(id).catch(() => null);
    const onDevice = mine && mine.baseVersion == null;
    try {
      if (local) await drafts.markLocalDeleted(id);
      else if (onDevice) await drafts.forget(id);
      else await api(`/api/compositions/${id}`, { method: "DELETE" });
    } catch (problem) {
      showError(this.container.querySelector(".form-error"), problem);
      return;
    }
    const toast = this.container.querySelector(".toast");
    toast.innerHTML = `<span>Deleted “${escapeHTML(title)}”.</span> <button class="button small" type="button">Undo</button>`;
    toast.hidden = false;
    clearTimeout(this.toastTimer);
    this.toastTimer = setTimeout(() => { toast.hidden = true; }, 8000);
    toast.querySelector("button").addEventListener("click", async () => {
      toast.hidden = true;
      if (local) await drafts.markLocalDeleted(id, false);
      else if (onDevice) await drafts.keep(mine);
      else await api(`/api/compositions/${id}/restore`, { method: "POST" });
      announce(`${title} is back.`);
      this.load();
    });
    announce(`Deleted ${title}. Undo is available for a few seconds.`);
    this.load();
  }
}

/** Sync off: this device's songs as the list shows them, those with every word of `query`. */
async function localList(query) {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return (await drafts.localSongs())
    .filter((song) => words.every((word) => `${song.title}\n${song.lyrics}`.toLowerCase().includes(word)))
    .map((song) => {
      const lines = song.lyrics.split("\n").map((line) => line.trim()).filter(Boolean);
      const hit = words.length ? lines.find((line) => words.some((word) => line.toLowerCase().includes(word))) : lines[0];
      return { id: song.id, title: song.title || "Untitled", updatedAt: new Date(song.updatedAt).toISOString(), snippet: hit || "" };
    });
}
