// Up Next (issue 35): the person's queues, kept on the server so every device has the same order,
// and playback through them in Listen's speech player.
//
// - A queue's first entry is the one playing (or to play). Add to Up Next puts an item last, Play
//   Next second; the order is the server's, read again when the page comes back into view.
// - Playing a queue loads its first entry's tracks into the speech player (a book's chapters, an
//   episode's, a LibriVox book's sections, an article's spoken parts) and, while it plays, the next
//   entry's are added behind them with the start of its audio fetched: when the entry ends, the
//   player's own advance (Web/player/deck.js, the same one that moves between chapters with the
//   page asleep) goes straight on. An entry played through or skipped leaves the queue.
// - Articles are spoken part by part through the speech pipeline as they come up; each part is
//   rendered while the one before plays.

import { api } from "../api.js";
import { announce, escapeHTML } from "../dom.js";
import { bookTracks, deck, episodeTracks, librivoxTracks, toFile } from "./deck.js";
import { localPosition } from "./progress.js";
import { render as renderSpeech } from "../speech.js";

const KIND_NAMES = { episode: "episode", book: "book", librivox: "book", article: "article" };

/** The person's queues as last read: Up Next first. Listeners hear "change". */
class Queues extends EventTarget {
  constructor() {
    super();
    this.lists = [];
    this.loaded = false;
    this.loading = null;
    this.session = null;      // {queueID, entryID, sources: Map(entryID → TrackSource), warm}
    deck.speech.addEventListener("track", () => this.onTrack());
    deck.speech.addEventListener("drained", () => this.onDrained());
    document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible" && this.loaded) this.load().catch(() => {}); });
  }

  get main() { return this.lists.find((list) => list.main) ?? null; }
  list(id) { return this.lists.find((list) => list.id === id) ?? null; }

  /** Reads the queues from the server (one read at a time). */
  load() {
    if (!this.loading) {
      this.loading = api("/api/queues").then((answer) => {
        this.lists = answer.queues;
        this.loaded = true;
        this.changed();
        return this.lists;
      }).finally(() => { this.loading = null; });
    }
    return this.loading;
  }

  async ready() {
    if (!this.loaded) await this.load();
    return this.lists;
  }

  /** A queue as the server answered it after a change. */
  replace(queue) {
    const index = this.lists.findIndex((list) => list.id === queue.id);
    if (index >= 0) this.lists[index] = queue; else this.lists.push(queue);
    this.changed();
    return queue;
  }

  changed() {
    this.dispatchEvent(new Event("change"));
    this.resync();
  }

  // MARK: Changes

  /** Adds `item` (`podcast:<id>`, `library:<id>`, `librivox:<id>`, `article:<id>`): at the end, or
   *  second with `at: "next"`, or at `index` (Undo); to Up Next unless another list is named. */
  async add(item, { at = "end", index = null, queueID = null, title = null } = {}) {
    await this.ready();
    const list = queueID ? this.list(queueID) : this.main;
    const body = index != null ? { item, index } : { item, at };
    const queue = this.replace(await api(`/api/queues/${list.id}/entries`, { method: "POST", body }));
    if (title) announce(at === "next" && index == null ? `“${title}” plays next.` : `Added “${title}” to ${queue.name}.`);
    return queue;
  }

  async remove(queueID, entryID) {
    return this.replace(await api(`/api/queues/${queueID}/entries/${entryID}`, { method: "DELETE" }));
  }

  /** Puts the list in `order` (entry ids). Another device's change meanwhile: the list as it is now. */
  async reorder(queueID, order) {
    const list = this.list(queueID);
    // Shown at once; the server's answer follows.
    if (list) {
      const byID = new Map(list.entries.map((entry) => [entry.id, entry]));
      list.entries = order.map((id) => byID.get(id)).filter(Boolean);
      this.changed();
    }
    try {
      return this.replace(await api(`/api/queues/${queueID}/entries`, { method: "PUT", body: { entries: order } }));
    } catch (error) {
      if (error.status === 409) { await this.load(); throw error; }
      throw error;
    }
  }

  async create(name) {
    return this.replace(await api("/api/queues", { method: "POST", body: { name } }));
  }

  async rename(queueID, name) {
    return this.replace(await api(`/api/queues/${queueID}`, { method: "PATCH", body: { name } }));
  }

  async removeList(queueID) {
    await api(`/api/queues/${queueID}`, { method: "DELETE" });
    this.lists = this.lists.filter((list) => list.id !== queueID);
    if (this.session?.queueID === queueID) this.session = null;
    this.changed();
  }

  // MARK: Playing

  /** Whether the speech player is playing through `queueID` now. */
  playing(queueID) {
    return Boolean(this.session && this.session.queueID === queueID && deck.speech.track?.queue === queueID);
  }

  /** The entry the speech player is on, when it plays a queue. */
  get currentEntry() {
    const track = deck.speech.track;
    return track?.queue ? track.entry : null;
  }

  /** Plays `queueID` from its entry `entryID` (its first by default), inside the person's tap. */
  async play(queueID, entryID = null) {
    await this.ready();
    const list = this.list(queueID);
    const entry = entryID ? list?.entries.find((known) => known.id === entryID) : list?.entries[0];
    if (!entry) return false;
    // Picked from further down: it goes first, as the one playing.
    if (list.entries[0].id !== entry.id) {
      await this.reorder(queueID, [entry.id, ...list.entries.filter((known) => known.id !== entry.id).map((known) => known.id)]).catch(() => {});
    }
    const session = { queueID, entryID: entry.id, sources: new Map(), warm: null };
    this.session = session;
    // The speech player starts now (a phone allows sound only from the tap), on a silent place
    // holder if the entry's tracks take a moment: the tracks themselves follow.
    const tracks = await this.source(entry).next();
    if (this.session !== session) return false;
    if (!tracks.length) {
      announce(`“${entry.title}” could not be played.`);
      await this.remove(queueID, entry.id).catch(() => {});
      return false;
    }
    const start = tracks.startIndex ?? 0;
    await deck.speech.load(tracks, start, { play: true, at: tracks.startAt ?? null });
    announce(`Playing ${list.name}: “${entry.title}”.`);
    this.extend();
    return true;
  }

  /** The track source of an entry of the session (made once). */
  source(entry) {
    const session = this.session;
    if (!session.sources.has(entry.id)) session.sources.set(entry.id, new TrackSource(entry, session.queueID));
    return session.sources.get(entry.id);
  }

  /** The entry after the current one in the session's list (the list's order, now). */
  nextEntry() {
    const list = this.list(this.session?.queueID);
    if (!list) return null;
    const current = this.currentEntry ?? this.session.entryID;
    return list.entries.find((entry) => entry.id !== current) ?? null;
  }

  /**
   * Keeps one track beyond the current one in the speech player while it plays a queue: the
   * current entry's next part when it has more to come (an article), else the next entry's first
   * tracks, whose audio starts loading now.
   */
  async extend() {
    const session = this.session;
    if (!session || this.extending) return;
    this.extending = true;
    try {
      await this.ready();
      while (this.session === session && deck.speech.track?.queue === session.queueID && !deck.speech.hasNext) {
        const current = deck.speech.track;
        const source = session.sources.get(current.entry);
        let tracks = source && !source.done ? await source.next() : [];
        if (!tracks.length) {
          const next = this.nextEntry();
          if (!next) break;
          tracks = await this.source(next).next();
          if (!tracks.length) {
            // Gone, or it cannot be played: it leaves the queue, and the one after is tried.
            await this.remove(session.queueID, next.id).catch(() => {});
            continue;
          }
          // The next entry starts at its own start, with its audio's beginning fetched now.
          this.warm(tracks[0].src);
        }
        if (this.session !== session || deck.speech.track !== current) break;
        if (tracks.startIndex > 0 || tracks.startAt != null) {
          // Begun before: from where the person left it.
          const from = tracks.slice(tracks.startIndex ?? 0);
          from[0] = { ...from[0], resumeAt: tracks.startAt ?? from[0].start };
          tracks = from;
        }
        deck.speech.append(tracks);
        if (deck.speech.drained) deck.speech.resumeDrained();
      }
    } catch {
      // Offline for now: the next change or track tries again.
    } finally {
      this.extending = false;
    }
  }

  /** The start of the next entry's audio, fetched ahead into the browser's cache. */
  warm(src) {
    if (!src || !this.session) return;
    const audio = this.session.warm ?? new Audio();
    audio.preload = "auto";
    audio.muted = true;
    audio.src = src;
    audio.load();
    this.session.warm = audio;
  }

  /** The speech player moved to another track: a new entry means the last one is played (or
   *  skipped) and leaves the queue; and the next one is made ready. */
  /** Reloaded mid-queue: the speech player came back with the queue's tracks; so does the session. */
  ensureSession() {
    const track = deck.speech.track;
    if (!this.session && track?.queue) this.session = { queueID: track.queue, entryID: track.entry, sources: new Map(), warm: null };
    return this.session;
  }

  onTrack() {
    const track = deck.speech.track;
    const session = this.ensureSession();
    if (!session) return;
    if (!track || track.queue !== session.queueID) { this.endSession(); return; }
    if (track.entry !== session.entryID) {
      const finished = session.entryID;
      const source = session.sources.get(finished);
      session.sources.delete(finished);
      session.entryID = track.entry;
      if (source?.entry.kind === "article") api(`/api/articles/${source.entry.item.slice("article:".length)}`, { method: "PATCH", body: { finished: true } }).catch(() => {});
      this.remove(session.queueID, finished).catch(() => {});
      // Its tracks behind the player are no longer needed (once the advance has run its course).
      queueMicrotask(() => { if (deck.speech.track?.entry === session.entryID) deck.speech.dropBefore(); });
    }
    this.extend();
  }

  /** The speech player reached the end of what it holds: more may still be on its way. */
  onDrained() {
    const session = this.ensureSession();
    if (!session || deck.speech.track?.queue !== session.queueID) return;
    if (this.extending) return;   // the running extend plays it when it comes
    const list = this.list(session.queueID);
    const current = deck.speech.track;
    const source = session.sources.get(current.entry);
    if ((source && !source.done) || this.nextEntry()) { this.extend(); return; }
    // The queue's end: its last entry is played.
    this.remove(session.queueID, current.entry).catch(() => {});
    if (source?.entry.kind === "article") api(`/api/articles/${source.entry.item.slice("article:".length)}`, { method: "PATCH", body: { finished: true } }).catch(() => {});
    announce(`${list?.name ?? "The list"} is finished.`);
    this.endSession();
  }

  endSession() {
    if (this.session?.warm) this.session.warm.removeAttribute("src");
    this.session = null;
  }

  /** After a change to the list being played: the tracks beyond the current entry are dropped
   *  when that entry's successor changed, and the new one is loaded in their place. */
  resync() {
    const session = this.session;
    if (!session || this.extending) return;
    const queue = deck.speech.queue;
    const current = deck.speech.track;
    if (!current || current.queue !== session.queueID) return;
    const list = this.list(session.queueID);
    if (!list) { this.endSession(); return; }
    const after = queue.slice(deck.speech.index + 1).find((track) => track.entry !== current.entry);
    const next = this.nextEntry();
    if (after && after.entry !== next?.id) {
      deck.speech.dropAfter((track) => track.entry !== current.entry);
      session.sources.delete(after.entry);
      this.extend();
    } else if (!after && next) {
      this.extend();
    }
  }
}

/**
 * Where an entry's tracks come from, a batch at a time: a book, an episode or a LibriVox book in
 * one batch (with the place to start from), an article one spoken part per batch.
 */
class TrackSource {
  constructor(entry, queueID) {
    this.entry = entry;
    this.queueID = queueID;
    this.done = false;
    this.parts = null;       // an article's: [{chapter, script}] still to speak
    this.pending = null;
  }

  /** The next batch of tracks ([] when there are no more), each tagged with its queue and entry. */
  next() {
    if (!this.pending) this.pending = this.make().finally(() => { this.pending = null; });
    return this.pending;
  }

  async make() {
    if (this.done) return [];
    const tag = (tracks) => Object.assign(tracks.map((track) => ({ ...track, id: `${this.entry.id}:${track.id}`, queue: this.queueID, entry: this.entry.id })),
      { startIndex: tracks.startIndex, startAt: tracks.startAt });
    try {
      const [kind, id] = [this.entry.kind, this.entry.item.slice(this.entry.item.indexOf(":") + 1)];
      if (kind === "article") return tag(await this.articlePart(id));
      this.done = true;
      if (kind === "book") return tag(placed(bookTracks(await api(`/api/library/${id}`)), this.entry.item));
      if (kind === "librivox") return tag(librivoxTracks(await api(`/api/librivox/books/${id}`)));
      if (kind === "episode") return tag(await episodeQueueTracks(id));
    } catch {
      this.done = true;
    }
    return [];
  }

  /** An article's next spoken part: its chapters' parts are listed first, then spoken one by one. */
  async articlePart(id) {
    if (!this.parts) {
      const article = await api(`/api/articles/${id}`);
      this.article = article;
      this.parts = [];
      for (let chapter = 0; chapter < article.chapters.length; chapter += 1) {
        const speech = await api(`/api/articles/${id}/chapters/${chapter}/speech`);
        for (const segment of speech.segments) this.parts.push({ chapter, script: segment.script });
      }
    }
    const part = this.parts.shift();
    if (!part) { this.done = true; return []; }
    if (!this.parts.length) this.done = true;
    const settings = JSON.parse(localStorage.getItem("readerSettings") || "{}");
    const made = await renderSpeech(part.script, { voice: settings.voice || "", rate: 1 });
    const summary = this.article.summary;
    const chapter = this.article.chapters[part.chapter];
    return [{
      id: `article:${id}/${part.chapter}/${made.id}`, item: null, book: `article:${id}`, chapter: null,
      title: this.article.chapters.length > 1 && chapter?.title ? `${summary.title}: ${chapter.title}` : summary.title,
      artist: summary.source || "Article", album: summary.title, src: made.audioURL, artwork: null, start: 0, end: null,
    }];
  }
}

/** A book's tracks, starting where the person left it (this device's place, else the server's). */
function placed(tracks, item) {
  const place = localPosition(item);
  if (place == null) return tracks;
  const index = tracks.findIndex((track) => place >= track.start && (track.end == null || place < track.end));
  return Object.assign(tracks, { startIndex: Math.max(0, index), startAt: place });
}

/** An episode's tracks (its download's when ready), starting at its saved place unless played. */
async function episodeQueueTracks(id) {
  const episode = await api(`/api/episodes/${id}`);
  const { podcast } = await api(`/api/podcasts/${episode.podcastID}`);
  const chapters = episode.hasChapters ? await api(`/api/episodes/${id}/chapters`).then((answer) => answer.chapters).catch(() => []) : [];
  const lines = episode.hasTranscript ? await api(`/api/episodes/${id}/transcript`).then((answer) => answer.lines).catch(() => []) : [];
  const kept = episode.download?.status === "ready" ? episode.download.timeMap : [];
  const tracks = episodeTracks(podcast, episode, chapters, kept, lines);
  const original = episode.played ? 0 : (localPosition(`podcast:${id}`) ?? episode.position ?? 0);
  if (!(original > 0)) return tracks;
  const at = toFile(kept, original);
  let index = 0;
  tracks.forEach((track, i) => { if (track.start <= at + 0.01) index = i; });
  return Object.assign(tracks, { startIndex: index, startAt: at });
}

export const queues = new Queues();

/** What an entry of `kind` is called in a sentence. */
export function kindName(kind) {
  return KIND_NAMES[kind] ?? "item";
}

/** Play Next and Add to Up Next (and Add to a named list, when the person has some) for `item`. */
export function queueButtonsHTML({ small = false } = {}) {
  const size = small ? " small" : "";
  return `<span class="queue-buttons">
      <button class="button${size}" type="button" data-queue="next">Play Next</button>
      <button class="button${size}" type="button" data-queue="end">Add to Up Next</button>
      <select class="queue-other${size}" data-queue-list aria-label="Add to a list" hidden></select>
    </span>`;
}

/** Wires the buttons `queueButtonsHTML` drew in `root` for `item` titled `title`. */
export function wireQueueButtons(root, item, title) {
  const box = root.querySelector(".queue-buttons");
  if (!box) return;
  const said = (error) => announce(error?.message || "It could not be added. Try again.");
  for (const button of box.querySelectorAll("[data-queue]")) {
    button.addEventListener("click", () => queues.add(item, { at: button.dataset.queue, title }).catch(said));
  }
  const select = box.querySelector("[data-queue-list]");
  const paint = () => {
    const named = queues.lists.filter((list) => !list.main);
    select.hidden = !named.length;
    select.innerHTML = `<option value="">Add to a list…</option>${named.map((list) => `<option value="${list.id}">${escapeHTML(list.name)}</option>`).join("")}`;
  };
  select.addEventListener("change", () => {
    const queueID = select.value;
    select.value = "";
    if (queueID) queues.add(item, { queueID, title }).catch(said);
  });
  queues.ready().then(paint, () => {});
}
