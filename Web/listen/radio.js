// Listen's radio (/listen/radio): radio-browser's top stations, search by name, and your favourite
// stations (favoriteRadioStations). A station plays in the deck's music player (relayed by the
// server, its other address tried when the stream fails); a click is counted with radio-browser
// once it really plays. Like every player here it comes back paused after the app is closed.

import { api, ApiError } from "../api.js";
import { icon } from "../areas.js";
import { announce, escapeHTML } from "../dom.js";
import { deck, stationTrack } from "./deck.js";

const BACK_ICON = "M15 18l-6-6 6-6";
const HEART_ICON = "M12 20s-7-4.4-7-10a4 4 0 0 1 7-2.6A4 4 0 0 1 19 10c0 5.6-7 10-7 10z";
const RADIO_ICON = "M4 9h16v11H4zM8 9l8-5M8 14.5h.01M12 13h5M12 16h5";

export function renderRadio(container) {
  const page = new RadioPage(container);
  return () => page.close();
}

class RadioPage {
  constructor(container) {
    this.container = container;
    this.closed = false;
    this.favourites = [];
    this.stations = [];
    container.innerHTML = `
      <section class="radio" aria-labelledby="radio-heading">
        <a class="back-link" href="/listen" data-link>${icon(BACK_ICON, 20)}<span>Library</span></a>
        <h1 id="radio-heading">Radio</h1>
        <form class="podcast-search" role="search">
          <label class="sr-only" for="radio-q">Find a station</label>
          <input id="radio-q" name="q" type="search" maxlength="100" placeholder="Find a station by name" autocomplete="off">
          <button class="button primary" type="submit">Search</button>
        </form>
        <p class="radio-playing" role="status"></p>
        <h2 class="podcasts-subheading">Favourites</h2>
        <ul class="station-list" data-favourites aria-label="Favourite stations"></ul>
        <h2 class="podcasts-subheading" data-results-heading>Top stations</h2>
        <p class="radio-status" role="status">Loading stations…</p>
        <ul class="station-list" data-results aria-label="Stations"></ul>
      </section>`;
    const form = container.querySelector("form");
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.load(form.elements.q.value.trim());
    });
    this.onDeck = () => this.paintPlaying();
    deck.music.addEventListener("change", this.onDeck);
    this.loadFavourites();
    this.load("");
  }

  close() {
    this.closed = true;
    deck.music.removeEventListener("change", this.onDeck);
  }

  async loadFavourites() {
    try {
      this.favourites = (await api("/api/radio/favourites")).stations;
    } catch {
      this.favourites = [];
    }
    if (!this.closed) { this.paint(); this.paintPlaying(); }
  }

  async load(text) {
    const status = this.container.querySelector(".radio-status");
    this.container.querySelector("[data-results-heading]").textContent = text ? "Stations found" : "Top stations";
    status.textContent = text ? "Searching…" : "Loading stations…";
    status.classList.remove("error");
    try {
      this.stations = (await api(`/api/radio/stations${text ? `?q=${encodeURIComponent(text)}` : ""}`)).stations;
    } catch (error) {
      if (this.closed) return;
      this.stations = [];
      status.textContent = error instanceof ApiError ? error.message : "Stations could not be loaded. Try again.";
      status.classList.add("error");
      this.paint();
      return;
    }
    if (this.closed) return;
    status.textContent = this.stations.length ? "" : text ? `No station called “${text}”. Try fewer words.` : "radio-browser lists no stations right now.";
    this.paint();
  }

  row(station) {
    const favourite = this.favourites.some((candidate) => candidate.id === station.id);
    const facts = [station.country, station.codec && station.bitrate ? `${station.codec} ${station.bitrate} kb/s` : station.codec, station.tags.slice(0, 3).join(", ")].filter(Boolean);
    return `
      <li class="station" data-station="${escapeHTML(station.id)}">
        ${station.favicon
          ? `<img class="podcast-art" src="/api/artwork?url=${encodeURIComponent(station.favicon)}" alt="" loading="lazy">`
          : `<span class="podcast-art podcast-art-empty" aria-hidden="true">${icon(RADIO_ICON, 26)}</span>`}
        <span class="podcast-text">
          <span class="podcast-title">${escapeHTML(station.name)}</span>
          <span class="podcast-meta">${escapeHTML(facts.join(" · "))}</span>
        </span>
        <button class="button small primary" type="button" data-play>Play</button>
        <button class="icon-button" type="button" data-favourite aria-pressed="${favourite}" aria-label="${favourite ? `Remove ${escapeHTML(station.name)} from favourites` : `Add ${escapeHTML(station.name)} to favourites`}">${icon(HEART_ICON, 22)}</button>
      </li>`;
  }

  paint() {
    const favourites = this.container.querySelector("[data-favourites]");
    favourites.innerHTML = this.favourites.length ? this.favourites.map((station) => this.row(station)).join("")
      : `<li class="podcast-empty">No favourites yet: tap the heart beside a station to keep it here.</li>`;
    this.container.querySelector("[data-results]").innerHTML = this.stations.map((station) => this.row(station)).join("");
    for (const row of this.container.querySelectorAll("[data-station]")) {
      const station = () => [...this.favourites, ...this.stations].find((candidate) => candidate.id === row.dataset.station);
      row.querySelector("[data-play]").addEventListener("click", () => this.play(station()));
      row.querySelector("[data-favourite]").addEventListener("click", () => this.toggleFavourite(station()));
    }
  }

  paintPlaying() {
    const line = this.container.querySelector(".radio-playing");
    const track = deck.music.track;
    if (!line) return;
    if (!track?.live) { line.textContent = ""; line.classList.remove("error"); return; }
    line.textContent = deck.music.error || `${deck.music.playing ? "Playing" : "Paused"}: ${track.title}`;
    line.classList.toggle("error", Boolean(deck.music.error));
  }

  async play(station) {
    const line = this.container.querySelector(".radio-playing");
    line.classList.remove("error");
    line.textContent = `Tuning in to ${station.name}…`;
    await deck.music.load([stationTrack(station)], 0, { play: true });
    // Counted with radio-browser once it really plays.
    const counted = () => api(`/api/radio/stations/${station.id}/click`, { method: "POST" }).catch(() => {});
    if (deck.music.playing) counted();
    else deck.music.transport.on("playing", counted, { once: true });
    announce(`Playing ${station.name}.`);
  }

  async toggleFavourite(station) {
    const favourite = this.favourites.some((candidate) => candidate.id === station.id);
    try {
      if (favourite) {
        await api(`/api/radio/favourites/${station.id}`, { method: "DELETE" });
        this.favourites = this.favourites.filter((candidate) => candidate.id !== station.id);
      } else {
        this.favourites = (await api(`/api/radio/favourites/${station.id}`, { method: "PUT" })).stations;
      }
      if (this.closed) return;
      this.paint();
      announce(favourite ? `${station.name} removed from favourites.` : `${station.name} added to favourites.`);
    } catch (error) {
      if (this.closed) return;
      const status = this.container.querySelector(".radio-status");
      status.textContent = error.message;
      status.classList.add("error");
    }
  }
}
