// Bedside's pieces: a meditation or poem spoken by the server's speech pipeline with the room's
// sound under the voice, the captions following the audio's own clock, the listening log, the lock
// screen, and the fade when the Leaf/Masks machine stops a piece. A piece's opening plays as soon
// as the server has spoken it, while the rest is spoken, and the whole render goes on from where
// the opening ended (issue 31).

import { announce } from "../dom.js";
import { lockScreenOwner } from "../player/media-session.js";
import { artwork } from "../player/player.js";
import { record } from "../player/progress.js";
import { MediaLevel } from "../player/volume.js";
import { captionAt, captionHTML, continueAfterOpening, follow, holdsOpening, playOpening } from "../speech.js";
import * as mode from "./mode.js";
import { PiecePreparation } from "./piece-preparation.js";
import { COLORS, ICONS, MODE_NAME } from "./scene.js";

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
    this.voice = new Audio();
    this.voice.preload = "auto";
    this.voice.className = "bs-voice";
    this.voiceLevel = new MediaLevel(this.voice);  // the fade when a piece stops: a gain where volume is fixed (iOS)
    this.shown = null;          // {piece, modeName} on the lock screen
    // A piece holds the lock screen while it plays or is paused; it gives it back when it stops.
    this.claim = lockScreenOwner.claim("Bedside", {
      metadata: () => this.lockScreenMetadata(),
      isPlaying: () => Boolean(this.voice.getAttribute("src")) && !this.voice.paused,
      position: () => ({ duration: this.voice.duration, position: this.voice.currentTime, playbackRate: this.voice.playbackRate }),
      handlers: {
        play: () => { if (this.voice.getAttribute("src")) this.voice.play().catch(() => {}); },
        pause: () => this.voice.pause(),
      },
    });
  }

  /** Follows the voice once the scene is drawn. */
  mount() {
    this.voice.addEventListener("ended", () => this.pieceEnded());
    for (const event of ["play", "pause"]) this.voice.addEventListener(event, () => this.claim.update());
    this.unfollow = follow(this.voice, () => this.paintCaption());
  }

  close() {
    this.token += 1;
    this.dropPreparation();
    if (this.unfollow) this.unfollow();
    this.voice.pause();
    this.voice.removeAttribute("src");
    this.voiceLevel.close();
    this.claim.release();
  }

  get root() { return this.bedside.root; }

  /**
   * Speaks a random piece of `modeName` (or the one chosen in My Content): the room's sound at
   * once, the piece's opening as soon as it is spoken, and the whole render from where the opening
   * ended once it is ready. A piece still on its way for this mode and voice is taken up.
   */
  async start(modeName) {
    const token = ++this.token;
    const live = () => token === this.token;
    this.leavePiece();  // a new room or My Content's Play replaces the piece playing
    this.silenceVoice();
    this.piece = null;
    this.timeline = null;
    this.paintCaption();
    this.bedside.scene.startRoomSound();  // not after the voice: the room sounds from the tap on
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
      opening: (url) => { if (live()) this.startWithOpening(url, preparation, modeName, token); },
    });
    try {
      const prepared = await preparation.spoken;
      if (!live()) return;  // Off, or another piece: what was made waits for a start that takes it up
      this.piece = prepared.piece;
      this.timeline = prepared.timeline;
      this.showTitle(prepared.piece);
      if (holdsOpening(this.voice)) {
        // The whole goes on from where the opening ended (paused there when the person paused it).
        const now = await continueAfterOpening(this.voice, prepared.render.audioURL, { cancelled: () => !live() });
        if (!live()) return;
        this.paintCaption();
        if (preparation.begun && now === "ended") this.pieceEnded();  // the opening held all the piece says
        if (preparation.begun) return;
      } else {
        this.voice.src = prepared.render.audioURL;
      }
      this.voiceLevel.set(1);
      try {
        await this.voice.play();
      } catch (refusal) {
        if (!live()) return;
        if (refusal && refusal.name === "NotAllowedError") {
          // The browser wants a gesture first: one button offers to go on, with this piece.
          this.bedside.status("");
          this.bedside.dispatch("refused");
          return;
        }
        throw refusal;
      }
      if (!live()) return;
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

  /** Plays the opening while the rest is spoken; once it sounds, the piece has begun. */
  async startWithOpening(url, preparation, modeName, token) {
    this.voiceLevel.set(1);
    // Refused, or replaced by the whole already: the whole's own play decides.
    if (!(await playOpening(this.voice, url)) || token !== this.token) return;
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
   * nothing of it plays later; the piece on its way goes on being spoken, for a start that takes
   * it up.
   */
  silence() {
    this.token += 1;
    this.leavePiece();
    this.silenceVoice();
    this.piece = null;
    this.timeline = null;
    this.showTitle(null);
    this.paintCaption();
    this.bedside.status("");
  }

  /** Fades the voice out (its volume, or a gain ramp where the volume is fixed: iOS), then tells
   *  the machine it stopped. */
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
    if (this.piece && this.voice.currentTime > 0) record(`bedside:${this.piece.id}`, "pause", this.voice.currentTime);
  }

  silenceVoice() {
    this.voice.pause();
    this.voice.removeAttribute("src");
    this.voice.load();
    this.claim.release();
  }

  pieceEnded() {
    // An opening's end is not the piece's: the whole goes on from there when it is ready.
    if (this.bedside.machine.phase !== "playing" || holdsOpening(this.voice)) return;
    const title = this.piece ? this.piece.title : "The piece";
    if (this.piece) record(`bedside:${this.piece.id}`, "ended", this.voice.duration || this.voice.currentTime);
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
    const caption = this.timeline && this.bedside.settings.captions !== false && this.voice.src ? captionAt(this.timeline, this.voice.currentTime) : null;
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
