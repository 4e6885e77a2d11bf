// The rules that keep podcast downloads from filling the device (Settings → Storage): remove an
// episode from the device once it is played, and keep only the latest N episodes of a podcast
// (by publication date). Kept per device, in localStorage.

import { storedJSON } from "../dom.js";
import { downloads } from "../player/downloads.js";

const KEY = "downloads.podcasts";

export function podcastRules() {
  return { removeAfterPlayed: false, keepLatest: 0, ...storedJSON(KEY, {}) };
}

/** Changes the rules; a new "keep the latest" applies at once. Resolves with the downloads removed. */
export async function setPodcastRules(change) {
  const rules = { ...podcastRules(), ...change };
  localStorage.setItem(KEY, JSON.stringify(rules));
  if (change.keepLatest == null) return 0;
  await downloads.ready();
  const podcasts = new Set(downloads.list().filter((record) => record.area === "podcasts").map((record) => record.meta?.podcastID));
  let removed = 0;
  for (const podcast of podcasts) removed += await keepLatest(podcast);
  return removed;
}

/** Removes a podcast's downloaded episodes beyond the latest N (none when the rule is off). */
export async function keepLatest(podcastID) {
  const { keepLatest: count } = podcastRules();
  if (!count) return 0;
  const episodes = downloads.list()
    .filter((record) => record.area === "podcasts" && record.meta?.podcastID === podcastID && record.status === "ready")
    .sort((a, b) => (b.meta?.published ?? "").localeCompare(a.meta?.published ?? ""));
  const extra = episodes.slice(count);
  for (const record of extra) await downloads.remove(record.key);
  return extra.length;
}

/** An episode played to its end (`podcast:<id>`): off the device, when the person asked for that. */
export async function episodePlayed(item) {
  if (!podcastRules().removeAfterPlayed || !downloads.has(item)) return false;
  await downloads.remove(item);
  return true;
}

// A new episode on the device: older ones of its podcast beyond "keep the latest" go.
downloads.addEventListener("change", (event) => {
  const record = event.detail ? downloads.get(event.detail) : null;
  if (record?.area === "podcasts" && record.status === "ready") keepLatest(record.meta?.podcastID).catch(() => {});
});
