// Rhymes away from the server (issue 34): the pack the server's rhyme engine exports
// (GET /api/offline/rhymes, Sources/Rhymes/OfflineRhymes.swift) is downloaded once, kept in the
// browser's Cache Storage, and looked up when the server cannot be reached.
//
// The device only looks words up: a line's last word lights up with the lines it rhymes with
// (the same perfect-rhyme group: perfect; the same near-rhyme bucket: near), lines count their
// syllables, and the bar offers the rhymes of the ending the line needs. Scheme letters and the
// engine's finer judgements (unstressed and eye rhymes, guesses for unknown words) come back
// with the server.

/** Where the pack is kept (the service worker leaves this cache alone). */
export const RHYMES_CACHE = "reverie-rhymes";
const PACK_URL = "/api/offline/rhymes";
/** The pack's layout this code reads. */
const FORMAT = "reverie-rhymes";
const VERSION = 1;
/** Ranks from here on are proper names: offered only when nothing else is. */
const NAME_RANK = 1_000_000;
const PALETTE = 6;
const SUGGESTIONS = 50;

let checked = null;   // this page's one check with the server
let loading = null;   // the pack read from the cache and indexed

/**
 * Makes sure the device keeps the newest pack: asks the server once per page, with the kept
 * pack's tag (304 when unchanged). Never throws; resolves true when a pack is kept.
 */
export function keep() {
  if (!checked) {
    checked = (async () => {
      if (!("caches" in window)) return false;
      const cache = await caches.open(RHYMES_CACHE);
      const kept = await cache.match(PACK_URL);
      try {
        const headers = kept?.headers.get("ETag") ? { "If-None-Match": kept.headers.get("ETag") } : {};
        const response = await fetch(PACK_URL, { credentials: "same-origin", headers, cache: "no-store" });
        if (response.ok) {
          await cache.put(PACK_URL, response);
          loading = null;
        }
      } catch {
        // Offline: the kept pack serves.
      }
      return Boolean(await cache.match(PACK_URL));
    })().catch(() => false);
  }
  return checked;
}

/** Whether the device has a pack to rhyme with. */
export async function available() {
  if (!("caches" in window)) return false;
  return Boolean(await caches.match(PACK_URL, { cacheName: RHYMES_CACHE }).catch(() => null));
}

/** The kept pack, read and indexed once; null when there is none (or it cannot be read). */
export function pack() {
  if (!loading) {
    loading = (async () => {
      if (!("caches" in window) || typeof DecompressionStream === "undefined") return null;
      const response = await caches.match(PACK_URL, { cacheName: RHYMES_CACHE });
      if (!response) return null;
      const text = await new Response(response.body.pipeThrough(new DecompressionStream("gzip"))).text();
      return Pack.parse(text);
    })().catch(() => null);
    loading.then((found) => { if (!found) loading = null; });
  }
  return loading;
}

/** The pack in memory: each word's group, near bucket, syllables and rank; each group's members. */
export class Pack {
  static parse(text) {
    const lines = text.split("\n");
    const [format, version, words, groups] = lines[0].split(" ");
    if (format !== FORMAT || Number(version) !== VERSION) throw new Error(`not a ${FORMAT} ${VERSION} pack`);
    const pack = new Pack(Number(words), Number(groups));
    for (let line = 2; line < lines.length; line += 1) {
      if (lines[line]) pack.addGroup(lines[line]);
    }
    pack.finish();
    return pack;
  }

  constructor(words, groups) {
    this.index = new Map();
    this.words = [];
    this.group = new Int32Array(words);
    this.bucket = new Int32Array(words);
    this.syllables = new Uint8Array(words);
    this.rank = new Int32Array(words);
    this.members = [];       // by group: word indexes, common first
    this.inBucket = new Map(); // bucket → word indexes of ranked words, common first
  }

  addGroup(line) {
    const fields = line.split(" ");
    const bucket = Number(fields[0]);
    const group = this.members.length;
    const members = [];
    for (let field = 1; field < fields.length; field += 1) {
      const [word, syllables, rank] = fields[field].split(":");
      const id = this.words.length;
      this.words.push(word);
      this.index.set(word, id);
      this.group[id] = group;
      this.bucket[id] = bucket;
      this.syllables[id] = Number(syllables);
      this.rank[id] = rank === undefined ? 2 ** 31 - 1 : Number(rank);
      members.push(id);
      if (rank !== undefined && Number(rank) < NAME_RANK) {
        if (!this.inBucket.has(bucket)) this.inBucket.set(bucket, []);
        this.inBucket.get(bucket).push(id);
      }
    }
    this.members.push(members);
  }

  finish() {
    for (const ids of this.inBucket.values()) ids.sort((a, b) => this.rank[a] - this.rank[b]);
  }

  /** A typed word's id: any case, curly apostrophes, surrounding punctuation, possessives, the
   *  last part of a hyphenated word. -1 when the pack does not have it. */
  find(raw) {
    for (const form of forms(raw)) {
      const id = this.index.get(form);
      if (id !== undefined) return id;
    }
    return -1;
  }
}

/** The forms to try for a typed word, most literal first (as the engine's lookup tries them). */
function forms(raw) {
  const word = raw.replace(/[\u2018\u2019]/g, "'").toLowerCase().replace(/^[^\p{L}\p{N}']+|[^\p{L}\p{N}']+$/gu, "");
  if (!word) return [];
  const found = [word];
  const unquoted = word.replace(/^'+|'+$/g, "");
  if (unquoted && unquoted !== word) found.push(unquoted);
  for (const form of [...found]) {
    if (form.endsWith("'s")) found.push(form.slice(0, -2));
    if (form.endsWith("s'")) found.push(form.slice(0, -1));
  }
  const dash = word.lastIndexOf("-");
  if (dash >= 0 && dash < word.length - 1) found.push(...forms(word.slice(dash + 1)));
  return found;
}

/** Words of a line, with their UTF-16 offsets in it (letters, digits and inner apostrophes). */
function wordsIn(line) {
  const words = [];
  for (const match of line.matchAll(/[\p{L}\p{N}]+(?:['\u2019][\p{L}\p{N}]+)*/gu)) {
    words.push({ word: match[0], start: match.index, end: match.index + match[0].length });
  }
  return words;
}

/**
 * What the editor shows, from the pack alone, in the shape of `POST /api/rhymes/analyze`: every
 * line's syllables (when the pack knows all its words), and rhyme groups of line endings (the
 * same perfect group anywhere in the text; the same near bucket within a stanza). No scheme
 * letters: those need the engine.
 */
export function analyze(pack, text) {
  const lines = text.split("\n");
  const endings = [];      // by line: { id, word, start, end } or null
  const stanzas = [[]];
  const result = lines.map((line, index) => {
    const words = wordsIn(line);
    let syllables = 0, known = words.length > 0;
    for (const { word } of words) {
      const id = pack.find(word);
      if (id < 0) known = false; else syllables += pack.syllables[id];
    }
    const last = words.at(-1);
    const id = last ? pack.find(last.word) : -1;
    endings.push(last && id >= 0 ? { ...last, id } : null);
    if (words.length) stanzas.at(-1).push(index);
    else if (!line.trim() && stanzas.at(-1).length) stanzas.push([]);
    return { text: line, scheme: null, syllables: known ? syllables : 0 };
  });

  const groups = [];
  const grouped = new Set();
  // Perfect: line endings of one rhyme group, anywhere in the text.
  const byGroup = new Map();
  endings.forEach((ending, line) => {
    if (!ending) return;
    const key = pack.group[ending.id];
    if (!byGroup.has(key)) byGroup.set(key, []);
    byGroup.get(key).push(line);
  });
  for (const [key, members] of byGroup) {
    const words = new Set(members.map((line) => endings[line].word.toLowerCase()));
    if (members.length < 2) continue;
    for (const line of members) grouped.add(line);
    const sameWord = words.size === 1;
    groups.push({
      id: groups.length, type: "perfect", key: `group-${key}`, colorIndex: 0,
      occurrences: members.map((line) => occurrence(endings[line], line, "perfect", sameWord ? "identical" : "perfect")),
    });
  }
  // Near: endings left alone that share a bucket with another in their stanza.
  for (const stanza of stanzas) {
    const byBucket = new Map();
    for (const line of stanza) {
      const ending = endings[line];
      if (!ending || grouped.has(line)) continue;
      const bucket = pack.bucket[ending.id];
      if (!byBucket.has(bucket)) byBucket.set(bucket, []);
      byBucket.get(bucket).push(line);
    }
    for (const [bucket, members] of byBucket) {
      if (members.length < 2) continue;
      for (const line of members) grouped.add(line);
      groups.push({
        id: groups.length, type: "near", key: `bucket-${bucket}`, colorIndex: 0,
        occurrences: members.map((line) => occurrence(endings[line], line, "near", "near")),
      });
    }
  }
  // Colours in order of first appearance, as the server gives them.
  groups.sort((a, b) => a.occurrences[0].line - b.occurrences[0].line);
  groups.forEach((group, index) => { group.id = index; group.colorIndex = index % PALETTE; });
  return { lines: result, groups, offline: true };
}

function occurrence(ending, line, type, rhyme) {
  return { line, start: ending.start, end: ending.end, word: ending.word, type, rhyme, guessed: false };
}

/**
 * Rhymes for the line at `caret` (a UTF-16 offset), in the shape of `POST /api/rhymes/suggestions`.
 * The ending the line needs: the oldest of the stanza's last three endings that nothing rhymes
 * with yet. When the caret ends a line that already rhymes with it, the suggestions are for the
 * next line. Perfect rhymes first, then near ones, common words first; only words that start
 * with a half-typed word at the caret; never the target itself.
 */
export function suggest(pack, text, caret) {
  const at = Math.max(0, Math.min(caret, text.length));
  const lineStart = text.lastIndexOf("\n", at - 1) + 1;
  let lineEnd = text.indexOf("\n", at);
  if (lineEnd < 0) lineEnd = text.length;
  const before = text.slice(lineStart, at);
  const partialMatch = before.match(/[\p{L}'\u2019]*$/u);
  const replaceStart = at - partialMatch[0].length;
  const typed = partialMatch[0].toLowerCase().replace(/\u2019/g, "'");
  const atLineEnd = !/[\p{L}]/u.test(text.slice(at, lineEnd));
  const analysis = analyze(pack, text);
  const lineIndex = text.slice(0, lineStart).split("\n").length - 1;
  const rhymed = new Set(analysis.groups.flatMap((group) => group.occurrences.map((o) => o.line)));
  const ending = (line) => {
    const words = wordsIn(analysis.lines[line].text);
    return words.length ? words.at(-1).word : null;
  };
  const stanzaBefore = (line) => {
    const lines = [];
    for (let index = line - 1; index >= 0 && analysis.lines[index].text.trim(); index -= 1) lines.unshift(index);
    return lines;
  };
  const targetFor = (earlier) => {
    const open = earlier.slice(-3).filter((index) => ending(index) && pack.find(ending(index)) >= 0 && !rhymed.has(index));
    return open.length ? { word: ending(open[0]), line: open[0] } : null;
  };
  let nextLine = false;
  let partial = typed;
  let target = targetFor(stanzaBefore(lineIndex));
  // A finished line that already rhymes: offer the next line's rhyme.
  if (atLineEnd && ending(lineIndex) && rhymed.has(lineIndex)) {
    nextLine = true;
    partial = "";
    target = targetFor([...stanzaBefore(lineIndex), lineIndex]);
  }
  const suggestions = [];
  if (target) {
    const id = pack.find(target.word);
    const seen = new Set([id]);
    const offer = (candidate, type) => {
      if (suggestions.length >= SUGGESTIONS || seen.has(candidate) || pack.rank[candidate] >= NAME_RANK) return;
      const word = pack.words[candidate];
      if (partial && !(word.startsWith(partial) && word !== partial)) return;
      seen.add(candidate);
      suggestions.push({ word, type });
    };
    for (const candidate of pack.members[pack.group[id]]) offer(candidate, "perfect");
    for (const candidate of pack.inBucket.get(pack.bucket[id]) ?? []) {
      if (pack.group[candidate] !== pack.group[id]) offer(candidate, "near");
    }
  }
  return {
    target, nextLine,
    replaceStart: nextLine ? at : replaceStart,
    replaceEnd: at,
    suggestions,
    offline: true,
  };
}
