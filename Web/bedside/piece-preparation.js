// A Bedside piece on its way: chosen from the pool (or the one chosen in My Content), then spoken by
// the server's speech pipeline, heard as it is spoken (its live stream, from its first byte to its
// end, so no script hands it on from an opening: issue 46). It goes on
// while the person changes their mind, so a start of the same mode with the same voice takes it up
// where it is (issue 31): a tap, a tap for Off, a tap again, and it plays from its start at once again,
// without choosing another piece or asking for a second render.

import { api } from "../api.js";
import { speak } from "../speech.js";
import { downloads } from "../player/downloads.js";
import { ROOMS } from "./scene.js";

/** The room sounds and the alarm's chime: kept with a downloaded pool, for a night with no network. */
const BEDSIDE_SOUNDS = [...ROOMS.map((room) => room.id), "chime"];

/** The download key of a kind's pool in a voice. */
export function poolKey(kind, { voice, rate }) {
  return `bedside:${kind}:${voice || "default"}:${rate}`;
}

/** The pool of `kind` downloaded in this voice, or null: { pieces: [{ piece, audioURL, timeline }] }. */
function keptPool(kind, settings) {
  const record = downloads.get(poolKey(kind, settings));
  return record?.status === "ready" && record.meta?.pieces?.length ? record.meta : null;
}

/** A piece of the kept pool, at random (the server's no-repeat order needs the server). */
function randomKept(pool) {
  return pool.pieces[Math.floor(Math.random() * pool.pieces.length)].piece;
}

/**
 * What downloading a pool keeps: every piece of `kind` (the person's and the presets) spoken in
 * `settings`' voice, each with its timeline, and the room sounds. `progress(text)` hears how far.
 */
export async function poolDownload(kind, settings, progress) {
  const { mine, presets } = await api(`/api/bedside/pieces?kind=${kind}`);
  const pieces = [];
  const all = [...mine, ...presets];
  for (const [index, piece] of all.entries()) {
    progress(`Speaking ${index + 1} of ${all.length}…`);
    const { render, timeline } = await speak(piece.script, settings);
    pieces.push({ piece, audioURL: render.audioURL, timeline });
  }
  const files = [
    ...pieces.map((entry) => ({ url: entry.audioURL, type: "audio/mp4" })),
    ...BEDSIDE_SOUNDS.map((sound) => ({ url: `/api/bedside/sounds/${sound}`, type: "audio/mp4" })),
  ];
  const noun = kind === "poem" ? "poems" : "meditations";
  return { area: "bedside", title: `Bedside ${noun} (${all.length}) and room sounds`, files, meta: { kind, ...settings, pieces } };
}

/** One piece being chosen and spoken; the player decides what plays and when. */
export class PiecePreparation {
  /**
   * Begins at once: a random piece of `kind` ("meditation" or "poem"), or `piece` when one was
   * chosen, spoken with `settings` ({ voice, rate }).
   */
  constructor(kind, settings, piece = null) {
    this.kind = kind;
    this.settings = settings;
    this.piece = piece;
    this.live = null;       // where the whole plays as it is spoken, while it is
    this.done = false;      // the whole render and its timeline are here
    this.begun = false;     // the piece has sounded: nobody takes it up again
    this.dropped = false;   // nobody will: it lets go of its render
    this.letGo = new AbortController();  // aborted when dropped: the server stops speaking it at once
    this.watcher = null;
    /** Resolves with { piece, render, timeline } once the whole is spoken. */
    this.spoken = this.prepare();
    this.spoken.then(() => { this.done = true; }, () => {});
  }

  /** Whether a start of `kind` with `settings` may take this one up. */
  suits(kind, settings) {
    return !this.dropped && !this.begun && this.kind === kind
      && this.settings.voice === settings.voice && this.settings.rate === settings.rate;
  }

  /**
   * `watcher` ({ piece(piece), progress(fraction), live(url) }, each optional) hears what
   * happens from now on, and at once what already happened: the piece chosen, and where it is
   * heard as it is spoken while it still is. The watcher before it hears no more.
   */
  watch(watcher) {
    this.watcher = watcher;
    if (this.piece) watcher.piece?.(this.piece);
    if (this.live && !this.done) watcher.live?.(this.live);
  }

  /**
   * Nobody will take this one up: it lets go of its render (`spoken` rejects, "AbortError"), and
   * the server, told at once, stops speaking it and no longer counts it among the person's renders.
   */
  drop() {
    this.dropped = true;
    this.watcher = null;
    this.letGo.abort();
  }

  async prepare() {
    // The pool downloaded for offline, in this voice: played from the device, nothing spoken.
    const pool = keptPool(this.kind, this.settings);
    if (!this.piece) {
      let piece;
      try {
        piece = await api("/api/bedside/next", { method: "POST", body: { kind: this.kind } });
      } catch (problem) {
        if (problem.status !== 0 || !pool) throw problem;
        piece = randomKept(pool);
      }
      if (this.dropped) throw Object.assign(new Error("Stopped."), { name: "AbortError" });
      this.piece = piece;
      this.watcher?.piece?.(piece);
    }
    const kept = pool?.pieces.find((entry) => entry.piece.id === this.piece.id && entry.piece.script === this.piece.script);
    if (kept) return { piece: this.piece, render: { audioURL: kept.audioURL }, timeline: kept.timeline };
    const spoken = await speak(this.piece.script, this.settings, {
      progress: (fraction) => this.watcher?.progress?.(fraction),
      live: (url) => {
        this.live = url;
        this.watcher?.live?.(url);
      },
      signal: this.letGo.signal,
    });
    return { piece: this.piece, ...spoken };
  }
}
