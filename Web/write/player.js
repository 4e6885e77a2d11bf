// The song's own player, opened by the editor's top-right button: tracks attached to the song
// (uploaded here or picked from Listen's music), a mini-player bar with a visualizer of the real
// levels (an AnalyserNode), and a sheet with the A–B loop (two handles, ±0.1 s nudges, the loop
// toggle), a practice speed that keeps the pitch, and the loop as a file. The loop points are
// saved with the song. The sound itself is ./loop.js; playing takes the lock screen and the
// headset's buttons (Web/player/media-session.js), and closing gives them back.

import { api } from "../api.js";
import { announce, escapeHTML, showError } from "../dom.js";
import { lockScreenOwner } from "../player/media-session.js";
import { sendFile } from "../upload.js";
import { loopFrames, sectionBuffer, startSource } from "./loop.js";
import { clockTenths } from "../player/time.js";

const SPEEDS = [0.5, 0.6, 0.75, 0.9, 1, 1.1, 1.25];
const NUDGE = 0.1;
const SHORTEST = 0.1;

export class SongPlayer {
  /** `host` is the editor's section: the bar goes at its top, the sheet into the page. */
  /** `onLocked(reason)` shows the paywall card for a Plus feature. */
  constructor(host, songID, onLocked = () => {}) {
    this.host = host;
    this.onLocked = onLocked;
    this.songID = songID;
    this.tracks = [];
    this.current = null;   // the track loaded
    this.buffers = new Map();  // "<trackID>@<speed>" → AudioBuffer
    this.speed = 1;
    this.position = 0;      // seconds of the track, where a pause left it
    this.playing = null;    // { source, startedAt, offset, section: {first, end, rate} | null }
    this.saveLoop = null;
    // A pause keeps the lock screen (its play goes on from the same place); closing gives it back.
    this.claim = lockScreenOwner.claim("Song", {
      metadata: () => (this.current ? {
        title: this.current.title, artist: this.current.artist || "", album: "Write",
        artwork: [{ src: "/icons/icon-512.png", sizes: "512x512", type: "image/png" }],
      } : null),
      isPlaying: () => Boolean(this.playing),
      handlers: {
        play: () => { if (!this.playing) this.start(this.position); },
        pause: () => this.stop(),
      },
    });
  }

  get base() { return `/api/compositions/${this.songID}/tracks`; }

  /** The song's id once the server has it (a new song gets one on its first save). */
  setSong(id) { this.songID = id; }

  html() {
    return `
      <div class="mini-player" data-mini hidden>
        <button class="icon-button play-toggle" type="button" data-toggle aria-label="Play">▶</button>
        <button class="mini-title" type="button" data-expand aria-label="Open the player"><strong data-mini-title></strong><span class="meta" data-mini-artist></span></button>
        <canvas class="visualizer" width="96" height="32" data-visualizer aria-hidden="true"></canvas>
        <span class="loop-count meta" data-loop-count></span>
      </div>`;
  }

  /** Wires the bar (already in the page) and the top-right button. */
  wire(button) {
    this.bar = this.host.querySelector("[data-mini]");
    this.canvas = this.bar.querySelector("[data-visualizer]");
    this.bar.querySelector("[data-toggle]").addEventListener("click", () => this.toggle());
    this.bar.querySelector("[data-expand]").addEventListener("click", () => this.openSheet());
    button.addEventListener("click", () => this.openSheet());
  }

  // MARK: - The sheet

  async openSheet() {
    if (!this.songID) {
      announce("Type a line first: the song is saved, then tracks can be attached.");
      return;
    }
    if (!this.sheet) this.buildSheet();
    if (!this.sheet.open) this.sheet.showModal();
    await this.loadTracks();
  }

  buildSheet() {
    const sheet = document.createElement("dialog");
    sheet.className = "dialog bs-sheet player-sheet";
    sheet.setAttribute("aria-labelledby", "player-heading");
    sheet.innerHTML = `
      <div class="bs-sheet-head"><h2 id="player-heading">Player</h2>
        <button class="button small" type="button" data-close>Done</button></div>
      <ul class="list track-list" data-tracks><li class="list-empty">Loading…</li></ul>
      <div class="attach-row">
        <label class="button file-button">Upload a track<input type="file" accept=".mp3,.m4a,.mp4,audio/mpeg,audio/mp4" data-upload></label>
        <select aria-label="From your music" data-music><option value="">From your music…</option></select>
      </div>
      <button class="plus-link" type="button" data-streaming>From a streaming service <span class="plus-badge">Plus · coming</span></button>
      <p class="meta" data-upload-state hidden></p>
      <p class="form-error" role="alert" hidden></p>
      <section class="loop-panel" data-panel hidden aria-label="Loop">
        <div class="transport">
          <button class="button primary play-toggle" type="button" data-toggle aria-label="Play">▶</button>
          <span class="time" data-time>0:00.0</span>
          <label class="switch"><input type="checkbox" data-loop> Loop A–B</label>
        </div>
        <div class="scrubber" data-scrubber>
          <div class="scrubber-track"><span class="scrubber-loop" data-span></span><span class="scrubber-head" data-head></span></div>
          <input type="range" min="0" step="0.01" aria-label="A: loop start" data-handle="start">
          <input type="range" min="0" step="0.01" aria-label="B: loop end" data-handle="end">
        </div>
        <div class="nudges">
          <span class="nudge-group"><strong>A</strong> <output data-out="start"></output>
            <button class="button small" type="button" data-nudge="start" data-by="-0.1" aria-label="A 0.1 seconds earlier">−0.1</button>
            <button class="button small" type="button" data-nudge="start" data-by="0.1" aria-label="A 0.1 seconds later">+0.1</button>
            <button class="button small" type="button" data-here="start">Set here</button></span>
          <span class="nudge-group"><strong>B</strong> <output data-out="end"></output>
            <button class="button small" type="button" data-nudge="end" data-by="-0.1" aria-label="B 0.1 seconds earlier">−0.1</button>
            <button class="button small" type="button" data-nudge="end" data-by="0.1" aria-label="B 0.1 seconds later">+0.1</button>
            <button class="button small" type="button" data-here="end">Set here</button></span>
        </div>
        <label class="speed-row">Speed <output data-speed-out>1×</output>
          <input type="range" min="0" max="${SPEEDS.length - 1}" step="1" value="${SPEEDS.indexOf(1)}" aria-label="Speed (pitch kept)" data-speed></label>
        <p class="hint">Pitch stays the same at every speed. <a data-download download>Download the loop ×8</a> (FLAC) to practise away from here.</p>
      </section>`;
    document.body.append(sheet);
    this.sheet = sheet;
    const $ = (selector) => sheet.querySelector(selector);
    $("[data-close]").addEventListener("click", () => sheet.close());
    $("[data-streaming]").addEventListener("click", () => {
      sheet.close();
      this.onLocked("Music integrations (streaming services beside your own files) are coming to Plus; they are not built yet, so no plan has them.");
    });
    $("[data-toggle]").addEventListener("click", () => this.toggle());
    $("[data-upload]").addEventListener("change", (event) => this.upload(event.target.files[0]));
    $("[data-music]").addEventListener("change", (event) => { if (event.target.value) this.attach(event.target.value); });
    $("[data-tracks]").addEventListener("click", (event) => {
      const pick = event.target.closest("[data-pick]");
      if (pick) this.select(this.tracks.find((track) => track.id === pick.dataset.pick));
      const detach = event.target.closest("[data-detach]");
      if (detach) this.detach(detach.dataset.detach);
    });
    $("[data-loop]").addEventListener("change", (event) => this.setLoop({ enabled: event.target.checked }));
    for (const handle of sheet.querySelectorAll("[data-handle]")) {
      handle.addEventListener("input", () => this.setLoop({ [handle.dataset.handle]: Number(handle.value) }, handle.dataset.handle));
    }
    for (const button of sheet.querySelectorAll("[data-nudge]")) {
      button.addEventListener("click", () => {
        const which = button.dataset.nudge;
        this.setLoop({ [which]: this.loop()[which] + Number(button.dataset.by) }, which);
      });
    }
    for (const button of sheet.querySelectorAll("[data-here]")) {
      button.addEventListener("click", () => this.setLoop({ [button.dataset.here]: this.now() }, button.dataset.here));
    }
    $("[data-speed]").addEventListener("input", (event) => this.setSpeed(SPEEDS[Number(event.target.value)]));
  }

  error(problem) {
    if (this.sheet) showError(this.sheet.querySelector(".form-error"), problem);
  }

  async loadTracks() {
    this.error(null);
    try {
      const [tracks, music] = await Promise.all([api(this.base), api("/api/library?kind=music")]);
      this.tracks = tracks;
      this.music = music.items;
    } catch (problem) {
      this.error(problem);
      return;
    }
    if (this.current) this.current = this.tracks.find((track) => track.id === this.current.id) || null;
    if (!this.current && this.tracks.length) await this.select(this.tracks[0], { quiet: true });
    this.paintTracks();
    this.paintPanel();
  }

  paintTracks() {
    const list = this.sheet.querySelector("[data-tracks]");
    list.innerHTML = this.tracks.length ? this.tracks.map((track) => `
      <li class="list-item track${this.current && this.current.id === track.id ? " current" : ""}">
        <button class="track-pick" type="button" data-pick="${track.id}" aria-pressed="${this.current && this.current.id === track.id}">
          <strong>${escapeHTML(track.title)}</strong><span class="meta">${escapeHTML(track.artist || "Unknown artist")} · ${clockTenths(track.durationMs / 1000)}</span></button>
        <button class="button small" type="button" data-detach="${track.id}" aria-label="Detach ${escapeHTML(track.title)}">Detach</button>
      </li>`).join("")
      : `<li class="list-empty">No tracks yet. Attach the beat or demo you are writing to: upload one, or pick it from your music in Listen.</li>`;
    const attached = new Set(this.tracks.map((track) => track.itemID));
    const choices = (this.music || []).filter((item) => !attached.has(item.id));
    const select = this.sheet.querySelector("[data-music]");
    select.innerHTML = `<option value="">${choices.length ? "From your music…" : "No other music in Listen"}</option>`
      + choices.map((item) => `<option value="${item.id}">${escapeHTML(item.title)}${item.author ? ` — ${escapeHTML(item.author)}` : ""}</option>`).join("");
    select.disabled = !choices.length;
  }

  async upload(file) {
    if (!file) return;
    const state = this.sheet.querySelector("[data-upload-state]");
    state.hidden = false;
    this.error(null);
    try {
      const result = await sendFile("/api/library?kind=music", file, (fraction) => {
        state.textContent = fraction >= 1 ? `Reading ${file.name}…` : `Uploading ${file.name}: ${Math.round(fraction * 100)}%`;
      });
      await this.attach(result.item.id);
    } catch (problem) {
      this.error(problem);
    } finally {
      state.hidden = true;
      this.sheet.querySelector("[data-upload]").value = "";
    }
  }

  async attach(itemID) {
    try {
      const track = await api(this.base, { method: "POST", body: { itemID } });
      announce(`${track.title} is attached to this song.`);
      this.current = null;
      this.stop();
      await this.loadTracks();
      await this.select(this.tracks.find((one) => one.id === track.id));
    } catch (problem) {
      this.error(problem);
    }
  }

  async detach(trackID) {
    const track = this.tracks.find((one) => one.id === trackID);
    try {
      await api(`${this.base}/${trackID}`, { method: "DELETE" });
    } catch (problem) {
      this.error(problem);
      return;
    }
    if (this.current && this.current.id === trackID) {
      this.stop();
      this.current = null;
      this.bar.hidden = true;
      this.claim.release();
    }
    announce(`${track ? track.title : "The track"} is detached; it stays in your music.`);
    await this.loadTracks();
  }

  /** Makes `track` the one the player plays (loaded now, so Play starts at once). */
  async select(track, { quiet = false } = {}) {
    if (!track) return;
    if (this.current && this.current.id !== track.id) this.stop();
    if (!this.current || this.current.id !== track.id) this.position = track.loop && track.loop.enabled ? track.loop.start : 0;
    this.current = track;
    this.bar.querySelector("[data-mini-title]").textContent = track.title;
    this.bar.querySelector("[data-mini-artist]").textContent = track.artist || "";
    this.bar.hidden = false;
    if (this.sheet) { this.paintTracks(); this.paintPanel(); }
    try {
      await this.buffer();
    } catch (problem) {
      if (!quiet) this.error(problem);
    }
  }

  /** The A–B loop of the current track, with defaults: the whole track, off. */
  loop() {
    const duration = this.current.durationMs / 1000;
    return this.current.loop || { start: 0, end: duration, enabled: false };
  }

  paintPanel() {
    const panel = this.sheet.querySelector("[data-panel]");
    panel.hidden = !this.current;
    if (!this.current) return;
    const duration = this.current.durationMs / 1000;
    const loop = this.loop();
    for (const handle of panel.querySelectorAll("[data-handle]")) {
      handle.max = String(duration);
      handle.value = String(loop[handle.dataset.handle]);
    }
    panel.querySelector('[data-out="start"]').textContent = clockTenths(loop.start);
    panel.querySelector('[data-out="end"]').textContent = clockTenths(loop.end);
    panel.querySelector("[data-loop]").checked = loop.enabled;
    const span = panel.querySelector("[data-span]");
    span.style.left = `${(loop.start / duration) * 100}%`;
    span.style.width = `${((loop.end - loop.start) / duration) * 100}%`;
    span.classList.toggle("on", loop.enabled);
    panel.querySelector("[data-speed-out]").textContent = `${this.speed}×`;
    const download = panel.querySelector("[data-download]");
    download.hidden = !this.current.loop;
    download.href = `${this.base}/${this.current.id}/loop?repeats=8`;
    this.paintTime();
  }

  /**
   * Moves A or B (or turns the loop on or off), keeping B at least 0.1 s after A, and saves it
   * with the song a moment later. A loop playing now restarts from where it is.
   */
  setLoop(change, moved) {
    const duration = this.current.durationMs / 1000;
    const loop = { ...this.loop(), ...change };
    loop.start = Math.round(Math.min(Math.max(0, loop.start), duration - SHORTEST) * 100) / 100;
    loop.end = Math.round(Math.min(Math.max(loop.end, 0), duration) * 100) / 100;
    if (loop.end - loop.start < SHORTEST) {
      if (moved === "end") loop.end = Math.min(duration, loop.start + SHORTEST);
      else loop.start = Math.max(0, loop.end - SHORTEST);
      if (loop.end - loop.start < SHORTEST) loop.end = loop.start + SHORTEST;
    }
    const here = this.now();
    this.current.loop = loop;
    this.paintPanel();
    if (this.playing) this.start(loop.enabled && (here < loop.start || here >= loop.end) ? loop.start : here);
    clearTimeout(this.saveLoop);
    this.pendingLoop = { track: this.current, loop };
    this.saveLoop = setTimeout(() => this.flushLoop(), 400);
    if (change.enabled !== undefined) announce(loop.enabled ? `Looping ${clockTenths(loop.start)} to ${clockTenths(loop.end)}.` : "Loop off.");
  }

  /** Saves the loop points waiting to be saved. */
  flushLoop() {
    clearTimeout(this.saveLoop);
    const pending = this.pendingLoop;
    this.pendingLoop = null;
    if (!pending) return;
    api(`${this.base}/${pending.track.id}/loop`, { method: "PUT", body: pending.loop })
      // The server's copy, unless the person moved A or B again meanwhile: an answer that comes
      // late (a slow server) must not put back the points they have just moved away from.
      .then((saved) => { if (pending.track.loop === pending.loop) pending.track.loop = saved.loop; })
      .catch((problem) => this.error(new Error(`The loop was not saved: ${problem.message}`)));
  }

  async setSpeed(speed) {
    const here = this.now();
    const wasPlaying = !!this.playing;
    this.stop(here);
    this.speed = speed;
    this.sheet.querySelector("[data-speed-out]").textContent = `${speed}× (loading…)`;
    try {
      await this.buffer();
      if (wasPlaying) await this.start(here);
    } catch (problem) {
      this.error(problem);
    }
    this.paintPanel();
  }

  // MARK: - Sound

  audioContext() {
    if (!this.context) {
      this.context = new AudioContext();
      this.analyser = this.context.createAnalyser();
      this.analyser.fftSize = 256;
      this.analyser.smoothingTimeConstant = 0.7;
      this.analyser.connect(this.context.destination);
    }
    return this.context;
  }

  /** The current track decoded at the current speed (fetched once each). */
  async buffer() {
    const key = `${this.current.id}@${this.speed}`;
    if (!this.buffers.has(key)) {
      const context = this.audioContext();
      const url = `${this.base}/${this.current.id}/audio${this.speed === 1 ? "" : `?speed=${this.speed}`}`;
      const promise = fetch(url, { credentials: "same-origin" }).then(async (response) => {
        if (!response.ok) throw new Error(`The track cannot be loaded (the server answered ${response.status}).`);
        return context.decodeAudioData(await response.arrayBuffer());
      });
      this.buffers.set(key, promise);
      promise.catch(() => this.buffers.delete(key));
    }
    return this.buffers.get(key);
  }

  /** Where the track is now, in seconds of the track (whatever the speed). */
  now() {
    if (!this.playing) return this.position;
    const { startedAt, offset, section, rate } = this.playing;
    const played = offset + (this.context.currentTime - startedAt);
    if (!section) return Math.min(played * this.speed, this.current.durationMs / 1000);
    const length = (section.end - section.first) / rate;
    return ((section.first / rate) + (played % length)) * this.speed;
  }

  /** How many times the loop has come round since it started. */
  loopsDone() {
    if (!this.playing || !this.playing.section) return 0;
    const { startedAt, offset, section, rate } = this.playing;
    return Math.floor((offset + this.context.currentTime - startedAt) / ((section.end - section.first) / rate));
  }

  async toggle() {
    if (this.playing) this.stop();
    else await this.start(this.position);
  }

  /** Plays from `at` seconds of the track: in the loop when it is on. */
  async start(at) {
    if (!this.current) return;
    const context = this.audioContext();
    if (context.state === "suspended") await context.resume();
    let buffer;
    try {
      buffer = await this.buffer();
    } catch (problem) {
      this.error(problem);
      return;
    }
    this.stop(at);
    const loop = this.loop();
    const rate = buffer.sampleRate;
    let source, section = null, offset;
    const when = context.currentTime;
    if (loop.enabled) {
      // Seconds of the buffer are seconds of the track divided by the speed.
      section = loopFrames(buffer, loop.start / this.speed, loop.end / this.speed);
      const inside = at >= loop.start && at < loop.end ? at / this.speed : section.first / rate;
      offset = Math.max(0, inside - section.first / rate);
      source = startSource(context, this.analyser, sectionBuffer(context, buffer, section.first, section.end), { loop: true, offset, when });
    } else {
      offset = Math.min(at, this.current.durationMs / 1000) / this.speed;
      if (offset >= buffer.duration - 0.05) offset = 0;
      source = startSource(context, this.analyser, buffer, { offset, when });
      source.addEventListener("ended", () => {
        if (this.playing && this.playing.source === source) this.stop(0);
      });
    }
    this.playing = { source, startedAt: when, offset, section, rate };
    this.claim.take();
    this.levelColour = getComputedStyle(this.canvas).color;  // read once, not every frame
    this.paintToggles();
    this.tick();
  }

  /** Stops the sound, keeping the place (or `at`). */
  stop(at) {
    if (this.playing) {
      const place = this.now();
      const { source } = this.playing;
      this.playing = null;
      try { source.stop(); } catch { /* never started */ }
      source.disconnect();
      this.position = at ?? place;
    } else if (at !== undefined) {
      this.position = at;
    }
    cancelAnimationFrame(this.frame);
    this.paintToggles();
    this.paintTime();
    this.drawLevels(true);
    this.claim.update();
  }

  paintToggles() {
    for (const root of [this.bar, this.sheet].filter(Boolean)) {
      for (const button of root.querySelectorAll("[data-toggle]")) {
        button.textContent = this.playing ? "❚❚" : "▶";
        button.setAttribute("aria-label", this.playing ? "Pause" : "Play");
      }
    }
  }

  /**
   * The time and playhead in the sheet (while it is open) and the bar's loop count. Runs every
   * frame while playing, beside the person's typing: it writes only what changed.
   */
  paintTime() {
    if (!this.current) return;
    if (this.sheet && this.sheet.open) {
      const here = this.now();
      const duration = this.current.durationMs / 1000;
      this.sheet.querySelector("[data-time]").textContent = `${clockTenths(here)} / ${clockTenths(duration)}`;
      this.sheet.querySelector("[data-head]").style.left = `${Math.min(100, (here / duration) * 100)}%`;
    }
    const count = this.playing && this.playing.section ? `Loop ${this.loopsDone() + 1}` : "";
    const label = this.bar.querySelector("[data-loop-count]");
    if (label.textContent !== count) label.textContent = count;
  }

  /** One frame of the bar: the levels and the time (only while playing). */
  tick() {
    cancelAnimationFrame(this.frame);
    const step = () => {
      if (!this.playing) return;
      this.paintTime();
      this.drawLevels();
      this.frame = requestAnimationFrame(step);
    };
    this.frame = requestAnimationFrame(step);
  }

  /** Sixteen bars of the analyser's spectrum, in the theme's accent. */
  drawLevels(clear = false) {
    if (!this.canvas) return;
    const g = this.canvas.getContext("2d");
    const { width, height } = this.canvas;
    g.clearRect(0, 0, width, height);
    if (clear || !this.analyser) return;
    const bins = new Uint8Array(this.analyser.frequencyBinCount);
    this.analyser.getByteFrequencyData(bins);
    const bars = 16, gap = 2, barWidth = (width - gap * (bars - 1)) / bars;
    g.fillStyle = this.levelColour;
    for (let bar = 0; bar < bars; bar += 1) {
      // Lower bins are wider apart in pitch: give the bars a roughly even share of octaves.
      const from = Math.floor((bins.length / 2) * Math.pow(bar / bars, 2));
      const to = Math.max(from + 1, Math.floor((bins.length / 2) * Math.pow((bar + 1) / bars, 2)));
      let peak = 0;
      for (let bin = from; bin < to; bin += 1) peak = Math.max(peak, bins[bin]);
      const h = Math.max(2, (peak / 255) * height);
      g.fillRect(bar * (barWidth + gap), height - h, barWidth, h);
    }
  }

  /** The editor closes: the sound stops and the sheet goes. */
  close() {
    this.flushLoop();
    this.stop();
    this.claim.release();
    if (this.sheet) this.sheet.remove();
    if (this.context) this.context.close().catch(() => {});
  }
}
