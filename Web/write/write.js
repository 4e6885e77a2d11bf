// Write: your songs (Web/write/song-list.js) and the lyrics editor (Web/write/editor.js), where
// rhyming words light up, scheme letters and syllables sit beside each line, and rhymes wait above
// the keyboard.

import { SongList } from "./song-list.js";
import { Editor } from "./editor.js";

export const id = "write";

let current = null;

export async function render(container, session) {
  leave();
  const match = location.pathname.match(/^\/write\/([0-9a-fA-F-]{36}|new)$/);
  current = match ? new Editor(container, session, match[1]) : new SongList(container, session);
  await current.open();
}

export function leave() {
  if (current) current.leave();
  current = null;
}
