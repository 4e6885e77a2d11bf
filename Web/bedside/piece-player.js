// Bedside's pieces: a meditation or poem spoken by the server's speech pipeline with the room's
// sound under the voice, the captions following the audio's own clock, the listening log, the lock
// screen, and the fade when the Leaf/Masks machine stops a piece. A piece plays as soon as the
// server has spoken its first phrase, as one stream sent while the rest is spoken (issue 31), to
// its end with no script to hand it on, so a locked phone hears it all (issue 46). The voice plays through the playback core's transport
// (Web/player/transport.js), which also claims the lock screen for the piece.

import { announce } from "../dom.js";
import { artwork } from "../player/media-session.js";
import { record } from "../player/progress.js";
import { Transport } from "../player/transport.js";
import { MediaLevel } from "../player/volume.js";
import { captionAt, captionHTML, follow, holdsLive, playOpening } from "../speech.js";
import * as mode from "./mode.js";
import { PiecePreparation } from "./piece-preparation.js";
import { COLORS, ICONS, MODE_NAME } from "./scene.js";
import { itemKey } from "../item-key.js";

const KIND = { meditation: "meditation", poetry: "poem" };
const MODE_FOR = { meditation: "meditation", poem: "poetry" };
const FADE_SECONDS = 0.6;

/** The piece playing and its voice; `bedside` is the screen, whose machine it tells what happened. */
export class PiecePlayer {
  constructor(bedside) {
    this.bedside = bedside;
    this.token = 0;             // a start that is no longer wanted sees a newer token
    this.piece = null;
    this.timeline = null;
    this.preparation = null;    // the latest piece on its way (kept when Off came first, or the browser refused)
    this.pinned = null;         // a piece chosen in My Content to play next
    this.transport = new Transport({ name: "bedside-voice", className: "bs-voice" });
    this.voice = this.transport.element;  // the voice's <audio>, which the screen puts in the page
    // The fade when a piece stops: its volume; where that is ignored (an iPhone) the voice stays
    // out of Web Audio, at full, and stops at once, as the seed's iPhone app stops its voice.
    this.voiceLevel = new MediaLevel(this.voice);
    this.shown = null;          // {piece, modeName} on the lock screen
    // A piece holds the lock screen while it plays or is paused; it gives it back when it stops.
    // (Its state, place and play and pause buttons are the transport's.)
    this.claim = this.transport.claim("Bedside", { metadata: () => this.lockScreenMetadata() });
  }

  /** Follows the voice once the scene is drawn. */
  mount() {
    this.transport.on("ended", () => this.pieceEnded());
    this.transport.on("error", () => this.liveBroke());
    this.unfollow = follow(this.transport, () => this.paintCaption());
  }

  close() {
    this.token += 1;
    this.dropPreparation();
    if (this.unfollow) this.unfollow();
    this.transport.unload();
    this.voiceLevel.close();
    this.claim.release();
  }

  get root() { return this.bedside.root; }

  /**
   * Speaks a random piece of `modeName` (or the one chosen in My Content): the room's sound at
   * once, and the piece as soon as its first phrase is spoken, heard as it is spoken to its end
   * (the finished render, when it was done first). A piece still on its way for this mode and
   * voice is taken up.
   */
  async start(modeName) {
    const token = ++this.token;
    const live = () => token === this.token;
    this.leavePiece();  // a new room or My Content's Play replaces the piece playing
    this.silenceVoice();
    this.piece = null;
    this.timeline = null;
    this.paintCaption();
    // Not after the voice: the room sounds from the tap on. Where the browser refuses sound before
    // a gesture (a saved mode on opening), the room says so at once: "Tap to continue" shows
    // while the piece is still being spoken, not after it (issue 46).
    this.bedside.scene.startRoomSound().then((room) => {
      if (room === "needs-touch" && live() && this.bedside.machine.phase === "starting") {
        this.bedside.status("");
        this.bedside.dispatch("refused");
      }
    });
    const preparation = this.preparationFor(modeName);
    if (!preparation.piece) this.bedside.status(`Choosing a ${preparation.kind}…`);
    preparation.watch({
      piece: (piece) => {
        if (!live()) return;
        this.showTitle(piece);
        this.bedside.status(`Preparing “${piece.title}”…`);
      },
      progress: (fraction) => {
        if (live() && !preparation.begun && fraction < 1) this.bedside.status(`Preparing “${preparation.piece.title}”… ${Math.round(fraction * 100)}%`);
      },
      live: (url) => { if (live()) this.startAsSpoken(url, preparation, modeName, token); },
    });
    try {
      const prepared = await preparation.spoken;
      if (!live()) return;  // Off, or another piece: what was made waits for a start that takes it up
      this.piece = prepared.piece;
      this.timeline = prepared.timeline;
      this.showTitle(prepared.piece);
      // Heard as it was spoken: it plays on to its end, its captions shown from now.
      if (preparation.begun && holdsLive(this.transport)) return this.paintCaption();
      this.transport.load(prepared.render.audioURL);
      this.voiceLevel.set(1);
      const played = await this.transport.play();
      if (played === "aborted" || !live()) return;  // replaced or paused meanwhile
      if (played === "needs-touch") {
        // The browser wants a gesture first: one button offers to go on, with this piece.
        this.bedside.status("");
        this.bedside.dispatch("refused");
        return;
      }
      if (played === "failed") throw new Error("The piece could not play.");
      this.begin(preparation, modeName);
    } catch (problem) {
      if (problem && problem.name === "AbortError") return;
      if (this.preparation === preparation) this.dropPreparation();
      if (!live()) return;
      this.silenceVoice();  // an opening that was playing ends with it
      this.bedside.status(`${problem.message || "The piece could not play."} Tap the leaf to try again.`);
      this.bedside.dispatch("failed");
    }
  }

  /** The preparation for `modeName`: the one on its way when it suits (same mode and voice, not yet heard), else a new one. */
  preparationFor(modeName) {
    const kind = KIND[modeName];
    const settings = this.voiceSettings();
    const pinned = this.pinned && this.pinned.kind === kind ? this.pinned : null;
    this.pinned = null;
    if (!pinned && this.preparation && this.preparation.suits(kind, settings)) return this.preparation;
    this.dropPreparation();
    this.preparation = new PiecePreparation(kind, settings, pinned);
    return this.preparation;
  }

  dropPreparation() {
    if (this.preparation) this.preparation.drop();
    this.preparation = null;
  }

  /** Plays the piece as it is spoken (`url`: its live stream); once it sounds, it has begun. */
  async startAsSpoken(url, preparation, modeName, token) {
    this.voiceLevel.set(1);
    // Refused, or replaced by the finished render already: the finished one's own play decides.
    if (!(await playOpening(this.transport, url)) || token !== this.token) return;
    this.piece = preparation.piece;
    this.showTitle(preparation.piece);
    this.begin(preparation, modeName);
  }

  /** The piece sounds (its opening or the whole): the lock screen shows it and the machine hears it started. */
  begin(preparation, modeName) {
    preparation.begun = true;
    this.bedside.status("");
    this.showOnLockScreen(preparation.piece, modeName);
    announce(`${MODE_NAME[modeName]}: ${preparation.piece.title}`);
    this.bedside.dispatch("started");
  }

  /**
   * Off at once (a tap while a piece starts): the voice and its opening stop without a fade and
   * nothing of it plays later; the piece on its way goes on being spoken, for the next tap's start
   * to take up. One the next tap cannot take up (a poem: from Off it starts a meditation) is let go.
   */
  silence() {
    this.token += 1;
    if (this.preparation && this.preparation.kind !== KIND[mode.after("off")]) this.dropPreparation();
    this.leavePiece();
    this.silenceVoice();
    this.piece = null;
    this.timeline = null;
    this.showTitle(null);
    this.paintCaption();
    this.bedside.status("");
  }

  /** Fades the voice out (its volume; a stop where that is ignored: an iPhone), then tells the
   *  machine it stopped. */
  async stopPiece() {
    const token = ++this.token;
    this.dropPreparation();
    this.leavePiece();
    await this.voiceLevel.fadeTo(0, FADE_SECONDS);
    this.silenceVoice();
    this.piece = null;
    this.timeline = null;
    this.showTitle(null);
    this.paintCaption();
    if (token === this.token && !this.bedside.closed) this.bedside.dispatch("stopped");
  }

  /** The listening log keeps where the piece playing was left (stopped, or replaced by another). */
  leavePiece() {
    if (this.piece && this.transport.position > 0) record(itemKey("bedside", this.piece.id), "pause", this.transport.position);
  }

  silenceVoice() {
    this.transport.unload();
    this.claim.release();
  }

  /**
   * The piece heard as it was spoken was cut off (the network, the server, or its render failed):
   * once the finished render is there, it goes on from the same second in that; a render that
   * failed says so.
   */
  async liveBroke() {
    const preparation = this.preparation;
    if (!holdsLive(this.transport) || !preparation?.begun || this.bedside.machine.phase !== "playing") return;
    const token = this.token, at = this.transport.position;
    try {
      const prepared = await preparation.spoken;
      if (token !== this.token) return;
      this.timeline = prepared.timeline;
      this.transport.load(prepared.render.audioURL, { at });
      if ((await this.transport.play()) === "failed") throw new Error("The piece could not play.");
    } catch (problem) {
      if (token !== this.token || problem?.name === "AbortError") return;
      this.silenceVoice();
      this.bedside.status(`${problem.message || "The piece could not play."} Tap the leaf to try again.`);
      this.bedside.dispatch("failed");
    }
  }

  pieceEnded() {
    if (this.bedside.machine.phase !== "playing") return;
    this.token += 1;  // the piece is over: nothing of its start acts any more
    const title = this.piece ? this.piece.title : "The piece";
    // (One heard as it was spoken has no length but where it ended.)
    const length = Number.isFinite(this.transport.duration) ? this.transport.duration : this.transport.position;
    if (this.piece) record(itemKey("bedside", this.piece.id), "ended", length);
    this.piece = null;
    this.timeline = null;
    this.paintCaption();
    this.showTitle(null);
    this.bedside.status(`“${title}” finished.`);
    this.claim.release();
    this.bedside.dispatch("finished");
  }

  voiceSettings() {
    return { voice: this.bedside.settings.voice || "", rate: Number(this.bedside.settings.rate) || 1 };
  }

  showTitle(piece) {
    const title = this.root.querySelector(".bs-title");
    title.textContent = piece ? (piece.author ? `${piece.title} · ${piece.author}` : piece.title) : "";
    title.dataset.kind = piece ? piece.kind : "";
  }

  paintCaption() {
    if (!this.root) return;
    const box = this.root.querySelector(".bs-caption");
    const caption = this.timeline && this.bedside.settings.captions !== false && this.transport.src ? captionAt(this.timeline, this.transport.position) : null;
    box.hidden = !caption;
    const html = captionHTML(caption);
    if (box.innerHTML !== html) box.innerHTML = html;
    box.dataset.phraseStart = caption ? String(caption.phrase.startMs) : "";
    box.dataset.word = caption ? String(caption.word) : "";
  }

  /** The piece playing takes the lock screen. */
  showOnLockScreen(piece, modeName) {
    this.shown = { piece, modeName };
    this.claim.take();
  }

  lockScreenMetadata() {
    if (!this.shown) return null;
    const { piece, modeName } = this.shown;
    return {
      title: piece.title,
      artist: piece.author || "Reverie",
      album: `Bedside · ${MODE_NAME[modeName]}`,
      artwork: [{ src: artwork(COLORS[modeName], modeName === "poetry" ? ICONS.masks : ICONS.leaf), sizes: "512x512", type: "image/svg+xml" }],
    };
  }

  /** Plays a piece chosen in My Content now, in its mode. */
  playNow(piece) {
    if (mode.isBusy(this.bedside.machine)) {
      this.bedside.status("One moment: Bedside is changing pieces.");
      return;
    }
    const modeName = MODE_FOR[piece.kind];
    this.pinned = piece;
    if (this.bedside.machine.phase === "playing" && this.bedside.settings.contentCompletedSuccessfully) this.bedside.save({ contentCompletedSuccessfully: false });
    const opened = mode.opened(modeName);
    this.bedside.machine = opened.machine;
    this.bedside.scene.paintLeaf();
    this.bedside.saveMode(modeName);
    this.bedside.scene.startRoomSound();
    for (const effect of opened.effects) this.bedside.carryOut(effect);
  }
}
