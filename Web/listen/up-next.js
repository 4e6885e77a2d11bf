// Up Next (/listen/up-next): the person's queue and named lists, the same on every device (the
// server keeps them; Web/listen/queues.js). Each list plays on its own; entries are reordered by
// dragging their handle or, with the handle focused, by the arrow keys; removed with Undo.

import { icon } from "../areas.js";
import { announce, confirmDialog, escapeHTML, nameDialog } from "../dom.js";
import { deck } from "./deck.js";
import { length } from "../player/time.js";
import { kindName, queues } from "./queues.js";

const BACK_ICON = "M15 18l-6-6 6-6";
const HANDLE_ICON = "M8 6h.01M8 12h.01M8 18h.01M16 6h.01M16 12h.01M16 18h.01";
const REMOVE_ICON = "M6 6l12 12M18 6 6 18";
const KIND_ICONS = {
  episode: "M12 3a4 4 0 0 1 4 4v4a4 4 0 0 1-8 0V7a4 4 0 0 1 4-4Zm-7 8a7 7 0 0 0 14 0M12 18v3",
  book: "M6 3h11a1 1 0 0 1 1 1v16H7a2 2 0 0 1-2-2V5a2 2 0 0 1 1-2Zm-1 15a2 2 0 0 1 2-2h11",
  librivox: "M6 3h11a1 1 0 0 1 1 1v16H7a2 2 0 0 1-2-2V5a2 2 0 0 1 1-2Zm-1 15a2 2 0 0 1 2-2h11",
  article: "M5 4h14v16H5zM8 8h8M8 12h8M8 16h5",
};
const UNDO_SECONDS = 20;
const SHOWN_KEY = "upNextShown";

/** Shows the screen in `container`; returns what to call when it goes. */
export function renderUpNext(container) {
  const screen = new UpNextScreen(container);
  return () => screen.close();
}

class UpNextScreen {
  constructor(container) {
    this.container = container;
    this.closed = false;
    this.shown = sessionStorage.getItem(SHOWN_KEY);
    this.undo = null;   // {timer, queueID, entry, index}
    this.onChange = () => this.paint();
    queues.addEventListener("change", this.onChange);
    this.onTrack = () => this.paint();
    deck.speech.addEventListener("track", this.onTrack);
    // Playing and paused, as the speech player goes.
    this.onDeck = () => { const now = deck.speech.playing; if (now !== this.wasPlaying) { this.wasPlaying = now; this.paint(); } };
    deck.speech.addEventListener("change", this.onDeck);
    this.load();
  }

  close() {
    this.closed = true;
    clearTimeout(this.undo?.timer);
    queues.removeEventListener("change", this.onChange);
    deck.speech.removeEventListener("track", this.onTrack);
    deck.speech.removeEventListener("change", this.onDeck);
  }

  async load() {
    this.container.innerHTML = `<p class="loading" role="status">Loading Up Next…</p>`;
    try {
      await queues.load();
    } catch (error) {
      if (this.closed) return;
      this.container.innerHTML = `
        <section class="empty-state"><h1>Up Next</h1>
          <p role="alert">${escapeHTML(error.message)}</p>
          <button class="button" type="button" data-retry>Try again</button></section>`;
      this.container.querySelector("[data-retry]").addEventListener("click", () => this.load());
      return;
    }
    if (this.closed) return;
    this.container.innerHTML = `
      <section class="up-next" aria-labelledby="up-next-heading">
        <a class="back-link" href="/listen" data-link>${icon(BACK_ICON, 20)}<span>Listen</span></a>
        <h1 id="up-next-heading">Up Next</h1>
        <div class="queue-tabs" role="tablist" aria-label="Lists"></div>
        <div class="queue-tools">
          <button class="button primary" type="button" data-play-list>Play</button>
          <button class="button" type="button" data-new-list>New list</button>
          <button class="button" type="button" data-rename-list>Rename</button>
          <button class="button" type="button" data-remove-list>Remove list</button>
        </div>
        <p class="queue-hint" id="queue-hint">Drag <span aria-hidden="true">⋮⋮</span> to reorder, or focus it and press the up and down arrows.</p>
        <p class="listen-undo" role="status" hidden><span></span> <button class="button small" type="button">Undo</button></p>
        <p class="queue-error" role="alert" hidden></p>
        <ol class="queue-entries" id="queue-panel" role="tabpanel"></ol>
        <div class="queue-empty empty-state" hidden></div>
      </section>`;
    const $ = (selector) => this.container.querySelector(selector);
    $("[data-play-list]").addEventListener("click", () => this.play());
    $("[data-new-list]").addEventListener("click", () => this.newList());
    $("[data-rename-list]").addEventListener("click", () => this.renameList());
    $("[data-remove-list]").addEventListener("click", () => this.removeList());
    $(".listen-undo button").addEventListener("click", () => this.undoRemove());
    this.paint();
  }

  get list() {
    return queues.list(this.shown) ?? queues.main;
  }

  paint() {
    if (this.closed || !this.container.querySelector(".up-next")) return;
    if (this.dragging) { this.repaintAfterDrag = true; return; }
    const $ = (selector) => this.container.querySelector(selector);
    const list = this.list;
    if (!list) return;
    const tabs = $(".queue-tabs");
    const tabFocused = tabs.contains(document.activeElement);
    tabs.innerHTML = queues.lists.map((known) => `
      <button type="button" role="tab" data-list="${known.id}" aria-controls="queue-panel" aria-selected="${known.id === list.id}" tabindex="${known.id === list.id ? 0 : -1}">${escapeHTML(known.name)} <span class="count">${known.entries.length}</span></button>`).join("");
    const show = (id) => {
      this.shown = id;
      sessionStorage.setItem(SHOWN_KEY, id);
      this.paint();
      tabs.querySelector(`[data-list="${id}"]`)?.focus();
    };
    const all = [...tabs.querySelectorAll("[data-list]")];
    for (const [index, tab] of all.entries()) {
      tab.addEventListener("click", () => show(tab.dataset.list));
      // Arrow keys move between the lists, as tabs do.
      tab.addEventListener("keydown", (event) => {
        const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
        if (!step) return;
        event.preventDefault();
        show(all[(index + step + all.length) % all.length].dataset.list);
      });
    }
    if (tabFocused) tabs.querySelector('[aria-selected="true"]')?.focus();
    $(".queue-entries").setAttribute("aria-label", list.name);
    $("[data-rename-list]").hidden = list.main;
    $("[data-remove-list]").hidden = list.main;
    const playing = queues.playing(list.id);
    $("[data-play-list]").disabled = !list.entries.length;
    $("[data-play-list]").textContent = playing ? (deck.speech.playing ? "Pause" : "Resume") : `Play ${list.main ? "Up Next" : list.name}`;
    const current = playing ? queues.currentEntry : null;
    const entries = $(".queue-entries");
    // A repaint keeps the focus where it was (a handle moved by the keyboard stays in hand).
    const focused = entries.contains(document.activeElement) ? document.activeElement : null;
    const keep = focused ? { entry: focused.closest("[data-entry]")?.dataset.entry, control: [...focused.attributes].find((a) => a.name.startsWith("data-"))?.name } : null;
    const empty = $(".queue-empty");
    empty.hidden = list.entries.length > 0;
    entries.hidden = !list.entries.length;
    $(".queue-hint").hidden = list.entries.length < 2;
    empty.innerHTML = list.main
      ? `<p>Nothing in Up Next.</p><p>Choose <strong>Play Next</strong> or <strong>Add to Up Next</strong> on an episode, a book, a LibriVox book or an article, and it waits here, in the same order on every device.</p>`
      : `<p>“${escapeHTML(list.name)}” is empty.</p><p>Choose it under <strong>Add to a list…</strong> on an episode, a book or an article.</p>`;
    entries.innerHTML = list.entries.map((entry, index) => {
      const facts = [entry.detail, kindName(entry.kind), entry.duration ? length(entry.duration) : null].filter(Boolean).map(escapeHTML).join(" · ");
      const now = entry.id === current;
      return `
        <li class="queue-entry${now ? " current" : ""}" data-entry="${entry.id}">
          <button class="icon-button queue-handle" type="button" data-handle aria-label="Move “${escapeHTML(entry.title)}”, ${index + 1} of ${list.entries.length}" aria-describedby="queue-hint">${icon(HANDLE_ICON, 22)}</button>
          <button class="queue-open" type="button" data-play-entry aria-label="Play “${escapeHTML(entry.title)}”${now ? `, ${deck.speech.playing ? "playing" : "paused"}` : ""}">
            <span class="queue-kind" aria-hidden="true">${icon(KIND_ICONS[entry.kind] ?? KIND_ICONS.book, 22)}</span>
            <span class="queue-text"><span class="queue-title">${escapeHTML(entry.title)}</span><span class="queue-facts">${now ? `<strong>${deck.speech.playing ? "Playing" : "Paused"}</strong> · ` : ""}${facts}</span></span>
          </button>
          <button class="icon-button" type="button" data-remove aria-label="Remove “${escapeHTML(entry.title)}” from ${escapeHTML(list.name)}">${icon(REMOVE_ICON, 20)}</button>
        </li>`;
    }).join("");
    for (const row of entries.querySelectorAll("[data-entry]")) {
      const id = row.dataset.entry;
      row.querySelector("[data-play-entry]").addEventListener("click", () => this.play(id));
      row.querySelector("[data-remove]").addEventListener("click", () => this.remove(id));
      const handle = row.querySelector("[data-handle]");
      handle.addEventListener("keydown", (event) => this.keyMove(event, id));
      handle.addEventListener("pointerdown", (event) => this.drag(event, row));
    }
    if (this.focusAfter) {
      entries.querySelector(`[data-entry="${this.focusAfter}"] [data-handle]`)?.focus();
      this.focusAfter = null;
    } else if (keep?.entry && keep.control) {
      const again = entries.querySelector(`[data-entry="${keep.entry}"] [${keep.control}]`);
      // A row that left (removed): the focus goes to Undo.
      if (again) again.focus(); else if (!$(".listen-undo").hidden) $(".listen-undo button").focus();
    }
  }

  error(message) {
    const box = this.container.querySelector(".queue-error");
    if (!box) return;
    box.textContent = message || "";
    box.hidden = !message;
  }

  async play(entryID = null) {
    const list = this.list;
    this.error("");
    if (queues.playing(list.id) && entryID == null) { deck.speech.toggle(); this.paint(); return; }
    try {
      await queues.play(list.id, entryID);
    } catch (error) {
      this.error(error.message);
    }
    this.paint();
  }

  // MARK: Reordering

  order() {
    return [...this.container.querySelectorAll(".queue-entries [data-entry]")].map((row) => row.dataset.entry);
  }

  async commit(order, moved) {
    this.focusAfter = moved;
    try {
      await queues.reorder(this.list.id, order);
    } catch (error) {
      this.error(error.status === 409 ? "The list changed on another device; this is it as it is now." : error.message);
    }
  }

  keyMove(event, id) {
    const step = event.key === "ArrowUp" ? -1 : event.key === "ArrowDown" ? 1 : 0;
    if (!step) return;
    event.preventDefault();
    const order = this.order();
    const from = order.indexOf(id), to = from + step;
    if (to < 0 || to >= order.length) return;
    order.splice(to, 0, ...order.splice(from, 1));
    const entry = this.list.entries.find((known) => known.id === id);
    announce(`“${entry?.title ?? "Item"}” moved to ${to + 1} of ${order.length}.`);
    this.commit(order, id);
  }

  /** A drag by the handle (mouse, pen or finger): the row follows the pointer among the others,
   *  and the order is sent when it is let go. */
  drag(event, row) {
    if (event.button !== 0) return;
    event.preventDefault();
    const list = row.parentElement;
    const start = this.order();
    const pointer = event.pointerId;
    row.classList.add("dragging");
    this.dragging = true;
    // (Listened for on the window: moving the row among the others ends a pointer capture.)
    const move = (moving) => {
      if (moving.pointerId !== pointer) return;
      const y = moving.clientY;
      const others = [...list.children].filter((other) => other !== row);
      const before = others.find((other) => { const box = other.getBoundingClientRect(); return y < box.top + box.height / 2; });
      if (before) { if (row.nextElementSibling !== before) list.insertBefore(row, before); } else if (list.lastElementChild !== row) list.append(row);
    };
    const end = (ending) => {
      if (ending.pointerId !== pointer) return;
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", end);
      window.removeEventListener("pointercancel", end);
      row.classList.remove("dragging");
      this.dragging = false;
      const order = this.order();
      if (order.join() === start.join()) { if (this.repaintAfterDrag) { this.repaintAfterDrag = false; this.paint(); } return; }
      this.repaintAfterDrag = false;
      const entry = this.list.entries.find((known) => known.id === row.dataset.entry);
      announce(`“${entry?.title ?? "Item"}” moved to ${order.indexOf(row.dataset.entry) + 1} of ${order.length}.`);
      this.commit(order, row.dataset.entry);
    };
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", end);
    window.addEventListener("pointercancel", end);
  }

  // MARK: Removing, with Undo

  async remove(id) {
    const list = this.list;
    const index = list.entries.findIndex((entry) => entry.id === id);
    const entry = list.entries[index];
    if (!entry) return;
    this.error("");
    try {
      await queues.remove(list.id, id);
    } catch (error) {
      this.error(error.message);
      return;
    }
    clearTimeout(this.undo?.timer);
    const box = this.container.querySelector(".listen-undo");
    box.querySelector("span").textContent = `Removed “${entry.title}” from ${list.name}.`;
    box.hidden = false;
    box.querySelector("button").focus();
    this.undo = { queueID: list.id, entry, index, timer: setTimeout(() => { box.hidden = true; this.undo = null; }, UNDO_SECONDS * 1000) };
  }

  async undoRemove() {
    const undo = this.undo;
    if (!undo) return;
    clearTimeout(undo.timer);
    this.undo = null;
    this.container.querySelector(".listen-undo").hidden = true;
    try {
      await queues.add(undo.entry.item, { queueID: undo.queueID, index: undo.index });
      this.focusAfter = queues.list(undo.queueID)?.entries[undo.index]?.id ?? null;
      this.paint();
      announce(`“${undo.entry.title}” is back.`);
    } catch (error) {
      this.error(error.message);
    }
  }

  // MARK: Lists

  async newList() {
    const name = await nameDialog({ title: "New list", message: "A list plays on its own, like Up Next.", confirm: "Make list", placeholder: "Bedtime, Commute…" });
    if (!name) return;
    try {
      const list = await queues.create(name);
      this.shown = list.id;
      sessionStorage.setItem(SHOWN_KEY, list.id);
      this.paint();
      announce(`Made the list “${list.name}”.`);
    } catch (error) {
      this.error(error.message);
    }
  }

  async renameList() {
    const list = this.list;
    const name = await nameDialog({ title: `Rename “${list.name}”`, message: "Its items stay as they are.", confirm: "Rename", value: list.name });
    if (!name || name === list.name) return;
    try {
      await queues.rename(list.id, name);
    } catch (error) {
      this.error(error.message);
    }
  }

  async removeList() {
    const list = this.list;
    const sure = await confirmDialog({
      title: `Remove “${list.name}”?`,
      message: list.entries.length ? `Its ${list.entries.length} item${list.entries.length === 1 ? "" : "s"} stay in your library; only the list goes.` : "The list is empty.",
      confirm: "Remove list", danger: true,
    });
    if (!sure) return;
    try {
      await queues.removeList(list.id);
      this.shown = null;
      sessionStorage.removeItem(SHOWN_KEY);
      this.paint();
      announce(`Removed the list “${list.name}”.`);
    } catch (error) {
      this.error(error.message);
    }
  }
}
