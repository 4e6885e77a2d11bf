// Listen's podcasts: /listen/podcasts (your podcasts with their new-episode badges, search by name,
// add a feed by its address, OPML in and out), /listen/podcasts/<id> (a podcast's episodes: play,
// download with progress, played marks, favourite, delete-after-played, the last refresh's error)
// and /listen/episode/<id> (an episode with its chapters and a transcript that follows the audio;
// tapping a line plays from there). Episodes play in the deck's speech player.

import { api, ApiError, errorFromAnswer } from "../api.js";
import { icon } from "../areas.js";
import { announce, confirmDialog, escapeHTML, friendlyDate } from "../dom.js";
import { deck, episodeTracks, toFile } from "./deck.js";
import { queueButtonsHTML, wireQueueButtons } from "./queues.js";
import { downloadHTML, wireDownload } from "../player/download-button.js";
import { keptTimeMap } from "../player/downloads.js";
import { length } from "../player/time.js";
import { deviceName } from "../player/progress.js";
import { followJob } from "../jobs.js";
import { itemKey } from "../item-key.js";

/** An episode as the screens show it: the feed's title, or "Untitled episode" where it has none
 * (the data says null, as the feed does). */
function titled(episode) {
  if (episode && episode.title == null) episode.title = "Untitled episode";
  return episode;
}

const BACK_ICON = "M15 18l-6-6 6-6";
const STAR_ICON = "M12 3.5l2.6 5.3 5.9.9-4.3 4.1 1 5.8-5.2-2.7-5.2 2.7 1-5.8-4.3-4.1 5.9-.9z";
const PODCAST_ICON = "M12 14a2 2 0 1 0 0-4 2 2 0 0 0 0 4zm-4.5 3.5a6.5 6.5 0 1 1 9 0M5 20a10 10 0 1 1 14 0";

/** A cover through the server (outside pictures are fetched by its guarded client), or an icon. */
export function cover(url, label = "") {
  return url
    ? `<img class="podcast-art" src="/api/artwork?url=${encodeURIComponent(url)}" alt="${escapeHTML(label)}" loading="lazy">`
    : `<span class="podcast-art podcast-art-empty" aria-hidden="true">${icon(PODCAST_ICON, 28)}</span>`;
}

/** "at 21:40", or "on 3 Dec 2026" for another day. */
function when(iso) {
  const date = new Date(iso);
  return date.toDateString() === new Date().toDateString()
    ? `at ${date.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" })}`
    : `on ${date.toLocaleDateString(undefined, { day: "numeric", month: "short", year: "numeric" })}`;
}

/** Shows the right podcasts page for `path` in `container`; returns what to call when it goes. */
export function renderPodcasts(container, path) {
  const page = new PodcastsPage(container);
  const podcast = path.match(/^\/listen\/podcasts\/([0-9a-f-]{36})$/i);
  const episode = path.match(/^\/listen\/episode\/([0-9a-f-]{36})$/i);
  if (podcast) page.podcast(podcast[1]);
  else if (episode) page.episode(episode[1]);
  else page.list();
  return () => page.close();
}

class PodcastsPage {
  constructor(container) {
    this.container = container;
    this.closed = false;
    this.cleanups = [];
  }

  close() {
    this.closed = true;
    for (const cleanup of this.cleanups) cleanup();
  }

  $(selector) { return this.container.querySelector(selector); }

  failed(error, retry, heading = "Podcasts") {
    this.container.innerHTML = `
      <section class="empty-state">
        <h1>${escapeHTML(heading)}</h1>
        <p role="alert">${escapeHTML(error instanceof ApiError ? error.message : "This could not be loaded.")}</p>
        <button class="button" type="button" data-retry>Try again</button>
      </section>`;
    this.$("[data-retry]").addEventListener("click", retry);
  }

  // MARK: - Your podcasts, search, add

  async list() {
    this.container.innerHTML = `<p class="loading" role="status">Loading your podcasts…</p>`;
    let answer;
    try {
      answer = await api("/api/podcasts");
    } catch (error) {
      if (!this.closed) this.failed(error, () => this.list());
      return;
    }
    if (this.closed) return;
    this.container.innerHTML = `
      <section class="podcasts" aria-labelledby="podcasts-heading">
        <a class="back-link" href="/listen" data-link>${icon(BACK_ICON, 20)}<span>Library</span></a>
        <h1 id="podcasts-heading">Podcasts</h1>
        <form class="podcast-search" role="search" data-search>
          <label class="sr-only" for="podcast-q">Find a podcast</label>
          <input id="podcast-q" name="q" type="search" maxlength="100" placeholder="Find a podcast by name" autocomplete="off" required>
          <button class="button primary" type="submit">Search</button>
        </form>
        <p class="podcast-status" role="status"></p>
        <ul class="podcast-results" aria-label="Search results"></ul>
        <h2 class="podcasts-subheading">Your podcasts</h2>
        <ul class="podcast-list" aria-label="Your podcasts"></ul>
        <details class="podcast-more">
          <summary>Add by address, or bring your podcasts from another app</summary>
          <form class="podcast-add" data-add>
            <label for="podcast-url">Feed address</label>
            <input id="podcast-url" name="url" type="url" inputmode="url" placeholder="https://example.com/feed.xml" required>
            <button class="button" type="submit">Subscribe</button>
          </form>
          <div class="podcast-opml">
            <label class="button">Import OPML<input type="file" accept=".opml,.xml,text/xml,text/x-opml" data-opml hidden></label>
            <a class="button" href="/api/podcasts/opml" download="reverie-podcasts.opml">Export OPML</a>
          </div>
          <p class="podcast-add-status" role="status"></p>
        </details>
      </section>`;
    this.paintSubscriptions(answer.podcasts);
    const search = this.$("[data-search]");
    search.addEventListener("submit", (event) => { event.preventDefault(); this.search(search.elements.q.value.trim()); });
    const add = this.$("[data-add]");
    add.addEventListener("submit", (event) => { event.preventDefault(); this.subscribe(add.elements.url.value.trim(), this.$(".podcast-add-status")); });
    this.$("[data-opml]").addEventListener("change", (event) => this.importOPML(event.target.files[0]));
  }

  paintSubscriptions(podcasts) {
    const list = this.$(".podcast-list");
    if (!podcasts.length) {
      list.innerHTML = `<li class="podcast-empty">No podcasts yet. Find one by name above, or add a feed by its address.</li>`;
      return;
    }
    list.innerHTML = podcasts.map((podcast) => `
      <li>
        <a class="podcast-row" href="/listen/podcasts/${escapeHTML(podcast.id)}" data-link>
          ${cover(podcast.image)}
          <span class="podcast-text">
            <span class="podcast-title">${podcast.favourite ? `<span class="podcast-star" aria-label="Favourite">${icon(STAR_ICON, 16)}</span>` : ""}${escapeHTML(podcast.title)}</span>
            <span class="podcast-meta">${escapeHTML([podcast.author, `${podcast.episodeCount} episode${podcast.episodeCount === 1 ? "" : "s"}`].filter(Boolean).join(" · "))}</span>
            ${podcast.lastError ? `<span class="podcast-warning">Last refresh failed</span>` : ""}
          </span>
          ${podcast.newEpisodes ? `<span class="badge" aria-label="${podcast.newEpisodes} new episode${podcast.newEpisodes === 1 ? "" : "s"}">${podcast.newEpisodes}</span>` : ""}
        </a>
      </li>`).join("");
  }

  async search(text) {
    if (!text) return;
    const status = this.$(".podcast-status"), results = this.$(".podcast-results");
    status.textContent = "Searching…";
    status.classList.remove("error");
    results.innerHTML = "";
    let answer;
    try {
      answer = await api(`/api/podcasts/search?q=${encodeURIComponent(text)}`);
    } catch (error) {
      if (this.closed) return;
      status.textContent = error.message;
      status.classList.add("error");
      return;
    }
    if (this.closed) return;
    const problems = answer.problems.length ? ` (${answer.problems.join(" ")})` : "";
    status.textContent = answer.results.length
      ? `${answer.results.length} podcast${answer.results.length === 1 ? "" : "s"} found.${problems}`
      : `No podcast called “${text}” was found.${problems} Try fewer words, or add its feed by address below.`;
    results.innerHTML = answer.results.map((found, index) => `
      <li class="podcast-found">
        ${cover(found.artwork, `${found.title} cover`)}
        <span class="podcast-text">
          <span class="podcast-title">${escapeHTML(found.title)}</span>
          <span class="podcast-meta">${escapeHTML([found.author, found.episodeCount != null ? `${found.episodeCount} episode${found.episodeCount === 1 ? "" : "s"}` : null].filter(Boolean).join(" · "))}</span>
        </span>
        <button class="button small" type="button" data-subscribe="${index}">Subscribe</button>
      </li>`).join("");
    for (const button of results.querySelectorAll("[data-subscribe]")) {
      button.addEventListener("click", () => {
        button.disabled = true;
        this.subscribe(answer.results[Number(button.dataset.subscribe)].feedURL, status, button);
      });
    }
  }

  async subscribe(url, status, button = null) {
    status.textContent = "Reading the feed…";
    status.classList.remove("error");
    let podcast;
    try {
      podcast = await api("/api/podcasts", { method: "POST", body: { feedURL: url } });
    } catch (error) {
      if (this.closed) return;
      status.textContent = error.message;
      status.classList.add("error");
      if (button) button.disabled = false;
      return;
    }
    announce(`Subscribed to “${podcast.title}”.`);
    history.pushState(null, "", `/listen/podcasts/${podcast.id}`);
    window.dispatchEvent(new PopStateEvent("popstate"));
  }

  async importOPML(file) {
    if (!file) return;
    const status = this.$(".podcast-add-status");
    status.textContent = `Reading ${file.name}…`;
    status.classList.remove("error");
    try {
      const response = await fetch("/api/podcasts/opml", { method: "POST", credentials: "same-origin", headers: { "Content-Type": "text/x-opml", Accept: "application/json" }, body: file });
      const data = await response.json().catch(() => null);
      if (!response.ok) throw errorFromAnswer(response.status, data);
      if (this.closed) return;
      status.textContent = `${data.added} podcast${data.added === 1 ? "" : "s"} added${data.alreadySubscribed ? `, ${data.alreadySubscribed} you already had` : ""}. Their episodes arrive in a moment.`;
      const list = await api("/api/podcasts");
      if (!this.closed) this.paintSubscriptions(list.podcasts);
    } catch (error) {
      if (this.closed) return;
      status.textContent = error instanceof ApiError ? error.message : "The file could not be sent. Try again.";
      status.classList.add("error");
    }
  }

  // MARK: - A podcast

  async podcast(id) {
    this.container.innerHTML = `<p class="loading" role="status">Loading the podcast…</p>`;
    let detail;
    try {
      detail = await api(`/api/podcasts/${id}`);
      detail.episodes.forEach(titled);
    } catch (error) {
      if (!this.closed) this.failed(error, () => this.podcast(id));
      return;
    }
    if (this.closed) return;
    this.detail = detail;
    const podcast = detail.podcast;
    this.container.innerHTML = `
      <section class="podcast-page" aria-labelledby="podcast-heading">
        <a class="back-link" href="/listen/podcasts" data-link>${icon(BACK_ICON, 20)}<span>Podcasts</span></a>
        <header class="podcast-head">
          ${cover(podcast.image, `${podcast.title} cover`)}
          <div>
            <h1 id="podcast-heading">${escapeHTML(podcast.title)}</h1>
            ${podcast.author ? `<p class="podcast-meta">${escapeHTML(podcast.author)}</p>` : ""}
          </div>
        </header>
        ${podcast.lastError ? `<p class="podcast-error" role="alert">The last refresh failed: ${escapeHTML(podcast.lastError)} Reverie tries again ${podcast.nextRefresh ? escapeHTML(when(podcast.nextRefresh)) : "later"}.</p>` : ""}
        ${podcast.feedRepairs?.length ? `<p class="podcast-repairs" data-feed-repairs>This show's feed is not quite well-formed; Reverie read it with repairs (${escapeHTML(podcast.feedRepairs.join("; "))}). If an episode looks wrong, the show's host can fix the feed.</p>` : ""}
        <div class="podcast-controls">
          <button class="button small" type="button" data-favourite aria-pressed="${podcast.favourite}">${icon(STAR_ICON, 18)}<span>${podcast.favourite ? "Favourite" : "Add to favourites"}</span></button>
          <button class="button small" type="button" data-refresh>Refresh</button>
          <label class="podcast-toggle"><input type="checkbox" data-delete-played ${podcast.deleteAfterPlayed ? "checked" : ""}> Delete downloads once played</label>
          <button class="button small danger" type="button" data-unsubscribe>Unsubscribe</button>
        </div>
        <p class="podcast-status" role="status"></p>
        ${detail.description ? `<p class="podcast-description">${escapeHTML(detail.description)}</p>` : ""}
        <h2 class="podcasts-subheading">Episodes</h2>
        <ul class="episode-list"></ul>
      </section>`;
    this.paintEpisodes();
    this.$("[data-favourite]").addEventListener("click", () => this.setOption({ favourite: !this.detail.podcast.favourite }));
    this.$("[data-delete-played]").addEventListener("change", (event) => this.setOption({ deleteAfterPlayed: event.target.checked }));
    this.$("[data-refresh]").addEventListener("click", () => this.refresh(id));
    this.$("[data-unsubscribe]").addEventListener("click", () => this.unsubscribe(id));
    // The badges showed this time; next time only what arrives after now is new.
    if (podcast.newEpisodes) api(`/api/podcasts/${id}/seen`, { method: "POST" }).catch(() => {});
    for (const episode of detail.episodes) {
      if (episode.download?.jobID && (episode.download.status === "queued" || episode.download.status === "downloading")) this.follow(episode);
    }
  }

  paintEpisodes() {
    const list = this.$(".episode-list");
    const episodes = this.detail.episodes;
    if (!episodes.length) {
      list.innerHTML = `<li class="podcast-empty">This feed has no episodes yet.</li>`;
      return;
    }
    list.innerHTML = episodes.map((episode) => `<li class="episode" data-episode="${escapeHTML(episode.id)}">${this.episodeRow(episode)}</li>`).join("");
    for (const row of list.querySelectorAll("[data-episode]")) this.wire(row);
  }

  episodeRow(episode) {
    const download = episode.download;
    const facts = [episode.published ? friendlyDate(episode.published) : null, episode.duration ? length(episode.duration) : null,
      episode.played ? "Played" : episode.position ? `${length(Math.max(0, (episode.duration || 0) - episode.position))} left` : null].filter(Boolean);
    const downloading = download && (download.status === "queued" || download.status === "downloading");
    const downloadButton = !episode.enclosureURL ? ""
      : download?.status === "ready" ? `<button class="button small" type="button" data-delete-download>Delete download</button>`
      : downloading ? "" : `<button class="button small" type="button" data-download>${download?.status === "failed" ? "Try the download again" : "Download"}</button>`;
    return `
      <div class="episode-head">
        ${episode.isNew ? `<span class="badge small">New</span>` : ""}
        <a class="episode-title" href="/listen/episode/${escapeHTML(episode.id)}" data-link>${escapeHTML(episode.title)}</a>
      </div>
      <p class="episode-meta">${escapeHTML(facts.join(" · "))}${download?.status === "ready" ? ` · <span class="episode-downloaded">Downloaded, levelled${download.removedSeconds >= 1 ? `, ${Math.round(download.removedSeconds)} s of silence shortened` : ""}</span>` : ""}</p>
      ${downloading ? `<div class="episode-job"><p data-job-text>${escapeHTML(download.message || "Waiting to download…")}</p><progress max="100" value="${Math.round((download.progress || 0) * 100)}" aria-label="Downloading ${escapeHTML(episode.title)}"></progress></div>` : ""}
      ${download?.status === "failed" ? `<p class="podcast-error">The download failed. Trying again continues where it stopped.</p>` : ""}
      <div class="episode-actions">
        ${episode.enclosureURL ? `<button class="button small primary" type="button" data-play>${episode.position && !episode.played ? "Resume" : "Play"}</button>` : ""}
        ${episode.enclosureURL ? queueButtonsHTML({ small: true }) : ""}
        ${downloadButton}
        ${!download && episode.enclosureURL ? `<label class="podcast-toggle small"><input type="checkbox" data-trim> Shorten silences</label>` : ""}
        <button class="button small" type="button" data-played aria-pressed="${episode.played}">${episode.played ? "Mark unplayed" : "Mark played"}</button>
      </div>`;
  }

  wire(row) {
    const id = row.dataset.episode;
    const episode = () => this.detail.episodes.find((candidate) => candidate.id === id);
    row.querySelector("[data-play]")?.addEventListener("click", () => playEpisode(this.detail.podcast, episode()));
    row.querySelector("[data-download]")?.addEventListener("click", () => this.download(episode(), row.querySelector("[data-trim]")?.checked));
    row.querySelector("[data-delete-download]")?.addEventListener("click", () => this.deleteDownload(episode()));
    row.querySelector("[data-played]").addEventListener("click", () => this.markPlayed(episode()));
    wireQueueButtons(row, itemKey("podcast", id), episode().title);
  }

  repaint(updated) {
    titled(updated);
    const index = this.detail.episodes.findIndex((candidate) => candidate.id === updated.id);
    if (index < 0) return;
    this.detail.episodes[index] = updated;
    const row = this.$(`[data-episode="${CSS.escape(updated.id)}"]`);
    if (!row) return;
    row.innerHTML = this.episodeRow(updated);
    this.wire(row);
  }

  async download(episode, trimSilence) {
    try {
      const updated = await api(`/api/episodes/${episode.id}/download`, { method: "POST", body: { trimSilence: Boolean(trimSilence) } });
      if (this.closed) return;
      this.repaint(updated);
      announce(`Downloading “${episode.title}”.`);
      this.follow(updated);
    } catch (error) {
      if (!this.closed) this.say(error.message, true);
    }
  }

  /** Follows a download's job, its bar moving, until the episode is ready (or failed). */
  follow(episode) {
    followJob(episode.download.jobID, async (job) => {
      const row = this.$(`[data-episode="${CSS.escape(episode.id)}"]`);
      const bar = row?.querySelector("progress");
      if (bar) { bar.value = Math.round(job.progress * 100); row.querySelector("[data-job-text]").textContent = job.message || "Downloading…"; }
      if (job.status === "done" || job.status === "failed") {
        const updated = await api(`/api/episodes/${episode.id}`).catch(() => null);
        if (updated && !this.closed) {
          this.repaint(updated);
          announce(job.status === "done" ? `“${episode.title}” is downloaded.` : `The download of “${episode.title}” failed.`);
        }
      }
    }, () => this.closed);
  }

  async deleteDownload(episode) {
    try {
      await api(`/api/episodes/${episode.id}/download`, { method: "DELETE" });
      const updated = await api(`/api/episodes/${episode.id}`);
      if (!this.closed) { this.repaint(updated); announce("Download deleted; the episode streams again."); }
    } catch (error) {
      if (!this.closed) this.say(error.message, true);
    }
  }

  async markPlayed(episode) {
    try {
      const updated = await api(`/api/episodes/${episode.id}/played`, { method: "POST", body: { played: !episode.played, device: deviceName() } });
      if (!this.closed) { this.repaint(updated); announce(updated.played ? "Marked played." : "Marked unplayed."); }
    } catch (error) {
      if (!this.closed) this.say(error.message, true);
    }
  }

  async setOption(change) {
    try {
      const podcast = await api(`/api/podcasts/${this.detail.podcast.id}`, { method: "PATCH", body: change });
      if (this.closed) return;
      this.detail.podcast = podcast;
      const favourite = this.$("[data-favourite]");
      favourite.setAttribute("aria-pressed", String(podcast.favourite));
      favourite.querySelector("span").textContent = podcast.favourite ? "Favourite" : "Add to favourites";
      announce("favourite" in change ? (podcast.favourite ? "Added to favourites." : "Removed from favourites.")
        : podcast.deleteAfterPlayed ? "Downloads are deleted once played." : "Downloads are kept.");
    } catch (error) {
      if (!this.closed) this.say(error.message, true);
    }
  }

  async refresh(id) {
    this.say("Refreshing…");
    try {
      const job = await api(`/api/podcasts/${id}/refresh`, { method: "POST" });
      followJob(job.id, (current) => {
        if (current.status === "done" || current.status === "failed") this.podcast(id);
      }, () => this.closed);
    } catch (error) {
      this.say(error.message, true);
    }
  }

  async unsubscribe(id) {
    const title = this.detail.podcast.title;
    const sure = await confirmDialog({ title: `Unsubscribe from “${title}”?`, message: "Its downloads on the server are deleted too. You can subscribe again any time.", confirm: "Unsubscribe", danger: true });
    if (!sure) return;
    try {
      await api(`/api/podcasts/${id}`, { method: "DELETE" });
      announce(`Unsubscribed from “${title}”.`);
      history.pushState(null, "", "/listen/podcasts");
      window.dispatchEvent(new PopStateEvent("popstate"));
    } catch (error) {
      this.say(error.message, true);
    }
  }

  say(message, error = false) {
    const status = this.$(".podcast-status");
    if (!status) return;
    status.textContent = message;
    status.classList.toggle("error", error);
  }

  // MARK: - An episode, with its transcript

  async episode(id) {
    this.container.innerHTML = `<p class="loading" role="status">Loading the episode…</p>`;
    let episode, podcast;
    try {
      // The podcast's own line from the person's list (its page would bring every episode too).
      const [one, list] = await Promise.all([api(`/api/episodes/${id}`), api("/api/podcasts")]);
      episode = titled(one);
      podcast = list.podcasts.find((candidate) => candidate.id === one.podcastID);
      if (!podcast) throw new ApiError(404, "not_found", "You no longer subscribe to this episode's podcast.");
    } catch (error) {
      if (!this.closed) this.failed(error, () => this.episode(id), "Episode");
      return;
    }
    if (this.closed) return;
    this.container.innerHTML = `
      <section class="episode-page" aria-labelledby="episode-heading">
        <a class="back-link" href="/listen/podcasts/${escapeHTML(podcast.id)}" data-link>${icon(BACK_ICON, 20)}<span>${escapeHTML(podcast.title)}</span></a>
        <header class="podcast-head">
          ${cover(episode.image || podcast.image, `${podcast.title} cover`)}
          <div>
            <h1 id="episode-heading">${escapeHTML(episode.title)}</h1>
            <p class="podcast-meta">${escapeHTML([podcast.title, episode.published ? friendlyDate(episode.published) : null, episode.duration ? length(episode.duration) : null].filter(Boolean).join(" · "))}</p>
          </div>
        </header>
        <div class="episode-actions">
          <button class="button primary" type="button" data-play>${episode.position && !episode.played ? "Resume" : "Play"}</button>
          ${episode.enclosureURL ? queueButtonsHTML() : ""}
          <a class="button" href="/listen/playing" data-link>Now playing</a>
        </div>
        ${episode.enclosureURL ? `<p class="episode-device">${downloadHTML()}</p>` : ""}
        ${episode.description ? `<p class="podcast-description">${escapeHTML(episode.description)}</p>` : ""}
        <section class="episode-chapters" aria-labelledby="episode-chapters-heading" hidden>
          <h2 id="episode-chapters-heading" class="podcasts-subheading">Chapters</h2>
          <ol class="chapters"></ol>
        </section>
        <section class="transcript" aria-labelledby="transcript-heading">
          <h2 id="transcript-heading" class="podcasts-subheading">Transcript</h2>
          <p class="transcript-status" role="status">${episode.hasTranscript ? "Loading the transcript…" : "This episode has no transcript."}</p>
          <ol class="transcript-lines" aria-label="Transcript; choose a line to play from there"></ol>
        </section>
      </section>`;
    // The buttons work from the moment they are drawn: a tap while the chapters load is not lost.
    const chaptersRead = episode.hasChapters ? api(`/api/episodes/${id}/chapters`).then((answer) => answer.chapters).catch(() => []) : Promise.resolve([]);
    this.$("[data-play]").addEventListener("click", async () => playEpisode(podcast, episode, await chaptersRead, null, this.lines));
    wireQueueButtons(this.$(".episode-actions"), itemKey("podcast", episode.id), episode.title);
    wireDownload(this.container.querySelector(".episode-page"), itemKey("podcast", episode.id), async () => {
      // What the server answers for the episode now (read again: it may have been levelled since
      // the page was drawn): its levelled download when ready, with the time map from it to the
      // original, else the original.
      const now = await api(`/api/episodes/${episode.id}`);
      const kept = now.download?.status === "ready";
      return {
        area: "podcasts", title: episode.title,
        files: [{ url: `/api/episodes/${episode.id}/audio`, type: kept ? "audio/mpeg" : (episode.enclosureType || "audio/mpeg"), size: kept ? null : (episode.enclosureLength || null) }],
        meta: { podcastID: podcast.id, published: episode.published ?? null, timeMap: kept ? now.download.timeMap : [] },
      };
    });
    const chapters = await chaptersRead;
    if (this.closed) return;
    if (chapters.length) {
      this.$(".episode-chapters").hidden = false;
      this.$(".episode-chapters .chapters").innerHTML = chapters.map((chapter) => `
        <li><button type="button" class="chapter" data-seek="${chapter.start}"><span class="chapter-title">${escapeHTML(chapter.title)}</span><span class="chapter-time">${length(chapter.start) || "0 s"}</span></button></li>`).join("");
    }
    if (episode.hasTranscript) {
      try {
        const transcript = await api(`/api/episodes/${id}/transcript`);
        if (this.closed) return;
        this.lines = transcript.lines;
        this.$(".transcript-status").textContent = transcript.lines.length ? "" : "The transcript is empty.";
        this.$(".transcript-lines").innerHTML = transcript.lines.map((line, index) => `
          <li><button type="button" class="transcript-line" data-line="${index}" data-seek="${line.start}">${line.speaker ? `<span class="transcript-speaker">${escapeHTML(line.speaker)}</span> ` : ""}${escapeHTML(line.text)}</button></li>`).join("");
      } catch (error) {
        if (!this.closed) this.$(".transcript-status").textContent = error.message;
      }
    }
    for (const button of this.container.querySelectorAll("[data-seek]")) {
      button.addEventListener("click", () => playEpisode(podcast, episode, chapters, Number(button.dataset.seek), this.lines));
    }
    // The line being said is marked and kept in view while this episode plays.
    const key = itemKey("podcast", episode.id);
    let shown = -1;
    const follow = () => {
      // The deck knows the line being said (it shows it on the lock screen too).
      if (!this.lines?.length || deck.speech.track?.item !== key) return;
      const index = deck.speech.transcriptLine();
      if (index === shown) return;
      this.$(`[data-line="${shown}"]`)?.removeAttribute("aria-current");
      shown = index;
      const line = this.$(`[data-line="${index}"]`);
      if (!line) return;
      line.setAttribute("aria-current", "true");
      line.scrollIntoView({ block: "center", behavior: matchMedia("(prefers-reduced-motion: reduce)").matches ? "auto" : "smooth" });
    };
    deck.speech.addEventListener("time", follow);
    this.cleanups.push(() => deck.speech.removeEventListener("time", follow));
    follow();
  }
}

/**
 * Plays an episode in the speech player: its download when ready (chapters and places mapped
 * through its time map), else streamed. `from` (seconds of the original) starts there; without
 * it, the saved place, unless the episode was played to its end. `chapters` and `transcript`
 * are fetched when the caller has not already.
 */
export async function playEpisode(podcast, episode, chapters = null, from = null, transcript = null) {
  let list = chapters;
  if (list == null) list = episode.hasChapters ? await api(`/api/episodes/${episode.id}/chapters`).then((answer) => answer.chapters).catch(() => []) : [];
  const kept = keptTimeMap(episode);
  const lines = transcript ?? (episode.hasTranscript ? await api(`/api/episodes/${episode.id}/transcript`).then((answer) => answer.lines).catch(() => []) : []);
  const tracks = episodeTracks(podcast, episode, list, kept, lines);
  const key = itemKey("podcast", episode.id);
  const original = from ?? (episode.played ? 0 : episode.position || 0);
  const at = toFile(kept, original);
  let index = 0;
  tracks.forEach((track, i) => { if (track.start <= at + 0.01) index = i; });
  const channel = deck.speech;
  if (channel.track?.item === key && channel.queue.length === tracks.length && from != null) {
    // Already this episode: move within it.
    if (channel.index === index) channel.seek(at - channel.track.start);
    else await channel.load(channel.queue, index, { play: true, at });
    if (!channel.playing) await channel.play();
    return;
  }
  await channel.load(tracks, index, { play: true, at: at > 0 ? at : null });
  announce(`Playing “${episode.title}”.`);
}
