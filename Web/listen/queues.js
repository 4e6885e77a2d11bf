// Up Next (issue 35): the person's queues, kept on the server so every device has the same order,
// and playback through them in Listen's speech player.
//
// - A queue's first entry is the one playing (or to play). Add to Up Next puts an item last, Play
//   Next second; the order is the server's, read again when the page comes back into view.
// - Playing a queue loads its first entry's tracks into the speech player (a book's chapters, an
//   episode's, a LibriVox book's sections, an article's spoken parts) and, while it plays, the next
//   entry's are added behind them with the start of its audio fetched: when the entry ends, the
//   player's own advance (Web/listen/deck.js, the same one that moves between chapters with the
//   page asleep) goes straight on. An entry played through or skipped leaves the queue.
// - Articles are spoken part by part through the speech pipeline as they come up; each part is
//   rendered while the one before plays.

import { api } from "../api.js";
import { announce, escapeHTML, storedJSON } from "../dom.js";
import { bookTracks, deck, episodeTracks, fileTrack, inStream, librivoxTracks, matching, toFile } from "./deck.js";
import { heardThrough, localPosition } from "../player/progress.js";
import { render as renderSpeech } from "../speech.js";
import { downloads, keptArticle, keptTimeMap } from "../player/downloads.js";
import { itemKey, parseItemKey } from "../item-key.js";

const KIND_NAMES = { episode: "episode", book: "book", librivox: "book", article: "article" };
/** Entries the server can join into one stream (a book, an episode: it joins those whose audio it
 *  has, and says where it stopped), and how many after the current one a stream holds. */
const JOINABLE = new Set(["book", "episode", "librivox", "article"]);
const JOIN_AHEAD = 12;
/** The most parts one joined stream holds (the server's limit). */
const MOST_PARTS = 50;

/** The person's queues as last read: Up Next first. Listeners hear "change". */
class Queues extends EventTarget {
  constructor() {
    super();
    this.lists = [];
    this.loaded = false;
    this.loading = null;
    this.session = null;      // the list playing: see newSession
    this.starting = null;     // a play() waiting for its first entry's tracks
    deck.speech.addEventListener("track", () => this.onTrack());
    deck.speech.addEventListener("drained", () => this.onDrained());
    deck.speech.addEventListener("played", (event) => this.onPlayed(event));
    deck.addEventListener("signout", () => this.forget());
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

  /** Plays `queueID` from its entry `entryID` (its first by default). */
  async play(queueID, entryID = null) {
    await this.ready();
    const list = this.list(queueID);
    const entry = entryID ? list?.entries.find((known) => known.id === entryID) : list?.entries[0];
    if (!entry) return false;
    // Picked from further down: it goes first, as the one playing (sent while it loads).
    if (list.entries[0].id !== entry.id) {
      this.reorder(queueID, [entry.id, ...list.entries.filter((known) => known.id !== entry.id).map((known) => known.id)]).catch(() => {});
    }
    // The session starts once its tracks are here: until then, what plays is still the last one's.
    const source = new TrackSource(entry, queueID);
    const token = (this.starting = {});
    let tracks;
    try {
      tracks = await source.next();
    } catch (error) {
      if (this.starting === token) this.starting = null;
      throw error;
    }
    if (this.starting !== token) return false;   // another list was played meanwhile
    this.starting = null;
    if (!tracks.length) {
      announce(`“${entry.title}” is no longer there, so it left ${list.name}.`);
      await this.remove(queueID, entry.id).catch(() => {});
      return false;
    }
    this.endSession();
    this.session = this.newSession(queueID, entry.id);
    this.session.sources.set(entry.id, source);
    await deck.speech.load(tracks, tracks.startIndex ?? 0, { play: true, at: tracks.startAt ?? null });
    announce(`Playing ${list.name}: “${entry.title}”.`);
    this.extend();
    this.join();
    return true;
  }

  newSession(queueID, entryID) {
    // `done`: entries played through or skipped here, whatever the server has heard yet.
    return { queueID, entryID, sources: new Map(), done: new Set(), warm: null, lastPlayed: null, resync: false };
  }

  /** The track source of an entry of the session (made once). */
  source(entry) {
    const session = this.session;
    if (!session.sources.has(entry.id)) session.sources.set(entry.id, new TrackSource(entry, session.queueID));
    return session.sources.get(entry.id);
  }

  /** The entries after the current one in the session's list (its order now), leaving out those
   *  already played here. */
  upcoming() {
    const session = this.session;
    const list = this.list(session?.queueID);
    if (!list) return [];
    const current = this.currentEntry ?? session.entryID;
    const left = list.entries.filter((entry) => entry.id === current || !session.done.has(entry.id));
    const at = left.findIndex((entry) => entry.id === current);
    return at >= 0 ? left.slice(at + 1) : left.filter((entry) => entry.id !== current);
  }

  /** The entry after the current one. */
  nextEntry() {
    return this.upcoming()[0] ?? null;
  }

  // MARK: One stream (issue 46)

  /**
   * Joins the entry playing and up to JOIN_AHEAD books and episodes after it into one stream the
   * server makes (`GET /api/streams`), so a locked phone, which runs no script, goes on from one
   * to the next: the speech player's tracks are placed in it (each with its `shift`, where its
   * item's second 0 falls) and playback moves there at the same place. Called when an entry
   * starts and when the list changes; a change takes effect from the entry after the current
   * one. A plan with nothing after the current entry leaves it (or puts it back) on its own file.
   */
  async join() {
    const session = this.session;
    if (!session || this.starting) return;
    if (session.joining) { session.rejoin = true; return; }
    session.joining = true;
    try {
      await this.joinOnce(session);
    } catch {
      // The server could not be reached: the entries go on one by one, the next change tries again.
    } finally {
      session.joining = false;
      if (session.rejoin && this.session === session) { session.rejoin = false; this.join(); }
    }
  }

  async joinOnce(session) {
    const speech = deck.speech, current = speech.track;
    if (!current || current.queue !== session.queueID || speech.restoring) return;
    const entry = this.list(session.queueID)?.entries.find((known) => known.id === current.entry);
    if (!entry || !JOINABLE.has(entry.kind)) return;
    // An article spoken part by part as it plays (not reached through a stream) has only its
    // parts spoken so far in the player: it goes on by script, and is joined from the next entry.
    if (entry.kind === "article" && current.shift == null) return;
    const following = [];
    for (const next of this.upcoming()) {
      if (!JOINABLE.has(next.kind) || following.length >= JOIN_AHEAD) break;
      following.push(next);
    }
    // Already in a stream that holds what comes next (and enough of it): nothing to change.
    const stream = session.stream;
    if (current.shift != null && stream?.audioURL === current.src) {
      const ahead = stream.entries.slice(stream.entries.indexOf(entry.id) + 1);
      if (ahead.every((id, index) => following[index]?.id === id) && (ahead.length >= 2 || ahead.length >= following.length)) return;
    }
    // A LibriVox book's sections before the one playing stay in their own files, ahead of the stream.
    const own = speech.queue.filter((track) => track.entry === entry.id).map(fileTrack);
    const at = entry.kind === "librivox" || entry.kind === "article" ? Math.max(0, own.findIndex((track) => track.id === current.id)) : 0;
    const before = own.slice(0, at);
    const parts = streamParts(entry, own.slice(at), 0);
    for (const next of following) {
      const tracks = next.kind === "article" ? this.spokenAhead(session, next) : await this.tracksOf(session, next);
      if (!tracks?.length) break;
      const first = tracks.startIndex ?? 0;
      parts.push(...streamParts(next, tracks.slice(first), tracks.startAt ?? tracks[first].start ?? 0));
    }
    // (The server joins at most 50 files; those after them stay in the queue in their own files.)
    const sent = parts.slice(0, MOST_PARTS);
    let plan = null;
    if (sent.length > 1) {
      const asked = sent.map(({ key, from }) => (from > 0 ? `${key}@${from.toFixed(3)}` : key)).join(",");
      plan = await api(`/api/streams?${new URLSearchParams({ parts: asked })}`);
      // (Each part must be the one asked for in its place: the tracks are matched to the parts so.)
      if (!(plan.parts.length > 1) || matching(plan.parts, sent.map((part) => part.key)) !== plan.parts.length) plan = null;
    }
    if (this.session !== session || speech.track !== current || speech.switching) { session.rejoin = true; return; }
    const playingIn = current.shift != null ? current.src : null;
    const joined = plan && { audioURL: plan.audioURL, entries: [...new Set(parts.slice(0, plan.parts.length).map((part) => part.entry.id))] };
    if ((plan?.audioURL ?? null) === playingIn) { session.stream = joined; return; }
    if (!plan && playingIn == null) return;
    // The tracks placed in the stream (or, with nothing to join, in the entry's own files), then
    // the last joined entry's sections the stream could not take, in their own files.
    let queue = [...before, ...parts.filter((part) => part.entry === entry).flatMap((part) => part.tracks)];
    if (plan) {
      const last = parts[plan.parts.length - 1].entry;
      queue = [...before, ...plan.parts.flatMap((part, index) => parts[index].tracks.map((track, at, all) =>
        inStream(track, part, plan.audioURL, index === plan.parts.length - 1 && at === all.length - 1))),
      ...parts.slice(plan.parts.length).filter((part) => part.entry === last).flatMap((part) => part.tracks)];
    }
    const index = queue.findIndex((track) => track.id === current.id);
    if (index < 0) return;
    const position = speech.itemPosition + (queue[index].shift ?? 0);
    session.stream = joined;
    await speech.rebase(queue, index, queue[index].src, position);
    // An article joined here has all its parts in the queue: the source that gives them part by
    // part (made for the track loaded ahead, or on a reload) has none left to add.
    for (const id of joined?.entries ?? []) {
      const source = session.sources.get(id);
      if (source?.entry.kind === "article") source.done = true;
    }
    // Back on its own file, the next entry is added behind it again.
    if (!plan) this.extend();
  }

  /** An entry's tracks in its own file (asked for once a session). */
  tracksOf(session, entry) {
    session.tracks ??= new Map();
    if (!session.tracks.has(entry.id)) session.tracks.set(entry.id, itemTracks(entry, session.queueID).catch(() => []));
    return session.tracks.get(entry.id);
  }

  /**
   * An article's tracks once every part of it is spoken (null until then): the parts are spoken
   * now, one after another, so that it can join the stream and a locked phone goes on into it
   * (issue 46); once they are, the stream is joined again. An article that cannot be spoken ahead
   * (the server out of reach, a part that failed, parts kept on the device) goes on by script.
   */
  spokenAhead(session, entry) {
    session.spoken ??= new Map();
    let ahead = session.spoken.get(entry.id);
    if (!ahead) {
      ahead = { tracks: null };
      session.spoken.set(entry.id, ahead);
      articleTracks(entry, session.queueID).then((tracks) => {
        if (!tracks.length || tracks.some((track) => !track.render)) return;
        ahead.tracks = tracks;
        if (this.session === session) this.join();
      }, () => {});
    }
    return ahead.tracks;
  }

  /**
   * Keeps one track beyond the current one in the speech player while it plays a queue: the
   * current entry's next part when it has more to come (an article), else the next entry's first
   * tracks, whose audio starts loading now. An entry that is gone (its item deleted) leaves the
   * queue and the one after is tried; a failure to reach the server waits for the next change.
   */
  async extend() {
    const session = this.session;
    if (!session || session.extending) return;
    session.extending = true;
    try {
      await this.ready();
      for (let step = 0; step < 50 && this.session === session && deck.speech.track?.queue === session.queueID && !deck.speech.hasNext; step += 1) {
        const current = deck.speech.track;
        const source = session.sources.get(current.entry);
        let tracks = source && !source.done ? await source.next() : [];
        if (!tracks.length) {
          const next = this.nextEntry();
          if (!next) break;
          tracks = await this.source(next).next();
          if (!tracks.length) {
            // Gone: it leaves the queue (here at once, whatever the server answers).
            session.done.add(next.id);
            this.remove(session.queueID, next.id).catch(() => {});
            continue;
          }
          // The next entry's audio starts loading now.
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
      // The server could not be reached: the next track, change or drain tries again.
    } finally {
      session.extending = false;
    }
    // A change to the list that came while this ran is applied now.
    if (session.resync && this.session === session) { session.resync = false; this.resync(); }
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

  /** Reloaded mid-queue: the speech player came back with the queue's tracks, and so does the
   *  session (an article's source going on after the part that plays). */
  ensureSession() {
    const track = deck.speech.track;
    if (!this.session && track?.queue && !this.starting) {
      this.session = this.newSession(track.queue, track.entry);
      if (track.article) {
        // Its parts after the last one the player came back with (a joined article, all of them).
        const entry = { id: track.entry, item: itemKey("article", track.article), kind: "article", title: track.album };
        const queued = deck.speech.queue.filter((known) => known.entry === track.entry && known.part != null).map((known) => known.part);
        this.session.sources.set(track.entry, new TrackSource(entry, track.queue, { after: Math.max(track.part, ...queued) }));
      }
    }
    return this.session;
  }

  /** A track the speech player played to its end (not one skipped). */
  onPlayed(event) {
    if (this.session && event.detail?.track?.queue === this.session.queueID) this.session.lastPlayed = event.detail.track;
  }

  /** The speech player moved to another track: a new entry means the last one is played (or
   *  skipped) and leaves the queue; and the next one is made ready. */
  onTrack() {
    if (this.starting) return;
    const track = deck.speech.track;
    const session = this.ensureSession();
    if (!session) return;
    if (!track || track.queue !== session.queueID) { this.endSession(); return; }
    if (track.entry !== session.entryID) {
      const finished = session.entryID;
      const source = session.sources.get(finished);
      session.sources.delete(finished);
      session.done.add(finished);
      session.entryID = track.entry;
      // Entries passed through on the way (a joined stream, locked across more than one end):
      // played too, and out of the list.
      for (const passed of new Set(deck.speech.queue.slice(0, deck.speech.index).map((known) => known.entry))) {
        if (!passed || passed === track.entry || passed === finished || session.done.has(passed)) continue;
        session.done.add(passed);
        // (An article passed through in the stream was heard to its end: read.)
        const heard = deck.speech.queue.slice(0, deck.speech.index).findLast((known) => known.entry === passed);
        if (heard?.article) this.finishedArticle(null, heard);
        this.remove(session.queueID, passed).catch(() => {});
      }
      // An article heard to its end is read; one skipped is not.
      const previous = deck.speech.queue[deck.speech.index - 1];
      if (previous && session.lastPlayed === previous && previous.entry === finished) this.finishedArticle(source, previous);
      this.remove(session.queueID, finished).catch(() => {});
      // Its tracks behind the player are no longer needed (once the advance has run its course).
      queueMicrotask(() => { if (deck.speech.track?.entry === session.entryID) deck.speech.dropBefore(); });
      this.join();
    } else if (track.shift == null && deck.speech.hasNext && deck.speech.queue[deck.speech.index + 1]?.entry === track.entry) {
      // A LibriVox book's section past the end of its stream (at most 50 files in one): the rest joined.
      this.join();
    }
    this.extend();
  }

  /** Marks an article entry read, once it was heard through. */
  finishedArticle(source, track) {
    const article = track?.article ?? (source?.entry.kind === "article" ? parseItemKey(source.entry.item)?.id : null);
    if (article) api(`/api/articles/${article}`, { method: "PATCH", body: { finished: true } }).catch(() => {});
  }

  /** The speech player reached the end of what it holds: more may still be on its way. */
  onDrained() {
    if (this.starting) return;
    const session = this.ensureSession();
    if (!session || deck.speech.track?.queue !== session.queueID) return;
    if (session.extending) return;   // the running extend plays it when it comes
    const list = this.list(session.queueID);
    const current = deck.speech.track;
    const source = session.sources.get(current.entry);
    if ((source && !source.done) || this.nextEntry()) { this.extend(); return; }
    // The queue's end: its last entry is played.
    session.done.add(current.entry);
    this.remove(session.queueID, current.entry).catch(() => {});
    this.finishedArticle(source, current);
    announce(`${list?.name ?? "The list"} is finished.`);
    this.endSession();
  }

  endSession() {
    if (this.session?.warm) this.session.warm.removeAttribute("src");
    this.session = null;
  }

  /** Signed out: nothing of this person's lists stays for the next one. */
  forget() {
    this.endSession();
    this.starting = null;
    this.lists = [];
    this.loaded = false;
    this.dispatchEvent(new Event("change"));
  }

  /** After a change to the list being played: the tracks beyond the current entry are dropped
   *  when that entry's successor changed, and the new one is loaded in their place. */
  resync() {
    const session = this.session;
    if (!session) return;
    if (session.extending) { session.resync = true; return; }
    const queue = deck.speech.queue;
    const current = deck.speech.track;
    if (!current || current.queue !== session.queueID) return;
    const list = this.list(session.queueID);
    if (!list) { this.endSession(); return; }
    // In a joined stream: joined again from the next entry on, when that changed.
    if (current.shift != null) { this.join(); return; }
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
  /** `after`: an article's part already playing (a reload mid-article): the parts after it. */
  constructor(entry, queueID, { after = null } = {}) {
    this.entry = entry;
    this.queueID = queueID;
    this.done = false;
    this.after = after;
    this.parts = null;       // an article's: [{chapter, script, index}] still to speak
    this.pending = null;
  }

  /** The next batch of tracks ([] when there are no more, or the item is gone), each tagged with
   *  its queue and entry. A server that cannot be reached throws, and a later call tries again. */
  next() {
    if (!this.pending) this.pending = this.make().finally(() => { this.pending = null; });
    return this.pending;
  }

  async make() {
    if (this.done) return [];
    try {
      if (this.entry.kind === "article") return tagged(await this.articlePart(this.entry.item.slice(this.entry.item.indexOf(":") + 1)), this.entry, this.queueID);
      const tracks = await itemTracks(this.entry, this.queueID);
      this.done = true;
      return tracks;
    } catch (error) {
      // Deleted (or another person's): nothing to play. Anything else is passing.
      if (error?.status === 404 || error?.status === 422) { this.done = true; return []; }
      throw error;
    }
  }

  /**
   * An article's next spoken part: its chapters' parts are listed first, then spoken one by one.
   * An article downloaded in the reader's voice plays its kept files (the service worker answers
   * them) with no speaking and no server, as the reader does.
   */
  async articlePart(id) {
    const voice = storedJSON("readerSettings", {}).voice || "";
    if (!this.parts) {
      await downloads.ready();
      const kept = keptArticle(id, voice);
      const article = await this.articleFor(id, kept);
      const parts = [];
      for (let chapter = 0; chapter < article.chapters.length; chapter += 1) {
        const speech = kept?.speeches?.[chapter] ?? await api(`/api/articles/${id}/chapters/${chapter}/speech`);
        for (const [segment, { script }] of speech.segments.entries()) parts.push({ chapter, segment, script, index: parts.length });
      }
      this.article = article;
      this.parts = this.after == null ? parts : parts.slice(this.after + 1);
    }
    const part = this.parts[0];
    if (!part) { this.done = true; return []; }
    const file = keptArticle(id, voice)?.parts?.[`${part.chapter}:${part.segment}`];
    const made = file ? { id: "kept", audioURL: file.audioURL } : await renderSpeech(part.script, { voice, rate: 1 });
    this.parts.shift();
    if (!this.parts.length) this.done = true;
    const summary = this.article.summary;
    const chapter = this.article.chapters[part.chapter];
    return [{
      id: `article:${id}/${part.index}/${made.id}`, item: null, book: itemKey("article", id), article: id, part: part.index, chapter: null,
      render: file ? null : made.id,
      title: this.article.chapters.length > 1 && chapter?.title ? `${summary.title}: ${chapter.title}` : summary.title,
      artist: summary.source || "Article", album: summary.title, src: made.audioURL, artwork: null, start: 0, end: null,
    }];
  }

  /** The article as the server has it; offline, with its download, what the download knows. */
  async articleFor(id, kept) {
    try {
      return await api(`/api/articles/${id}`);
    } catch (error) {
      if (error?.status !== 0 || !kept) throw error;
      const title = downloads.get(itemKey("article", id))?.title ?? "Article";
      return { summary: { title, source: null }, chapters: kept.speeches.map(() => ({})) };
    }
  }
}

/** An entry's `tracks` (from the one to start with, `from` seconds into it) as the parts of a joined
 *  stream: a book or an episode is one file, its tracks its chapters; a LibriVox book's sections
 *  are a file each (`librivox:<id>/<index>`). */
function streamParts(entry, tracks, from) {
  if (entry.kind === "article") return tracks.map((track, index) => ({ entry, key: `speech:${track.render}`, tracks: [track], from: index === 0 ? from : 0 }));
  if (entry.kind !== "librivox") return [{ entry, key: entry.item, tracks, from }];
  return tracks.map((track, index) => ({ entry, key: `${entry.item}/${track.chapter}`, tracks: [track], from: index === 0 ? from : 0 }));
}

/** Every spoken part of an article entry, each spoken now in turn (a person has two renders at a
 *  time: the other stays free), as the tracks its source gives one by one as it plays. */
async function articleTracks(entry, queueID) {
  const source = new TrackSource(entry, queueID);
  const tracks = [];
  for (let batch = await source.next(); batch.length; batch = await source.next()) tracks.push(...batch);
  return tracks;
}


/** `tracks` tagged with their queue and entry (an id of the entry's own). */
function tagged(tracks, entry, queueID) {
  return Object.assign(tracks.map((track) => ({ ...track, id: `${entry.id}:${track.id}`, queue: queueID, entry: entry.id })),
    { startIndex: tracks.startIndex, startAt: tracks.startAt });
}

/** A book's, an episode's or a LibriVox book's tracks as an entry of `queueID` (with the place to
 *  start from). */
async function itemTracks(entry, queueID) {
  const id = entry.item.slice(entry.item.indexOf(":") + 1);
  let tracks = [];
  if (entry.kind === "book") {
    const book = await api(`/api/library/${id}`);
    tracks = placed(bookTracks(book), entry.item, book);
  } else if (entry.kind === "librivox") tracks = librivoxTracks(await api(`/api/librivox/books/${id}`));
  else if (entry.kind === "episode") tracks = await episodeQueueTracks(id);
  return tagged(tracks, entry, queueID);
}

/** A book's tracks, starting where the person left it (this device's place, else the server's);
 *  a book heard to its end starts again. */
function placed(tracks, item, book) {
  const server = book.progress && !book.progress.finished ? book.progress.position : null;
  const place = localPosition(item) ?? server;
  if (place == null || !(place > 0.5) || heardThrough(place, book.duration)) return tracks;
  const index = tracks.findIndex((track) => place >= track.start && (track.end == null || place < track.end));
  return Object.assign(tracks, { startIndex: Math.max(0, index), startAt: place });
}

/** An episode's tracks (its download's when ready), starting at its saved place unless played. */
async function episodeQueueTracks(id) {
  const episode = await api(`/api/episodes/${id}`);
  const { podcast } = await api(`/api/podcasts/${episode.podcastID}`);
  const chapters = episode.hasChapters ? await api(`/api/episodes/${id}/chapters`).then((answer) => answer.chapters).catch(() => []) : [];
  const lines = episode.hasTranscript ? await api(`/api/episodes/${id}/transcript`).then((answer) => answer.lines).catch(() => []) : [];
  const kept = keptTimeMap(episode);
  const tracks = episodeTracks(podcast, episode, chapters, kept, lines);
  const original = episode.played ? 0 : (localPosition(itemKey("podcast", id)) ?? episode.position ?? 0);
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
      <span class="queue-other-box" hidden>
        <select class="queue-other${size}" data-queue-list aria-label="A list to add to"></select>
        <button class="button${size}" type="button" data-queue-add>Add to list</button>
      </span>
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
    box.querySelector(".queue-other-box").hidden = !named.length;
    select.innerHTML = named.map((list) => `<option value="${list.id}">${escapeHTML(list.name)}</option>`).join("");
  };
  box.querySelector("[data-queue-add]").addEventListener("click", () => {
    if (select.value) queues.add(item, { queueID: select.value, title }).catch(said);
  });
  queues.ready().then(paint, () => {});
}
