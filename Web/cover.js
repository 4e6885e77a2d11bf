// A drawn cover for a book or track that has no art of its own: a calm colour chosen by a hash of
// its title, the title's first letter, and on a cover large enough to read them, its words. It is
// made in the page from markup and the stylesheet's `.drawn-cover` (no image, no network), so the
// same title draws the same cover everywhere: the library, a book's page, the dock, Now Playing.

import { escapeHTML } from "./dom.js";

/** How many tones `.drawn-cover[data-tone]` has in the stylesheet (hues 30° apart). */
export const COVER_TONES = 12;

/** The tone (0 up to COVER_TONES) of a title: FNV-1a over its UTF-16 code units, so a title
 *  always gets the same one. */
export function coverTone(title) {
  let hash = 0x811c9dc5;
  for (let index = 0; index < title.length; index += 1) {
    hash ^= title.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % COVER_TONES;
}

/** The letter a cover shows: the first letter or digit after a leading "The", "A" or "An". */
export function coverInitial(title) {
  const words = title.replace(/^(the|an?)\s+(?=\S)/i, "");
  const letter = words.match(/[\p{L}\p{N}]/u);
  return (letter ? letter[0] : [...title][0] || "?").toLocaleUpperCase();
}

/**
 * The cover as HTML: a `<span class="drawn-cover {className}">` with the initial and the title.
 * It is decoration (`aria-hidden`): the title is always written next to it. `className` gives it
 * its place's size (`listen-art`, `book-art`, `mini-art`, `deck-art`).
 */
export function drawnCover(title, className = "") {
  const name = String(title || "").trim() || "Untitled";
  return `<span class="drawn-cover ${className}" data-tone="${coverTone(name)}" aria-hidden="true"><span class="drawn-cover-face">`
    + `<span class="drawn-cover-initial">${escapeHTML(coverInitial(name))}</span>`
    + `<span class="drawn-cover-title">${escapeHTML(name)}</span></span></span>`;
}

/** A player's track's cover: its art, else the drawn cover of its book or album (a chapter's
 *  cover is its book's), or of the station or track itself when it has none. */
export function trackCover(track, className) {
  if (track.artwork) return `<img class="${className}" src="${escapeHTML(track.artwork)}" alt="">`;
  return drawnCover(track.live || !track.album ? track.title : track.album, className);
}
