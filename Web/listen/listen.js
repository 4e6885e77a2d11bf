// Listen: the person's library. Books | Music, uploads with a progress bar (a zip of MP3 parts
// becomes one book), delete with Undo, a book's page with its chapters, played marks and Resume,
// and the now-playing view. Books play in the deck's speech player and music in its music player
// (Web/listen/deck.js), both at once; picking a chapter starts there, never at a saved place.

import { api, ApiError } from "../api.js";
import { icon } from "../areas.js";
import { drawnCover } from "../cover.js";
import { UndoableDelete, announce, escapeHTML } from "../dom.js";
import { BOOK_ICON, NOTE_ICON, chapterItem, deck } from "./deck.js";
import { renderNowPlaying } from "./now-playing.js";
import { renderLibriVox } from "./librivox.js";
import { renderPodcasts } from "./podcasts.js";
import { renderRadio } from "./radio.js";
import { renderArticles } from "../articles/articles.js";
import { renderUpNext } from "./up-next.js";
import { queueButtonsHTML, wireQueueButtons } from "./queues.js";
import { downloadHTML, mimeOf, wireDownload } from "../player/download-button.js";
import { heardThrough, localPosition, record } from "../player/progress.js";
import { clock, length } from "../player/time.js";
import { followJob } from "../jobs.js";
import { sendFile } from "../upload.js";
import { itemKey } from "../item-key.js";

export const id = "listen";

const UPLOAD_ICON = "M12 16V4m0 0-4.5 4.5M12 4l4.5 4.5M4 15v3a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-3";
const TRASH_ICON = "M4 7h16M10 11v6m4-6v6M6 7l1 13h10l1-13M9 7V4h6v3";
const UNDO_SECONDS = 10;

let current = null;

export async function render(container, session) {
  leave();
  current = new ListenScreen(container);
  await current.show(location.pathname);
}

export function leave() {
  if (current) current.close();
  current = null;
}

class ListenScreen {
  constructor(container) {
    this.container = container;
    this.closed = false;
    this.kind = sessionStorage.getItem("listenKind") === "music" ? "music" : "book";
    this.deletes = null;   // an UndoableDelete for the library's list
  }

  close() {
    this.closed = true;
    this.deletes?.commit();
    this.cleanup?.();
  }

  async show(path) {
    if (/^\/listen\/playing\/?$/.test(path)) { this.cleanup = renderNowPlaying(this.container); return; }
    if (/^\/listen\/librivox\/?$/.test(path)) { this.cleanup = renderLibriVox(this.container); return; }
    if (/^\/listen\/(podcasts(\/[0-9a-f-]{36})?|episode\/[0-9a-f-]{36})\/?$/i.test(path)) { this.cleanup = renderPodcasts(this.container, path.replace(/\/$/, "")); return; }
    if (/^\/listen\/radio\/?$/.test(path)) { this.cleanup = renderRadio(this.container); return; }
    if (/^\/listen\/up-next\/?$/.test(path)) { this.cleanup = renderUpNext(this.container); return; }
    if (/^\/listen\/(articles(\/[0-9a-f-]{36})?|save)\/?$/i.test(path)) { this.cleanup = renderArticles(this.container, path.replace(/\/$/, "")); return; }
    const match = path.match(/^\/listen\/book\/([0-9a-f-]{36})$/i);
    return match ? this.book(match[1]) : this.library();
  }

  failed(error, retry) {
    this.container.innerHTML = `
      <section class="empty-state">
        <h1>Listen</h1>
        <p role="alert">${escapeHTML(error instanceof ApiError ? error.message : "The library could not be loaded.")}</p>
        <button class="button" type="button" data-retry>Try again</button>
      </section>`;
    this.container.querySelector("[data-retry]").addEventListener("click", retry);
  }

  // MARK: - The library

  async library() {
    this.container.innerHTML = `<p class="loading" role="status">Loading your library…</p>`;
    let list;
    try {
      list = await api("/api/library");
    } catch (error) {
      if (!this.closed) this.failed(error, () => this.library());
      return;
    }
    if (this.closed) return;
    this.items = list.items;
    this.container.innerHTML = `
      <section class="listen" aria-labelledby="listen-heading">
        <header class="listen-head">
          <h1 id="listen-heading">Listen</h1>
          <span class="listen-actions">
          <a class="button" href="/listen/up-next" data-link>Up Next</a>
          <a class="button" href="/listen/articles" data-link>Articles</a>
          <a class="button" href="/listen/podcasts" data-link>Podcasts</a>
          <a class="button" href="/listen/radio" data-link>Radio</a>
          <a class="button" href="/listen/librivox" data-link>LibriVox</a>
          <label class="button primary file-button">
            ${icon(UPLOAD_ICON, 20)}<span>Upload</span>
            <input type="file" accept=".mp3,.m4a,.m4b,.mp4,.zip,audio/*,application/zip" multiple data-upload>
          </label>
          </span>
        </header>
        <div class="listen-tabs" role="tablist" aria-label="Library">
          <button type="button" role="tab" data-kind="book">Books</button>
          <button type="button" role="tab" data-kind="music">Music</button>
        </div>
        <div class="listen-progress" role="status" hidden>
          <p><span data-upload-name></span> <span data-upload-percent></span></p>
          <progress max="100" value="0" aria-label="Upload progress"></progress>
        </div>
        <p class="listen-error" role="alert" hidden></p>
        <ul class="listen-jobs" aria-label="Books being added"></ul>
        <p class="listen-undo" role="status" hidden><span></span> <button class="button small" type="button">Undo</button></p>
        <ul class="listen-list"></ul>
      </section>`;
    const $ = (selector) => this.container.querySelector(selector);
    for (const tab of this.container.querySelectorAll("[data-kind]")) {
      tab.addEventListener("click", () => {
        this.kind = tab.dataset.kind;
        sessionStorage.setItem("listenKind", this.kind);
        this.paintList();
      });
    }
    $("[data-upload]").addEventListener("change", (event) => this.upload([...event.target.files]));
    this.deletes?.commit();
    this.deletes = new UndoableDelete($(".listen-undo"), {
      seconds: UNDO_SECONDS,
      repaint: () => this.paintList(),
      deleted: (item) => {
        if (this.items) this.items = this.items.filter((known) => known.id !== item.id);
        api(`/api/library/${item.id}`, { method: "DELETE" }).catch((problem) => {
          if (problem.status !== 404) console.warn("delete failed", problem.message);
        });
      },
    });
    this.paintList();
    this.showJobs();
  }

  /** Books still being added (LibriVox downloads), each with its progress; done, the book joins the list. */
  async showJobs() {
    let answer;
    try { answer = await api("/api/jobs"); } catch { return; }
    if (this.closed) return;
    const list = this.container.querySelector(".listen-jobs");
    for (const job of answer.jobs.filter((job) => job.kind === "librivox.download" && (job.status === "queued" || job.status === "running"))) {
      const row = document.createElement("li");
      row.className = "listen-job";
      row.innerHTML = `<p><span data-job-title></span> <span data-job-text></span></p><progress max="100" value="0"></progress>`;
      row.querySelector("[data-job-title]").textContent = `Adding “${job.title}”:`;
      row.querySelector("progress").setAttribute("aria-label", `Adding ${job.title}`);
      list.append(row);
      followJob(job.id, async (current) => {
        row.querySelector("progress").value = Math.round(current.progress * 100);
        row.querySelector("[data-job-text]").textContent = current.status === "failed" ? current.message : `${current.message || "waiting"} (${Math.round(current.progress * 100)}%)`;
        if (current.status === "done") {
          row.remove();
          try {
            const item = await api(`/api/library/${current.itemID}`);
            if (!this.closed && !this.items.some((known) => known.id === item.id)) { this.items.unshift(item); this.paintList(); }
          } catch { /* it shows on the next visit */ }
        }
      }, () => this.closed);
    }
  }

  paintList() {
    for (const tab of this.container.querySelectorAll("[data-kind]")) tab.setAttribute("aria-selected", String(tab.dataset.kind === this.kind));
    const list = this.container.querySelector(".listen-list");
    const shown = this.items.filter((item) => item.kind === this.kind && item.id !== this.deletes?.hiddenID);
    if (!shown.length) {
      list.innerHTML = `
        <li class="listen-empty">
          ${icon(this.kind === "book" ? BOOK_ICON : NOTE_ICON, 40)}
          <p>${this.kind === "book"
            ? "No books yet. Upload an M4B audiobook, or a zip of its MP3 parts: the chapters come with it."
            : "No music yet. Upload MP3 or M4A files to play under a book or on their own."}</p>
        </li>`;
      return;
    }
    list.innerHTML = shown.map((item) => {
      const art = item.artworkURL
        ? `<img class="listen-art" src="${escapeHTML(item.artworkURL)}" alt="" loading="lazy">`
        : drawnCover(item.kind === "music" && item.album ? item.album : item.title, "listen-art");
      const facts = [item.author, item.kind === "book" ? `${item.chapterCount} chapter${item.chapterCount === 1 ? "" : "s"}` : item.album, length(item.duration)]
        .filter(Boolean).map(escapeHTML).join(" · ");
      const main = item.kind === "book"
        ? `<a class="listen-open" href="/listen/book/${item.id}" data-link>`
        : `<button class="listen-open" type="button" data-play="${item.id}">`;
      return `
        <li class="listen-item" data-id="${item.id}">
          ${main}${art}<span class="listen-text"><span class="listen-title">${escapeHTML(item.title)}</span><span class="listen-facts">${facts}</span></span>${item.kind === "book" ? "</a>" : "</button>"}
          <button class="icon-button" type="button" data-delete="${item.id}" aria-label="Delete ${escapeHTML(item.title)}">${icon(TRASH_ICON, 20)}</button>
        </li>`;
    }).join("");
    // The music shown is the music player's queue, from the tapped track on.
    const music = shown.filter((item) => item.kind === "music");
    for (const button of list.querySelectorAll("[data-play]")) {
      button.addEventListener("click", () => {
        const index = music.findIndex((item) => item.id === button.dataset.play);
        deck.playMusic(music, index);
        announce(`Playing “${music[index].title}”.`);
      });
    }
    for (const button of list.querySelectorAll("[data-delete]")) {
      button.addEventListener("click", () => this.deletes.start(this.items.find((item) => item.id === button.dataset.delete)));
    }
  }

  /** Sends the files one after another, each with a progress bar. */
  async upload(files) {
    const box = this.container.querySelector(".listen-progress");
    const error = this.container.querySelector(".listen-error");
    error.hidden = true;
    for (const file of files) {
      box.hidden = false;
      box.querySelector("[data-upload-name]").textContent = `Uploading ${file.name}…`;
      try {
        const result = await sendFile("/api/library", file, (fraction) => {
          if (this.closed) return;
          box.querySelector("progress").value = Math.round(fraction * 100);
          box.querySelector("[data-upload-percent]").textContent = fraction >= 1 ? "reading chapters…" : `${Math.round(fraction * 100)}%`;
        });
        if (this.closed) return;
        if (!result.duplicate) this.items.unshift(result.item);
        this.kind = result.item.kind;
        sessionStorage.setItem("listenKind", this.kind);
        announce(result.duplicate ? `“${result.item.title}” is already in your library.` : `Added “${result.item.title}”.`);
      } catch (problem) {
        if (this.closed) return;
        error.textContent = `${file.name}: ${problem.message}`;
        error.hidden = false;
      }
    }
    if (this.closed) return;
    box.hidden = true;
    this.container.querySelector("[data-upload]").value = "";
    this.paintList();
  }

  // MARK: - A book

  async book(id) {
    this.container.innerHTML = `<p class="loading" role="status">Opening the book…</p>`;
    let book;
    try {
      book = await api(`/api/library/${id}`);
    } catch (error) {
      if (this.closed) return;
      if (error.status === 404) {
        this.container.innerHTML = `
          <section class="empty-state">
            <h1>Not in your library</h1>
            <p>This book is not in your library (it may have been deleted).</p>
            <a class="button primary" href="/listen" data-link>Go to the library</a>
          </section>`;
        return;
      }
      this.failed(error, () => this.book(id));
      return;
    }
    if (this.closed) return;
    sessionStorage.setItem("listenKind", "book");  // back in the library, the books show
    this.bookShown = book;
    const art = book.artworkURL
      ? `<img class="book-art" src="${escapeHTML(book.artworkURL)}" alt="Cover of ${escapeHTML(book.title)}">`
      : drawnCover(book.title, "book-art");
    this.container.innerHTML = `
      <section class="book" aria-labelledby="book-heading">
        <a class="back-link" href="/listen" data-link>${icon("M15 18l-6-6 6-6", 20)}<span>Library</span></a>
        <div class="book-head">
          ${art}
          <div>
            <h1 id="book-heading">${escapeHTML(book.title)}</h1>
            ${book.author ? `<p class="book-author">${escapeHTML(book.author)}</p>` : ""}
            <p class="book-facts">${length(book.duration)} · ${book.chapters.length} chapter${book.chapters.length === 1 ? "" : "s"}</p>
          </div>
        </div>
        <button class="button primary wide" type="button" data-resume></button>
        ${book.kind === "book" ? queueButtonsHTML() : ""}
        <p class="book-download">${downloadHTML()}</p>
        <div class="chapters-head">
          <h2 class="chapters-heading">Chapters</h2>
          <span class="chapters-marks">
            <button class="button small" type="button" data-all="played">Mark All Played</button>
            <button class="button small" type="button" data-all="unplayed">Mark All Unplayed</button>
          </span>
        </div>
        <p class="chapters-count" role="status"></p>
        <ol class="chapters">
          ${book.chapters.map((chapter, index) => `
            <li class="chapter-row" data-index="${index}">
              <button type="button" class="chapter" data-chapter="${index}">
                <span class="chapter-number">${index + 1}</span>
                <span class="chapter-text"><span class="chapter-title">${escapeHTML(chapter.title)}</span>${chapter.readers?.length ? `<span class="chapter-readers">${escapeHTML(chapter.readers.join(", "))}</span>` : ""}</span>
                <span class="chapter-time">${clock(chapter.end - chapter.start)}</span>
              </button>
              <button type="button" class="icon-button chapter-mark" data-mark="${index}">${icon("M5 12.5l4.5 4.5L19 7", 22)}</button>
            </li>`).join("")}
        </ol>
      </section>`;
    this.container.querySelector("[data-resume]").addEventListener("click", () => this.resume());
    wireQueueButtons(this.container.querySelector(".book"), itemKey("library", book.id), book.title);
    wireDownload(this.container.querySelector(".book"), itemKey("library", book.id), () => ({
      area: book.kind === "book" ? "books" : "music", title: book.title,
      files: [{ url: book.audioURL, type: mimeOf(book.format), size: book.byteSize }],
    }));
    for (const button of this.container.querySelectorAll("[data-chapter]")) {
      // A picked chapter starts at its own beginning: the saved place is never applied here.
      button.addEventListener("click", () => deck.playBook(book, Number(button.dataset.chapter)));
    }
    for (const button of this.container.querySelectorAll("[data-mark]")) {
      button.addEventListener("click", () => {
        const index = Number(button.dataset.mark);
        this.mark([index], !book.chapters[index].played);
      });
    }
    for (const button of this.container.querySelectorAll("[data-all]")) {
      button.addEventListener("click", () => this.mark(book.chapters.map((_, index) => index), button.dataset.all === "played"));
    }
    // The speech player marks chapters as they end and moves on; the page follows it.
    this.onPlayed = (event) => {
      const { book: playedBook, chapter, played } = event.detail;
      if (playedBook !== book.id || chapter == null || !book.chapters[chapter]) return;
      book.chapters[chapter].played = played;
      this.paintBook();
    };
    this.onDeck = () => this.paintBook();
    deck.speech.addEventListener("played", this.onPlayed);
    deck.addEventListener("change", this.onDeck);
    this.cleanup = () => {
      deck.speech.removeEventListener("played", this.onPlayed);
      deck.removeEventListener("change", this.onDeck);
    };
    this.paintBook();
  }

  /** Where Resume goes: the live speech player's place when it has this book, else this device's
   *  last place, else the server's (any device's). Null at the start or after the end. */
  resumePlace() {
    const book = this.bookShown;
    const live = deck.speech.track?.book === book.id ? deck.speech.itemPosition : null;
    if (live != null) return live > 0.5 ? live : null;
    const local = localPosition(itemKey("library", book.id));
    const server = book.progress && !book.progress.finished ? book.progress.position : null;
    const place = local ?? server;
    return place && !heardThrough(place, book.duration) ? place : null;
  }

  chapterAt(position) {
    const chapters = this.bookShown.chapters;
    const index = chapters.findIndex((chapter) => position >= chapter.start && position < chapter.end);
    return index < 0 ? 0 : index;
  }

  resume() {
    const book = this.bookShown;
    if (deck.speech.track?.book === book.id) { deck.speech.play(); return; }
    const place = this.resumePlace();
    deck.playBook(book, place == null ? 0 : this.chapterAt(place), { at: place });
  }

  paintBook() {
    const book = this.bookShown;
    if (!book || this.closed) return;
    const place = this.resumePlace();
    const resume = this.container.querySelector("[data-resume]");
    const loadedHere = deck.speech.track?.book === book.id;
    // (The chapter's own number: Up Next puts other items' tracks in the same queue.)
    const playingChapter = loadedHere ? deck.speech.track.chapter ?? 0 : null;
    if (loadedHere && deck.speech.playing) resume.textContent = `Playing chapter ${playingChapter + 1}`;
    else if (place == null) resume.textContent = "Play from the start";
    else {
      const index = this.chapterAt(place);
      resume.textContent = `Resume · Chapter ${index + 1}, ${clock(place - book.chapters[index].start)}`;
    }
    resume.disabled = loadedHere && deck.speech.playing;
    const played = book.chapters.filter((chapter) => chapter.played).length;
    this.container.querySelector(".chapters-count").textContent = `${played} of ${book.chapters.length} played`;
    for (const row of this.container.querySelectorAll(".chapter-row")) {
      const index = Number(row.dataset.index), chapter = book.chapters[index];
      row.classList.toggle("played", chapter.played);
      const current = loadedHere && playingChapter === index;
      if (current) row.querySelector(".chapter").setAttribute("aria-current", "true");
      else row.querySelector(".chapter").removeAttribute("aria-current");
      const mark = row.querySelector(".chapter-mark");
      mark.setAttribute("aria-pressed", String(chapter.played));
      mark.setAttribute("aria-label", `Played: ${chapter.title}`);
    }
  }

  /** Marks chapters played or unplayed through the progress log; unplayed also resets Resume. */
  mark(indices, played) {
    const book = this.bookShown;
    for (const index of indices) {
      if (book.chapters[index].played === played) continue;
      book.chapters[index].played = played;
      record(chapterItem(itemKey("library", book.id), index), played ? "ended" : "unplayed", played ? book.chapters[index].end - book.chapters[index].start : 0);
    }
    if (!played && indices.length === book.chapters.length) {
      record(itemKey("library", book.id), "unplayed", 0);
      book.progress = null;
      if (deck.speech.track?.book === book.id && !deck.speech.playing) {
        const first = deck.speech.queue.findIndex((track) => track.book === book.id);
        deck.speech.load(deck.speech.queue, Math.max(0, first), { at: deck.speech.queue[Math.max(0, first)].start });
      }
      announce("All chapters unplayed; the book starts from the beginning.");
    } else if (indices.length > 1) {
      announce("All chapters marked played.");
    }
    this.paintBook();
  }
}
