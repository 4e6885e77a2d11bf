// Listen's LibriVox page (/listen/librivox): search LibriVox's free audiobooks by title or author,
// and add one to the library. Adding is a job on the server (each section downloaded, then joined
// into one book whose chapters are the sections); its progress shows under the book until it is
// done, and then the book opens from there.

import { api, ApiError } from "../api.js";
import { icon } from "../areas.js";
import { announce, escapeHTML } from "../dom.js";
import { deck, librivoxTracks } from "./deck.js";
import { queueButtonsHTML, wireQueueButtons } from "./queues.js";
import { downloadHTML, wireDownload } from "../player/download-button.js";
import { followJob } from "../jobs.js";
import { length } from "../player/time.js";
import { itemKey } from "../item-key.js";

/** Shows the page in `container`; returns what to call when the screen goes. */
export function renderLibriVox(container) {
  const page = new LibriVoxPage(container);
  return () => page.close();
}

class LibriVoxPage {
  constructor(container) {
    this.container = container;
    this.closed = false;
    this.books = [];
    container.innerHTML = `
      <section class="librivox" aria-labelledby="librivox-heading">
        <a class="back-link" href="/listen" data-link>${icon("M15 18l-6-6 6-6", 20)}<span>Library</span></a>
        <h1 id="librivox-heading">LibriVox</h1>
        <p class="librivox-about">Free public-domain audiobooks read by volunteers. Added books download to your library, one chapter a section.</p>
        <form class="librivox-search" role="search">
          <label class="sr-only" for="librivox-q">Search LibriVox</label>
          <input id="librivox-q" name="q" type="search" maxlength="100" placeholder="A title, or an author's last name" autocomplete="off" required>
          <div class="librivox-by" role="radiogroup" aria-label="Search by">
            <label><input type="radio" name="by" value="title" checked> Title</label>
            <label><input type="radio" name="by" value="author"> Author</label>
          </div>
          <button class="button primary" type="submit">Search</button>
        </form>
        <p class="librivox-status" role="status"></p>
        <ul class="librivox-results"></ul>
      </section>`;
    const form = container.querySelector("form");
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.search(form.elements.q.value.trim(), form.elements.by.value);
    });
    form.elements.q.focus();
  }

  close() { this.closed = true; }

  async search(text, by) {
    if (!text) return;
    const status = this.container.querySelector(".librivox-status");
    const list = this.container.querySelector(".librivox-results");
    status.textContent = "Searching LibriVox…";
    status.classList.remove("error");
    list.innerHTML = "";
    let answer;
    try {
      answer = await api(`/api/librivox/search?q=${encodeURIComponent(text)}&by=${by}`);
    } catch (error) {
      if (this.closed) return;
      status.textContent = error instanceof ApiError ? error.message : "LibriVox could not be searched. Try again.";
      status.classList.add("error");
      return;
    }
    if (this.closed) return;
    this.books = answer.books;
    status.textContent = this.books.length
      ? `${this.books.length} book${this.books.length === 1 ? "" : "s"} found.`
      : `Nothing on LibriVox ${by === "author" ? "by an author called" : "called"} “${text}”. Try fewer words, or search by ${by === "author" ? "title" : "author"}.`;
    list.innerHTML = this.books.map((book) => {
      const readers = [...new Set(book.sections.flatMap((section) => section.readers))];
      const facts = [book.authors.join(", "), book.seconds ? length(book.seconds) : null,
        `${book.sections.length} section${book.sections.length === 1 ? "" : "s"}`].filter(Boolean).map(escapeHTML).join(" · ");
      return `
        <li class="librivox-book" data-id="${book.id}">
          ${book.coverURL ? `<img class="librivox-cover" src="/api/artwork?url=${encodeURIComponent(book.coverURL)}" alt="" loading="lazy">` : ""}
          <h2>${escapeHTML(book.title)}</h2>
          <p class="librivox-facts">${facts}</p>
          ${readers.length ? `<p class="librivox-readers">Read by ${escapeHTML(readers.slice(0, 3).join(", "))}${readers.length > 3 ? ` and ${readers.length - 3} more` : ""}</p>` : ""}
          ${book.description ? `<p class="librivox-description">${escapeHTML(book.description)}</p>` : ""}
          <div class="librivox-add">
            <div class="librivox-buttons">
              ${book.sections.length ? `<button class="button primary" type="button" data-listen="${book.id}">Listen now</button>` : ""}
              <button class="button" type="button" data-add="${book.id}"${book.sections.length ? "" : " disabled"}>${book.sections.length ? "Add to library" : "No recordings yet"}</button>
              ${book.sections.length ? queueButtonsHTML() : ""}
            </div>
            ${book.sections.length ? downloadHTML() : ""}
            <div class="librivox-job" hidden>
              <p><span data-job-text></span> <span data-job-percent></span></p>
              <progress max="100" value="0" aria-label="Adding ${escapeHTML(book.title)}"></progress>
            </div>
          </div>
        </li>`;
    }).join("");
    for (const button of list.querySelectorAll("[data-listen]")) {
      // Streamed from LibriVox through the server, a section at a time, in the speech player.
      button.addEventListener("click", () => {
        const book = this.books.find((candidate) => candidate.id === Number(button.dataset.listen));
        deck.speech.load(librivoxTracks(book), 0, { play: true });
        announce(`Playing “${book.title}” from LibriVox.`);
      });
    }
    for (const row of list.querySelectorAll(".librivox-book")) {
      const book = this.books.find((candidate) => candidate.id === Number(row.dataset.id));
      if (!book) continue;
      wireQueueButtons(row, itemKey("librivox", book.id), book.title);
      // Streamed sections kept on the device: the same addresses the player streams from.
      wireDownload(row, itemKey("librivox", book.id), () => ({
        area: "librivox", title: book.title, files: librivoxTracks(book).map((track) => ({ url: track.src, type: "audio/mpeg" })),
      }));
    }
    for (const button of list.querySelectorAll("[data-add]")) {
      button.addEventListener("click", () => this.add(Number(button.dataset.add), button.closest("li")));
    }
  }

  async add(id, row) {
    const button = row.querySelector("[data-add]");
    const box = row.querySelector(".librivox-job");
    button.disabled = true;
    box.hidden = false;
    box.querySelector("[data-job-text]").textContent = "Starting…";
    let job;
    try {
      job = await api("/api/librivox/books", { method: "POST", body: { id } });
    } catch (error) {
      button.disabled = false;
      box.querySelector("[data-job-text]").textContent = error.message;
      return;
    }
    announce(`Adding “${job.title}” to your library.`);
    followJob(job.id, (current) => this.paintJob(row, current), () => this.closed);
  }

  paintJob(row, job) {
    const box = row.querySelector(".librivox-job");
    const percent = Math.round(job.progress * 100);
    box.querySelector("progress").value = percent;
    if (job.status === "done") {
      box.querySelector("[data-job-text]").innerHTML = `Added. <a href="/listen/book/${escapeHTML(job.itemID)}" data-link>Open the book</a>`;
      box.querySelector("[data-job-percent]").textContent = "";
      row.querySelector("[data-add]").textContent = "In your library";
      announce(`“${job.title}” is in your library.`);
      return;
    }
    if (job.status === "failed") {
      box.querySelector("[data-job-text]").textContent = job.message || "Adding the book failed.";
      box.querySelector("[data-job-percent]").textContent = "";
      const button = row.querySelector("[data-add]");
      button.disabled = false;
      button.textContent = "Try again";
      return;
    }
    box.querySelector("[data-job-text]").textContent = job.message || "Waiting to start…";
    box.querySelector("[data-job-percent]").textContent = `${percent}%`;
  }
}
