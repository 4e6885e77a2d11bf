// Item keys: what progress, queues, downloads and played marks call a thing a person plays,
// `<kind>:<id>`, and a part of it (a book's or an episode's chapter, a LibriVox section)
// `<kind>:<id>/<index from 0>`. The one reader and writer of them in the web app, the twin of
// ReverieAPI's ItemKey: both answer Tests/Shared/item-key-cases.json. A key is always written in
// small letters, so a player finds an item's place, download and saved answers by the key it wrote.

/** The kinds, as keys begin: `podcast:`. */
const KINDS = ["winddown", "bedside", "library", "librivox", "podcast", "article"];
/** The longest key read, and the most parts (chapters, sections) an item has. */
const LONGEST = 120;
const MOST_PARTS = 10000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NAME = /^[A-Za-z0-9_.-]+$/;
const INDEX = /^[0-9]+$/;
const WITH_PARTS = new Set(["library", "librivox", "podcast"]);

/**
 * Reads `text`: `{ kind, id, part, key }` (`part` null for the whole item, `key` as written), or
 * null when it names nothing Reverie plays.
 */
export function parseItemKey(text) {
  if (typeof text !== "string" || new TextEncoder().encode(text).length > LONGEST) return null;
  const colon = text.indexOf(":");
  if (colon < 0) return null;
  const kind = text.slice(0, colon).toLowerCase();
  if (!KINDS.includes(kind)) return null;
  const rest = text.slice(colon + 1).split("/");
  if (rest.length > 2) return null;
  let part = null;
  if (rest.length === 2) {
    if (!WITH_PARTS.has(kind) || !INDEX.test(rest[1]) || Number(rest[1]) >= MOST_PARTS) return null;
    part = Number(rest[1]);
  }
  const raw = rest[0];
  let id;
  if (kind === "library" || kind === "podcast" || kind === "article") {
    if (!UUID.test(raw)) return null;
    id = raw.toLowerCase();
  } else if (kind === "librivox") {
    if (!INDEX.test(raw) || Number(raw) <= 0 || !Number.isSafeInteger(Number(raw))) return null;
    id = String(Number(raw));
  } else if (UUID.test(raw) || NAME.test(raw)) {
    id = raw.toLowerCase();
  } else {
    return null;
  }
  return { kind, id, part, key: itemKey(kind, id, part) };
}

/** The key of the item `id` of `kind` (a part of it with `part`), in small letters: `library:3f2a…/4`. */
export function itemKey(kind, id, part = null) {
  return `${kind}:${String(id).toLowerCase()}${part === null || part === undefined ? "" : `/${part}`}`;
}
