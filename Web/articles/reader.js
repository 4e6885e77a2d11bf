// The article reader (/listen/articles/{id}[?action=read|listen]): the rich text, a text size, the
// chapters and mark as read; and its own audio, reading aloud chapter by chapter through the
// speech pipeline (the opening plays while the rest renders, the next segment renders ahead) with
// the spoken word lit, a tapped word played from, the place kept, speed, voice, and playing on
// through the saved articles.

import { api, ApiError } from "../api.js";
import { icon } from "../areas.js";
import { announce, escapeHTML, storedJSON } from "../dom.js";
import { audioFormat, continueAfterOpening, holdsOpening, playOpening, render as renderSpeech, speak, voiceOptionsHTML } from "../speech.js";
import { deck } from "../listen/deck.js";
import { queueButtonsHTML, wireQueueButtons } from "../listen/queues.js";
import { downloadHTML, wireDownload } from "../player/download-button.js";
import { downloads, keptArticle } from "../player/downloads.js";
import { follow, Transport } from "../player/transport.js";
import { richTextHTML } from "./rich-text.js";
import { itemKey } from "../item-key.js";

const BACK_ICON = "M15 18l-6-6 6-6";
const SPEEDS = [0.75, 1, 1.25, 1.5, 1.75, 2];
const SIZES = [1, 2, 3, 4, 5, 6];
/** How often the place is saved while listening. */
const SAVE_EVERY = 10_000;

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

export class ArticleReader {
  constructor(container, id, action) {
    this.container = container;
    this.id = id;
    this.closed = false;
    this.settings = storedJSON("readerSettings", { size: 3, speed: 1, voice: "", playOn: true });
    this.transport = new Transport({ name: "article" });
    this.renders = new Map();   // `${chapter}:${segment}:${voice}` → Promise<{render, places}>
    this.listening = false;
    this.wordsShown = [];
    this.userScrolledAt = 0;
    this.stopFollowing = follow(this.transport, () => this.paintWord());
    this.transport.on("ended", () => this.segmentEnded());
    // Reading aloud holds the lock screen from its first sound until it stops or the reader closes.
    // (No position there: the transport's is a segment's, not the article's.)
    this.claim = this.transport.claim("Article", {
      metadata: () => this.lockScreenMetadata(),
      isPlaying: () => this.listening && !this.transport.paused,
      position: null,
      handlers: {
        play: () => { if (this.transport.paused) this.toggle(); },
        pause: () => this.transport.pause(),
      },
    });
    this.transport.on("play", () => { this.paintButton(); if (this.listening) this.claim.take(); });
    this.transport.on("pause", () => { this.paintButton(); this.savePlace(); });
    this.saver = setInterval(() => { if (!this.transport.paused) this.savePlace(); }, SAVE_EVERY);
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
    this.transport.unload();
    this.claim.release();
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
          ${queueButtonsHTML({ small: true })}
        </div>
        <p class="reader-download">${downloadHTML({ small: true })}</p>
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
    wireQueueButtons($(".reader-tools"), itemKey("article", this.id), summary.title);
    wireDownload(this.container.querySelector(".reader"), itemKey("article", this.id), (progress) => this.downloadSpec(progress));
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
    this.transport.rate = this.settings.speed;
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
    const playing = this.listening && !this.transport.paused;
    button.textContent = playing ? "Pause" : this.listening ? "Resume" : "Listen";
    button.setAttribute("aria-pressed", String(playing));
  }

  toggle() {
    if (this.listening && !this.transport.paused) { this.transport.pause(); return; }
    if (this.listening && this.transport.src) { this.transport.play(); return; }
    this.listen(this.place);
  }

  stopAudio() {
    this.listening = false;
    this.token = (this.token || 0) + 1;
    this.transport.pause();
    this.paintButton();
    this.claim.release();
  }

  /** The chapter's segments (fetched once a chapter): the download's when the article is on
   *  this device in the chosen voice, so its parts match what was kept. */
  async segments(chapter) {
    const kept = this.kept();
    if (kept?.speeches?.[chapter]) this.speech = { ...kept.speeches[chapter], chapter };
    else if (this.speech?.chapter !== chapter) this.speech = await api(`/api/articles/${this.id}/chapters/${chapter}/speech`);
    return this.speech.segments;
  }

  /** The article's download, when it is on this device in the voice chosen now. */
  kept() {
    return keptArticle(this.id, this.settings.voice);
  }

  /**
   * What Download for offline keeps: every chapter's segments spoken in the chosen voice (each
   * rendered now, one after another), with their timelines, so the reader plays and lights the
   * words with no server. `progress(text)` hears how far the speaking is.
   */
  async downloadSpec(progress) {
    const voice = this.settings.voice || "";
    const speeches = [], parts = {}, files = [];
    const chapters = this.article.chapters;
    for (let chapter = 0; chapter < chapters.length; chapter += 1) {
      const speech = await api(`/api/articles/${this.id}/chapters/${chapter}/speech`);
      speeches.push(speech);
      for (const [index, segment] of speech.segments.entries()) {
        progress(`Speaking part ${Object.keys(parts).length + 1}${chapters.length > 1 ? ` (chapter ${chapter + 1} of ${chapters.length})` : ""}…`);
        const { render: done, timeline } = await speak(segment.script, { voice, rate: 1 });
        parts[`${chapter}:${index}`] = { audioURL: done.audioURL, timeline };
        files.push({ url: done.audioURL, type: audioFormat() === "m4a" ? "audio/mp4" : "audio/ogg" });
      }
    }
    return { area: "articles", title: this.article.summary.title, files, meta: { voice, speeches, parts } };
  }

  /** A segment's render and where its words are; renders ahead share the same promise. */
  prepare(chapter, index, segment, { opening } = {}) {
    const key = `${chapter}:${index}:${this.settings.voice || ""}`;
    const kept = this.kept()?.parts?.[`${chapter}:${index}`];
    if (kept && !this.renders.has(key)) {
      // On this device: played from the kept file (the service worker answers it), no speaking.
      this.renders.set(key, Promise.resolve({ render: { audioURL: kept.audioURL }, places: wordPlaces(kept.timeline, segment.lines, this.article.text) }));
    }
    if (!this.renders.has(key)) {
      const made = (async () => {
        // (Two renders at a time per person: a third waits in renderSpeech for one to finish.)
        const done = await renderSpeech(segment.script, { voice: this.settings.voice, rate: 1 }, { opening: opening ? (url) => opening(url) : null });
        const timeline = await api(done.timelineURL);
        return { render: done, places: wordPlaces(timeline, segment.lines, this.article.text) };
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
    this.transport.pause();
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
        playOpening(this.transport, url);
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
    // The words light as they are said, in the opening too: it says what the whole says first.
    this.places = ready.places;
    if (openingPlayed) {
      // The full segment goes on from where its opening is, at the seam after its first phrase.
      // (A person who paused the opening finds the whole segment paused at the same place.)
      const now = await continueAfterOpening(this.transport, ready.render.audioURL, { cancelled: () => token !== this.token });
      if (token !== this.token) return;
      if (now === "ended") return this.segmentEnded();  // the opening held all the segment says
    } else {
      // The full segment at the word asked for.
      const word = ready.places.findLast((place) => place.at <= offset);
      const start = word && !fromStart ? word.start : 0;
      this.transport.load(ready.render.audioURL, { at: Math.max(0, start - 0.05) });
      await this.transport.whenLoaded();
      if (token !== this.token) return;
      this.transport.play();
    }
    this.claim.update();
    // The next segment renders while this one plays.
    if (index + 1 < segments.length) this.prepare(this.chapter, index + 1, segments[index + 1]).catch(() => {});
  }

  async segmentEnded() {
    if (!this.listening) return;
    const token = this.token;
    // An opening's end is not the segment's: the whole takes over from there when it is ready.
    if (!this.places || holdsOpening(this.transport)) return;
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
    this.claim.release();
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
    const time = this.transport.position;
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
      this.transport.seek(place.start);
      if (this.transport.paused) this.transport.play();
      this.userScrolledAt = 0;
      this.paintWord();
    } else {
      this.listen(offset);
    }
  }

  changeSpeed(speed) {
    this.store({ speed });
    this.transport.rate = speed;
    announce(`Speed ${speed}×.`);
  }

  changeVoice(voice) {
    this.store({ voice });
    if (this.listening) this.listen(this.place);
  }

  /** The article, its byline and the chapter being read, on the lock screen. */
  lockScreenMetadata() {
    if (!this.article) return null;
    const { summary, chapters } = this.article;
    return { title: summary.title, artist: summary.byline || summary.source || "", album: chapters[this.chapter].title,
      artwork: [{ src: "/icons/icon-512.png", sizes: "512x512", type: "image/png" }] };
  }
}
