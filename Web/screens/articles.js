// Listen's articles: the list (saved, in progress, finished, with source and reading time), saving
// by URL, pasted text or an uploaded web page, text, EPUB or PDF; the reader (the text with its
// bold, italics, links, headings, quotes and lists, a font size, the chapters) that reads aloud
// chapter by chapter through the speech pipeline with the spoken word lit and a tapped word
// played from; and the save sheet the bookmarklet and the Web Share Target open.

import { api, ApiError } from "../api.js";
import { icon } from "../areas.js";
import { UndoableDelete, announce, escapeHTML, setImmersive, storedJSON } from "../dom.js";
import { follow, render as renderSpeech, voiceOptionsHTML } from "../speech.js";
import { deck } from "../player/deck.js";
import { followJob } from "../jobs.js";
import { sendFile } from "../upload.js";

const TRASH_ICON = "M4 7h16M10 11v6m4-6v6M6 7l1 13h10l1-13M9 7V4h6v3";
const ARTICLE_ICON = "M6 3h9l4 4v14H6zM14 3v5h5M9 12h7M9 16h7";
const BACK_ICON = "M15 18l-6-6 6-6";
const UNDO_SECONDS = 10;
const SPEEDS = [0.75, 1, 1.25, 1.5, 1.75, 2];
const SIZES = [1, 2, 3, 4, 5, 6];
/** How often the place is saved while listening. */
const SAVE_EVERY = 10_000;

/** The bookmarklet: opens this server's save sheet for the page it is pressed on. */
export function bookmarklet(origin = location.origin) {
  const code = `(function(){var u=encodeURIComponent(location.href),t=encodeURIComponent(document.title);`
    + `window.open('${origin}/listen/save?url='+u+'&title='+t,'reverie-save','width=420,height=640');})()`;
  return `javascript:${code}`;
}

/** Renders one of the articles screens for `path`; returns a clean-up. */
export function renderArticles(container, path) {
  const match = path.match(/^\/listen\/articles\/([0-9a-f-]{36})$/i);
  if (match) {
    const reader = new ArticleReader(container, match[1], new URLSearchParams(location.search).get("action"));
    return () => reader.close();
  }
  if (/^\/listen\/save$/.test(path)) {
    const sheet = new SaveSheet(container, new URLSearchParams(location.search));
    return () => sheet.close();
  }
  const list = new ArticleList(container);
  return () => list.close();
}

// MARK: - The list

class ArticleList {
  constructor(container) {
    this.container = container;
    this.closed = false;
    this.deletes = null;
    this.load();
  }

  close() {
    this.closed = true;
    this.deletes?.commit();
  }

  async load() {
    this.container.innerHTML = `<p class="loading" role="status">Loading your articles…</p>`;
    let list;
    try {
      list = await api("/api/articles");
    } catch (error) {
      if (this.closed) return;
      this.container.innerHTML = `
        <section class="empty-state"><h1>Articles</h1>
          <p role="alert">${escapeHTML(error.message)}</p>
          <button class="button" type="button" data-retry>Try again</button></section>`;
      this.container.querySelector("[data-retry]").addEventListener("click", () => this.load());
      return;
    }
    if (this.closed) return;
    this.items = list.items;
    this.container.innerHTML = `
      <section class="articles" aria-labelledby="articles-heading">
        <a class="back-link" href="/listen" data-link>${icon(BACK_ICON, 20)}<span>Library</span></a>
        <h1 id="articles-heading">Articles</h1>
        <form class="article-add" data-add>
          <label for="article-url">Save a web page</label>
          <div class="article-add-row">
            <input id="article-url" name="url" type="url" inputmode="url" placeholder="https://…" autocomplete="off" required>
            <button class="button primary" type="submit">Save</button>
          </div>
        </form>
        <details class="article-paste">
          <summary>Paste text instead</summary>
          <form data-paste>
            <label for="article-title">Title</label>
            <input id="article-title" name="title" maxlength="300" autocomplete="off">
            <label for="article-text">Text</label>
            <textarea id="article-text" name="text" rows="6" required></textarea>
            <button class="button" type="submit">Save text</button>
          </form>
        </details>
        <label class="button file-button article-upload">
          ${icon("M12 16V4m0 0-4.5 4.5M12 4l4.5 4.5M4 15v3a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-3", 20)}<span>Import a file (EPUB, PDF, HTML, TXT)</span>
          <input type="file" accept=".epub,.pdf,.html,.htm,.xhtml,.txt,.md,application/epub+zip,application/pdf,text/html,text/plain" multiple data-upload>
        </label>
        <p class="listen-error article-error" role="alert" hidden></p>
        <ul class="listen-jobs article-jobs" aria-label="Articles being saved"></ul>
        <p class="listen-undo" role="status" hidden><span></span> <button class="button small" type="button">Undo</button></p>
        <div class="article-groups"></div>
        <section class="bookmarklet" aria-labelledby="bookmarklet-heading">
          <h2 id="bookmarklet-heading">Save from any page</h2>
          <p>Drag this button to your bookmarks bar. On any article, press it: the page is saved here, ready to read or listen to.</p>
          <a class="button bookmarklet-link" data-bookmarklet>Save to Reverie</a>
          <p class="hint">On a phone, add Reverie to your home screen: it appears in the share menu.</p>
        </section>
      </section>`;
    const $ = (selector) => this.container.querySelector(selector);
    // Set as a property: a javascript: address never appears in the markup the page is made from.
    $("[data-bookmarklet]").setAttribute("href", bookmarklet());
    $("[data-bookmarklet]").addEventListener("click", (event) => {
      event.preventDefault();
      announce("Drag “Save to Reverie” to your bookmarks bar, then press it on any article.");
    });
    $("[data-add]").addEventListener("submit", (event) => {
      event.preventDefault();
      const input = event.target.elements.url;
      this.saveURL(input.value.trim()).then((ok) => { if (ok) input.value = ""; });
    });
    $("[data-paste]").addEventListener("submit", (event) => this.paste(event));
    $("[data-upload]").addEventListener("change", (event) => this.upload([...event.target.files]));
    this.deletes = new UndoableDelete($(".listen-undo"), {
      seconds: UNDO_SECONDS,
      repaint: () => this.paint(),
      deleted: (item) => {
        api(`/api/articles/${item.id}`, { method: "DELETE" }).catch(() => {});
        this.items = this.items.filter((known) => known.id !== item.id);
        if (!this.closed) this.paint();
      },
    });
    this.paint();
    this.showJobs();
  }

  showError(message) {
    const box = this.container.querySelector(".article-error");
    box.textContent = message || "";
    box.hidden = !message;
  }

  async saveURL(url) {
    this.showError(null);
    try {
      const job = await api("/api/articles", { method: "POST", body: { url } });
      this.track(job);
      return true;
    } catch (error) {
      this.showError(error.message);
      return false;
    }
  }

  async paste(event) {
    event.preventDefault();
    this.showError(null);
    const form = event.target;
    try {
      const article = await api("/api/articles", { method: "POST", body: { title: form.elements.title.value, text: form.elements.text.value } });
      form.reset();
      this.items.unshift(article);
      this.paint();
      announce(`Saved “${article.title}”.`);
    } catch (error) {
      this.showError(error.message);
    }
  }

  async upload(files) {
    this.showError(null);
    for (const file of files) {
      const row = this.jobRow(file.name, "Uploading…");
      try {
        const job = await sendFile("/api/articles/upload", file, (fraction) => {
          row.querySelector("progress").value = Math.round(fraction * 30);
        });
        row.remove();
        this.track(job);
      } catch (error) {
        row.remove();
        this.showError(`${file.name}: ${error.message}`);
      }
    }
    this.container.querySelector("[data-upload]").value = "";
  }

  jobRow(title, text) {
    const row = document.createElement("li");
    row.className = "listen-job";
    row.innerHTML = `<p><span data-job-title></span> <span data-job-text></span></p><progress max="100" value="0"></progress>`;
    row.querySelector("[data-job-title]").textContent = `Saving “${title}”:`;
    row.querySelector("[data-job-text]").textContent = text;
    row.querySelector("progress").setAttribute("aria-label", `Saving ${title}`);
    this.container.querySelector(".article-jobs").append(row);
    return row;
  }

  /** Follows an import job; done, the article joins the list. */
  track(job) {
    const row = this.jobRow(job.title, "waiting");
    followJob(job.id, async (current) => {
      row.querySelector("progress").value = Math.round(current.progress * 100);
      row.querySelector("[data-job-text]").textContent = current.status === "failed" ? current.message : (current.message || "waiting");
      if (current.status === "failed") {
        row.classList.add("failed");
        row.querySelector("progress").remove();
        const dismiss = document.createElement("button");
        dismiss.className = "button small";
        dismiss.type = "button";
        dismiss.textContent = "Dismiss";
        dismiss.addEventListener("click", () => row.remove());
        row.append(dismiss);
      }
      if (current.status === "done") {
        row.remove();
        try {
          const article = await api(`/api/articles/${current.itemID}`);
          if (!this.closed && !this.items.some((known) => known.id === article.summary.id)) {
            this.items.unshift(article.summary);
            this.paint();
            announce(`Saved “${article.summary.title}”.`);
          }
        } catch { /* it shows on the next visit */ }
      }
    }, () => this.closed);
  }

  async showJobs() {
    let answer;
    try { answer = await api("/api/jobs"); } catch { return; }
    if (this.closed) return;
    for (const job of answer.jobs.filter((job) => job.kind === "article.import" && (job.status === "queued" || job.status === "running"))) this.track(job);
  }

  paint() {
    const groups = this.container.querySelector(".article-groups");
    const shown = this.items.filter((item) => item.id !== this.deletes?.hiddenID);
    if (!shown.length) {
      groups.innerHTML = `
        <div class="listen-empty">
          ${icon(ARTICLE_ICON, 40)}
          <p>No articles yet. Save a web page by its address, paste some text, or import an EPUB or PDF: Reverie reads it to you.</p>
        </div>`;
      return;
    }
    const sections = [["inProgress", "In progress"], ["saved", "Saved"], ["finished", "Finished"]];
    groups.innerHTML = sections.map(([status, name]) => {
      const items = shown.filter((item) => item.status === status);
      if (!items.length) return "";
      return `
        <section class="article-group" aria-label="${name}">
          <h2>${name} <span class="count">${items.length}</span></h2>
          <ul class="listen-list">${items.map((item) => this.itemHTML(item)).join("")}</ul>
        </section>`;
    }).join("");
    for (const button of groups.querySelectorAll("[data-delete]")) {
      button.addEventListener("click", () => this.deletes.start(this.items.find((item) => item.id === button.dataset.delete)));
    }
  }

  itemHTML(item) {
    const facts = [item.byline, item.source, `${item.readingMinutes} min read`,
      item.chapterCount > 1 ? `${item.chapterCount} chapters` : null,
      item.status === "inProgress" ? `${Math.round(item.fraction * 100)}% read` : null].filter(Boolean).map(escapeHTML).join(" · ");
    return `
      <li class="listen-item article-item" data-id="${item.id}">
        <a class="listen-open" href="/listen/articles/${item.id}" data-link>
          <span class="listen-art placeholder" aria-hidden="true">${icon(ARTICLE_ICON, 28)}</span>
          <span class="listen-text"><span class="listen-title">${escapeHTML(item.title)}</span><span class="listen-facts">${facts}</span>
          ${item.status === "inProgress" ? `<progress max="100" value="${Math.round(item.fraction * 100)}" aria-label="Read ${Math.round(item.fraction * 100)}%"></progress>` : ""}</span>
        </a>
        <button class="icon-button" type="button" data-delete="${item.id}" aria-label="Delete ${escapeHTML(item.title)}">${icon(TRASH_ICON, 20)}</button>
      </li>`;
  }

}

// MARK: - Rich text

/**
 * The HTML of `text` from `from` to `to` (UTF-16 offsets, as the spans count): paragraphs at
 * blank lines, a heading, quote or list item where a span says so, bold, italic, code and links
 * inside, and every word a <span class="w" data-at="offset"> the highlight and a tap find.
 */
export function richTextHTML(text, spans, from, to) {
  const blocks = [];
  let start = from;
  while (start < to) {
    let end = text.indexOf("\n\n", start);
    if (end < 0 || end > to) end = to;
    if (end > start) blocks.push([start, end]);
    start = end + 2;
  }
  const inline = spans.filter((span) => ["bold", "italic", "code", "link"].includes(span.style) && span.location < to && span.location + span.length > from);
  const covering = (style, a, b) => spans.find((span) => span.style === style && span.location <= a && span.location + span.length >= b);
  return blocks.map(([a, b]) => {
    const heading = covering("heading", a, b);
    const quote = covering("quote", a, b);
    const code = spans.find((span) => span.style === "code" && span.location <= a && span.location + span.length >= b && text.slice(a, b).includes("\n"));
    const lines = [];
    let lineStart = a;
    for (let i = a; i <= b; i += 1) {
      if (i === b || text[i] === "\n") { lines.push([lineStart, i]); lineStart = i + 1; }
    }
    const body = (x, y) => inlineHTML(text, inline, x, y);
    if (heading) {
      const level = Math.min(6, Math.max(2, (heading.level || 2) + 1));
      return `<h${level} class="reader-heading" data-block="${a}">${body(a, b)}</h${level}>`;
    }
    if (code) return `<pre data-block="${a}">${body(a, b)}</pre>`;
    const items = lines.map(([x, y]) => [x, y, covering("listItem", x, y)]);
    if (items.every(([, , item]) => item)) {
      return `<ul data-block="${a}">${items.map(([x, y]) => `<li>${body(x, y)}</li>`).join("")}</ul>`;
    }
    const paragraph = lines.map(([x, y]) => body(x, y)).join("<br>");
    return quote ? `<blockquote data-block="${a}"><p>${paragraph}</p></blockquote>` : `<p data-block="${a}">${paragraph}</p>`;
  }).join("");
}

/** A line's inline HTML: runs of the same styles, each word in its own span. */
function inlineHTML(text, spans, from, to) {
  const cuts = new Set([from, to]);
  for (const span of spans) {
    if (span.location > from && span.location < to) cuts.add(span.location);
    const end = span.location + span.length;
    if (end > from && end < to) cuts.add(end);
  }
  const points = [...cuts].sort((x, y) => x - y);
  let html = "";
  for (let i = 0; i + 1 < points.length; i += 1) {
    const [a, b] = [points[i], points[i + 1]];
    const active = spans.filter((span) => span.location <= a && span.location + span.length >= b);
    let piece = words(text, a, b);
    if (active.some((span) => span.style === "code")) piece = `<code>${piece}</code>`;
    if (active.some((span) => span.style === "italic")) piece = `<em>${piece}</em>`;
    if (active.some((span) => span.style === "bold")) piece = `<strong>${piece}</strong>`;
    const link = active.find((span) => span.style === "link" && span.url);
    if (link) piece = `<a href="${escapeHTML(link.url)}" target="_blank" rel="noopener noreferrer">${piece}</a>`;
    html += piece;
  }
  return html;
}

function words(text, a, b) {
  return text.slice(a, b).replace(/\S+/g, (word, offset) => `\u0000${a + offset}\u0001${word}\u0002`)
    .split("\u0002").map((part) => {
      const at = part.indexOf("\u0000");
      if (at < 0) return escapeHTML(part);
      const [offset, word] = part.slice(at + 1).split("\u0001");
      return `${escapeHTML(part.slice(0, at))}<span class="w" data-at="${offset}">${escapeHTML(word)}</span>`;
    }).join("");
}

// MARK: - Listening

/**
 * Where each timed word of a segment's render is in the text: the timeline's phrases say their
 * script line, each line a stretch of the text, and the words are found there in order.
 */
export function wordPlaces(timeline, lines, text) {
  const places = [];
  const cursors = new Map();
  for (const phrase of timeline.phrases) {
    const line = lines[phrase.line - 1];
    if (!line) continue;
    const slice = text.slice(line.location, line.location + line.length);
    let cursor = cursors.get(phrase.line) || 0;
    for (const word of phrase.words) {
      const core = word.text.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");
      const found = core ? slice.indexOf(core, cursor) : -1;
      if (found < 0) continue;
      places.push({ at: line.location + found, length: core.length, start: word.startMs / 1000, end: word.endMs / 1000 });
      cursor = found + core.length;
    }
    cursors.set(phrase.line, cursor);
  }
  return places;
}

class ArticleReader {
  constructor(container, id, action) {
    this.container = container;
    this.id = id;
    this.closed = false;
    this.settings = storedJSON("readerSettings", { size: 3, speed: 1, voice: "", playOn: true });
    this.audio = new Audio();
    this.audio.preload = "auto";
    this.renders = new Map();   // `${chapter}:${segment}:${voice}` → Promise<{render, places}>
    this.listening = false;
    this.wordsShown = [];
    this.userScrolledAt = 0;
    this.stopFollowing = follow(this.audio, () => this.paintWord());
    this.audio.addEventListener("ended", () => this.segmentEnded());
    this.audio.addEventListener("play", () => this.paintButton());
    this.audio.addEventListener("pause", () => { this.paintButton(); this.savePlace(); });
    this.saver = setInterval(() => { if (!this.audio.paused) this.savePlace(); }, SAVE_EVERY);
    this.load(action);
  }

  close() {
    this.closed = true;
    this.savePlace();
    clearInterval(this.saver);
    if (this.onUserScroll) {
      window.removeEventListener("wheel", this.onUserScroll);
      window.removeEventListener("touchmove", this.onUserScroll);
    }
    this.stopFollowing();
    this.audio.pause();
    this.audio.removeAttribute("src");
    this.audio.load();
    if (navigator.mediaSession) navigator.mediaSession.metadata = null;
  }

  async load(action) {
    this.container.innerHTML = `<p class="loading" role="status">Opening the article…</p>`;
    try {
      [this.article, this.voices] = await Promise.all([api(`/api/articles/${this.id}`), api("/api/speech/voices").catch(() => [])]);
    } catch (error) {
      if (this.closed) return;
      this.container.innerHTML = `
        <section class="empty-state"><h1>Article</h1>
          <p role="alert">${escapeHTML(error instanceof ApiError && error.status === 404 ? "This article is not in your list: it may have been deleted." : error.message)}</p>
          <a class="button" href="/listen/articles" data-link>Your articles</a></section>`;
      return;
    }
    if (this.closed) return;
    const { summary, chapters } = this.article;
    this.chapter = Math.min(summary.lastReadChapter, chapters.length - 1);
    this.place = chapters[this.chapter].location + summary.lastReadPosition;
    const facts = [summary.source, summary.byline, `${summary.readingMinutes} min read`].filter(Boolean).map(escapeHTML).join(" · ");
    this.container.innerHTML = `
      <section class="reader" data-size="${this.settings.size}" aria-labelledby="reader-title">
        <a class="back-link" href="/listen/articles" data-link>${icon(BACK_ICON, 20)}<span>Articles</span></a>
        <h1 id="reader-title">${escapeHTML(summary.title)}</h1>
        <p class="reader-facts">${facts}${summary.sourceURL ? ` · <a href="${escapeHTML(summary.sourceURL)}" target="_blank" rel="noopener noreferrer">Original</a>` : ""}</p>
        <div class="reader-tools">
          <button class="button primary reader-listen" type="button" data-listen>Listen</button>
          <span class="reader-size" role="group" aria-label="Text size">
            <button class="button small" type="button" data-size="-1" aria-label="Smaller text">A−</button>
            <button class="button small" type="button" data-size="1" aria-label="Larger text">A+</button>
          </span>
          <button class="button small" type="button" data-finished></button>
        </div>
        <details class="reader-options">
          <summary>Voice and speed</summary>
          <label for="reader-voice">Voice</label>
          <select id="reader-voice" data-voice><option value="">The server's default</option>${voiceOptionsHTML(this.voices || [])}</select>
          <label for="reader-speed">Speed</label>
          <select id="reader-speed" data-speed>${SPEEDS.map((speed) => `<option value="${speed}">${speed}×</option>`).join("")}</select>
          <label class="check"><input type="checkbox" data-play-on> Play on through my saved articles</label>
        </details>
        ${chapters.length > 1 ? `<label class="reader-chapter-label" for="reader-chapter">Chapter</label>
          <select id="reader-chapter" data-chapter>${chapters.map((chapter, index) => `<option value="${index}">${escapeHTML(chapter.title)}</option>`).join("")}</select>` : ""}
        <p class="reader-status" role="status"></p>
        <article class="reader-text" lang="${escapeHTML(this.article.language || "")}"></article>
        <nav class="reader-next" aria-label="Chapters"></nav>
      </section>`;
    const $ = (selector) => this.container.querySelector(selector);
    $("[data-listen]").addEventListener("click", () => this.toggle());
    for (const button of this.container.querySelectorAll("button[data-size]")) {
      button.addEventListener("click", () => this.resize(Number(button.dataset.size)));
    }
    $("[data-finished]").addEventListener("click", () => this.markFinished(this.article.summary.status !== "finished"));
    $("[data-voice]").value = this.settings.voice || "";
    $("[data-voice]").addEventListener("change", (event) => this.changeVoice(event.target.value));
    $("[data-speed]").value = String(this.settings.speed);
    $("[data-speed]").addEventListener("change", (event) => this.changeSpeed(Number(event.target.value)));
    $("[data-play-on]").checked = this.settings.playOn !== false;
    $("[data-play-on]").addEventListener("change", (event) => this.store({ playOn: event.target.checked }));
    $("[data-chapter]")?.addEventListener("change", (event) => this.openChapter(Number(event.target.value), { listen: this.listening }));
    $(".reader-text").addEventListener("click", (event) => this.tapped(event));
    window.addEventListener("wheel", this.onUserScroll = () => { this.userScrolledAt = Date.now(); }, { passive: true });
    window.addEventListener("touchmove", this.onUserScroll, { passive: true });
    this.audio.playbackRate = this.settings.speed;
    this.paintFinished();
    this.showChapter(this.chapter);
    this.scrollToPlace();
    if (action === "listen") this.listen(this.place);
  }

  store(change) {
    this.settings = { ...this.settings, ...change };
    localStorage.setItem("readerSettings", JSON.stringify(this.settings));
  }

  status(text) {
    const box = this.container.querySelector(".reader-status");
    if (box) box.textContent = text || "";
  }

  resize(step) {
    const size = Math.min(SIZES.at(-1), Math.max(SIZES[0], (this.settings.size || 3) + step));
    this.store({ size });
    this.container.querySelector(".reader").dataset.size = String(size);
    announce(`Text size ${size} of ${SIZES.length}.`);
  }

  showChapter(index) {
    const { text, spans, chapters } = this.article;
    this.chapter = index;
    const chapter = chapters[index];
    const box = this.container.querySelector(".reader-text");
    box.innerHTML = richTextHTML(text, spans, chapter.location, chapter.location + chapter.length)
      || `<p class="hint">This chapter has no text.</p>`;
    this.wordsShown = [...box.querySelectorAll(".w")];
    this.offsets = this.wordsShown.map((element) => Number(element.dataset.at));
    const select = this.container.querySelector("[data-chapter]");
    if (select) select.value = String(index);
    const next = this.container.querySelector(".reader-next");
    next.innerHTML = index + 1 < chapters.length
      ? `<button class="button" type="button" data-next-chapter>Next: ${escapeHTML(chapters[index + 1].title)}</button>` : "";
    next.querySelector("[data-next-chapter]")?.addEventListener("click", () => this.openChapter(index + 1, { listen: this.listening }));
    this.lit = null;
  }

  openChapter(index, { listen = false } = {}) {
    this.stopAudio();
    this.showChapter(index);
    this.place = this.article.chapters[index].location;
    window.scrollTo({ top: 0 });
    this.savePlace(true);
    if (listen) this.listen(this.place);
  }

  /** The index of the word shown at or before `offset`. */
  wordAt(offset) {
    let low = 0, high = this.offsets.length - 1, found = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (this.offsets[middle] <= offset) { found = middle; low = middle + 1; } else { high = middle - 1; }
    }
    return found;
  }

  scrollToPlace() {
    const index = this.wordAt(this.place);
    if (index > 0) this.wordsShown[index].scrollIntoView({ block: "center" });
  }

  paintFinished() {
    const finished = this.article.summary.status === "finished";
    const button = this.container.querySelector("[data-finished]");
    button.textContent = finished ? "Mark as unread" : "Mark as read";
    button.setAttribute("aria-pressed", String(finished));
  }

  async markFinished(finished) {
    try {
      this.article.summary = await api(`/api/articles/${this.id}`, { method: "PATCH", body: { finished } });
      this.paintFinished();
      announce(finished ? "Marked as read." : "Marked as unread.");
    } catch (error) {
      this.status(error.message);
    }
  }

  /** Saves where the person is: the word being spoken, or the one they last tapped. */
  savePlace(force = false) {
    if (!this.article || (!force && this.place === this.savedPlace)) return;
    const chapter = this.article.chapters[this.chapter];
    const position = Math.max(0, Math.min(chapter.length, this.place - chapter.location));
    this.savedPlace = this.place;
    api(`/api/articles/${this.id}`, { method: "PATCH", body: { lastReadChapter: this.chapter, lastReadPosition: position } })
      .then((summary) => { if (this.article) this.article.summary = summary; })
      .catch(() => { this.savedPlace = null; });
  }

  // MARK: Listening

  paintButton() {
    const button = this.container.querySelector("[data-listen]");
    if (!button) return;
    const playing = this.listening && !this.audio.paused;
    button.textContent = playing ? "Pause" : this.listening ? "Resume" : "Listen";
    button.setAttribute("aria-pressed", String(playing));
  }

  toggle() {
    if (this.listening && !this.audio.paused) { this.audio.pause(); return; }
    if (this.listening && this.audio.src) { this.audio.play().catch(() => {}); return; }
    this.listen(this.place);
  }

  stopAudio() {
    this.listening = false;
    this.token = (this.token || 0) + 1;
    this.audio.pause();
    this.paintButton();
  }

  /** The chapter's segments (fetched once a chapter). */
  async segments(chapter) {
    if (this.speech?.chapter !== chapter) this.speech = await api(`/api/articles/${this.id}/chapters/${chapter}/speech`);
    return this.speech.segments;
  }

  /** A segment's render and where its words are; renders ahead share the same promise. */
  prepare(chapter, index, segment, { opening } = {}) {
    const key = `${chapter}:${index}:${this.settings.voice || ""}`;
    if (!this.renders.has(key)) {
      const made = (async () => {
        for (let attempt = 0; ; attempt += 1) {
          try {
            const done = await renderSpeech(segment.script, { voice: this.settings.voice, rate: 1 }, { opening: opening ? (url) => opening(url) : null });
            const timeline = await api(done.timelineURL);
            return { render: done, places: wordPlaces(timeline, segment.lines, this.article.text) };
          } catch (error) {
            // Two renders at a time per person: wait for one to finish.
            if (error instanceof ApiError && error.status === 429 && attempt < 30) { await new Promise((resolve) => setTimeout(resolve, 1000)); continue; }
            throw error;
          }
        }
      })();
      made.catch(() => this.renders.delete(key));
      this.renders.set(key, made);
    }
    return this.renders.get(key);
  }

  /** Plays from the word at `offset` in the current chapter. */
  async listen(offset) {
    const token = (this.token || 0) + 1;
    this.token = token;
    this.listening = true;
    // One voice at a time: a book or episode in Listen's speech player pauses (its music plays on).
    deck.speech.pause();
    this.audio.pause();
    this.paintButton();
    this.status("Preparing the voice…");
    let segments;
    try {
      segments = await this.segments(this.chapter);
    } catch (error) {
      if (token === this.token) { this.status(error.message); this.stopAudio(); }
      return;
    }
    if (token !== this.token) return;
    if (!segments.length) return this.chapterEnded(token);
    let index = segments.findIndex((segment) => segment.lines.some((line) => line.location + line.length > offset));
    if (index < 0) index = 0;
    this.playSegment(segments, index, offset, token);
  }

  async playSegment(segments, index, offset, token) {
    this.segmentIndex = index;
    this.places = null;
    const segment = segments[index];
    let openingPlayed = false;
    const fromStart = offset <= segment.lines[0].location;
    const prepared = this.prepare(this.chapter, index, segment, {
      // The opening plays while the rest of the segment is spoken, when the segment starts from its beginning.
      opening: (url) => {
        if (token !== this.token || !fromStart) return;
        openingPlayed = true;
        this.status("");
        this.audio.src = url;
        this.audio.playbackRate = this.settings.speed;
        this.audio.play().catch(() => {});
      },
    });
    let ready;
    try {
      ready = await prepared;
    } catch (error) {
      if (token === this.token) { this.status(error.message); this.stopAudio(); }
      return;
    }
    if (token !== this.token) return;
    this.status("");
    this.places = ready.places;
    // The full segment: at the opening's time when it played, else at the word asked for.
    // (A person who paused the opening finds the whole segment paused at the same place.)
    const wasAt = openingPlayed ? this.audio.currentTime : null;
    const pausedByPerson = openingPlayed && !this.audio.ended && this.audio.paused;
    const word = ready.places.findLast((place) => place.at <= offset);
    const start = wasAt !== null ? wasAt : word && !fromStart ? word.start : 0;
    this.audio.src = ready.render.audioURL;
    this.audio.playbackRate = this.settings.speed;
    await new Promise((resolve) => {
      this.audio.addEventListener("loadedmetadata", resolve, { once: true });
      this.audio.addEventListener("error", resolve, { once: true });
    });
    if (token !== this.token) return;
    this.audio.currentTime = Math.max(0, start - 0.05);
    if (!pausedByPerson) this.audio.play().catch(() => {});
    this.updateMediaSession();
    // The next segment renders while this one plays.
    if (index + 1 < segments.length) this.prepare(this.chapter, index + 1, segments[index + 1]).catch(() => {});
  }

  async segmentEnded() {
    if (!this.listening) return;
    const token = this.token;
    if (!this.places) return;   // the opening ended before the whole segment: it takes over when ready
    const segments = this.speech?.segments || [];
    if (this.segmentIndex + 1 < segments.length) {
      const next = segments[this.segmentIndex + 1];
      return this.playSegment(segments, this.segmentIndex + 1, next.lines[0].location, token);
    }
    this.chapterEnded(token);
  }

  async chapterEnded(token) {
    const chapters = this.article.chapters;
    if (this.chapter + 1 < chapters.length) {
      this.showChapter(this.chapter + 1);
      this.place = chapters[this.chapter].location;
      this.savePlace(true);
      window.scrollTo({ top: 0 });
      return this.listen(this.place);
    }
    // The end: marked as read, and on to the next saved article when the person wants.
    this.listening = false;
    this.paintButton();
    await this.markFinished(true);
    if (token !== this.token || this.settings.playOn === false) return;
    try {
      const list = await api("/api/articles");
      const next = list.items.filter((item) => item.status !== "finished" && item.id !== this.id).at(-1);
      if (next && !this.closed) {
        this.status(`Next: “${next.title}”.`);
        history.pushState({}, "", `/listen/articles/${next.id}?action=listen`);
        window.dispatchEvent(new PopStateEvent("popstate"));
      }
    } catch { /* the end of the queue */ }
  }

  /** Lights the word being spoken and keeps it in view (unless the person is scrolling). */
  paintWord() {
    if (!this.places || !this.listening) return;
    const time = this.audio.currentTime;
    let current = null;
    for (const place of this.places) {
      if (place.start > time) break;
      current = place;
    }
    if (!current) return;
    this.place = current.at;
    const index = this.wordAt(current.at);
    const element = this.wordsShown[index];
    if (element === this.lit) return;
    this.lit?.classList.remove("spoken");
    this.lit = element;
    if (!element) return;
    element.classList.add("spoken");
    const box = element.getBoundingClientRect();
    const away = box.top < 80 || box.bottom > window.innerHeight - 160;
    if (away && Date.now() - this.userScrolledAt > 4000) element.scrollIntoView({ block: "center", behavior: "smooth" });
  }

  /** A tapped word: played from there while listening, else the place to start from. */
  tapped(event) {
    if (event.target.closest("a")) return;   // links open in a new tab
    const word = event.target.closest(".w");
    if (!word) return;
    const offset = Number(word.dataset.at);
    this.place = offset;
    if (!this.listening) {
      this.lit?.classList.remove("spoken");
      this.lit = word;
      word.classList.add("spoken");
      this.savePlace();
      this.status("Listen starts here.");
      return;
    }
    const inSegment = this.places && this.speech?.segments[this.segmentIndex]?.lines.some((line) => offset >= line.location && offset <= line.location + line.length);
    if (inSegment) {
      const place = this.places.findLast((candidate) => candidate.at <= offset) || this.places[0];
      this.audio.currentTime = place.start;
      if (this.audio.paused) this.audio.play().catch(() => {});
      this.userScrolledAt = 0;
      this.paintWord();
    } else {
      this.listen(offset);
    }
  }

  changeSpeed(speed) {
    this.store({ speed });
    this.audio.playbackRate = speed;
    announce(`Speed ${speed}×.`);
  }

  changeVoice(voice) {
    this.store({ voice });
    if (this.listening) this.listen(this.place);
  }

  updateMediaSession() {
    if (!navigator.mediaSession) return;
    const { summary, chapters } = this.article;
    navigator.mediaSession.metadata = new MediaMetadata({ title: summary.title, artist: summary.byline || summary.source, album: chapters[this.chapter].title });
    if (this.sessionHandlers) return;
    this.sessionHandlers = true;
    navigator.mediaSession.setActionHandler("play", () => this.audio.play().catch(() => {}));
    navigator.mediaSession.setActionHandler("pause", () => this.audio.pause());
  }
}

// MARK: - The save sheet

/**
 * The seed's share sheet for the bookmarklet and the Web Share Target: saving, then the logo, a
 * drawn checkmark, "Saved", the title, and Read / Listen; or the error with Retry and Cancel.
 * Success goes away after 4 s, an error after 6 s, unless the person touches the sheet first.
 */
class SaveSheet {
  constructor(container, params) {
    this.container = container;
    this.closed = false;
    const shared = [params.get("url"), params.get("text"), params.get("title")].filter(Boolean).join(" ");
    this.url = params.get("url") || (shared.match(/https?:\/\/\S+/) || [null])[0];
    this.text = this.url ? null : params.get("text");
    this.title = params.get("title") || "";
    setImmersive(true);
    this.container.innerHTML = `<section class="save-page" aria-labelledby="save-heading"><h1 id="save-heading" class="sr-only">Save to Reverie</h1><div class="save-backdrop"></div></section>`;
    this.save();
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    setImmersive(false);
  }

  sheet(html, label) {
    const page = this.container.querySelector(".save-page");
    page.querySelector(".save-sheet")?.remove();
    const sheet = document.createElement("div");
    sheet.className = "save-sheet";
    sheet.setAttribute("role", "dialog");
    sheet.setAttribute("aria-label", label);
    sheet.innerHTML = `<div class="grab-bar" aria-hidden="true"></div>${html}`;
    page.append(sheet);
    return sheet;
  }

  async save() {
    const sheet = this.sheet(`<div class="save-saving"><span class="spinner" aria-hidden="true"></span><p role="status">Saving${this.title ? ` “${escapeHTML(this.title)}”` : ""}…</p><progress max="100" value="0" aria-label="Saving"></progress></div>`, "Saving");
    try {
      let article;
      if (this.url) {
        const job = await api("/api/articles", { method: "POST", body: { url: this.url } });
        const done = await new Promise((resolve) => followJob(job.id, (current) => {
          const bar = sheet.querySelector("progress");
          if (bar) bar.value = Math.round(current.progress * 100);
          if (current.status === "done" || current.status === "failed") resolve(current);
        }, () => this.closed));
        if (this.closed) return;
        if (done.status === "failed") throw new Error(done.message || "The page could not be saved.");
        article = (await api(`/api/articles/${done.itemID}`)).summary;
      } else if (this.text) {
        article = await api("/api/articles", { method: "POST", body: { text: this.text, title: this.title } });
      } else {
        throw new Error("Nothing was shared: share a web page, or some text.");
      }
      if (!this.closed) this.saved(article);
    } catch (error) {
      if (!this.closed) this.failed(error.message);
    }
  }

  saved(article) {
    const sheet = this.sheet(`
      <img class="save-logo" src="/icons/icon-192.png" alt="" width="100" height="100">
      <p class="save-done"><svg class="save-check" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">
        <circle class="save-check-circle" cx="12" cy="12" r="10.5" pathLength="1"/><path class="save-check-mark" d="M7 12.5l3.2 3.2L17 9" pathLength="1"/></svg>
        <span>Saved</span></p>
      <p class="save-title">${escapeHTML(article.title)}</p>
      <div class="save-actions">
        <a class="button save-read" href="/listen/articles/${article.id}?action=read" data-link>Read</a>
        <a class="button primary save-listen" href="/listen/articles/${article.id}?action=listen" data-link>Listen</a>
      </div>`, "Saved");
    announce(`Saved “${article.title}”.`);
    this.dismissAfter(sheet, 4000);
  }

  failed(message) {
    const sheet = this.sheet(`
      <svg class="save-error-icon" viewBox="0 0 24 24" width="70" height="70" aria-hidden="true"><circle cx="12" cy="12" r="10"/><path d="M12 7v6M12 16.5v.5"/></svg>
      <h2 class="save-error-title">Couldn't Save Article</h2>
      <p class="save-error-message" role="alert">${escapeHTML(message)}</p>
      <div class="save-actions">
        <button class="button" type="button" data-cancel>Cancel</button>
        <button class="button primary" type="button" data-retry>Retry</button>
      </div>`, "Couldn't save");
    sheet.querySelector("[data-retry]").addEventListener("click", () => { clearTimeout(this.timer); this.save(); });
    sheet.querySelector("[data-cancel]").addEventListener("click", () => this.dismiss());
    this.dismissAfter(sheet, 6000);
  }

  /** Goes away after `ms`, unless the person touches, clicks or types in the sheet first. */
  dismissAfter(sheet, ms) {
    clearTimeout(this.timer);
    sheet.dataset.autoDismiss = String(ms);
    this.timer = setTimeout(() => this.dismiss(), ms);
    const keep = () => {
      clearTimeout(this.timer);
      delete sheet.dataset.autoDismiss;
    };
    for (const type of ["pointerdown", "keydown", "focusin", "wheel", "touchstart"]) sheet.addEventListener(type, keep, { once: true, passive: true });
  }

  dismiss() {
    if (this.closed) return;
    const sheet = this.container.querySelector(".save-sheet");
    sheet?.classList.add("leaving");
    setTimeout(() => {
      if (this.closed) return;
      // Opened by the bookmarklet: the little window closes. Otherwise, the articles.
      if (window.opener && window.name === "reverie-save") { window.close(); return; }
      history.replaceState({}, "", "/listen/articles");
      window.dispatchEvent(new PopStateEvent("popstate"));
    }, 250);
  }
}
