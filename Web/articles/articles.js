// Listen's articles, a module each: /listen/articles is the list (Web/articles/list.js),
// /listen/articles/{id} the reader that reads aloud (Web/articles/reader.js, its text drawn by
// Web/articles/rich-text.js), and /listen/save the save sheet the bookmarklet and the Web Share
// Target open (Web/articles/save-sheet.js).

import { ArticleList } from "./list.js";
import { ArticleReader } from "./reader.js";
import { SaveSheet } from "./save-sheet.js";

/** Renders one of the articles screens for `path`; returns a clean-up. */
export function renderArticles(container, path) {
  const match = path.match(/^\/listen\/articles\/([0-9a-f-]{36})$/i);
  if (match) {
    const reader = new ArticleReader(container, match[1], new URLSearchParams(location.search).get("action"));
    return () => reader.close();
  }
  if (/^\/listen\/save$/.test(path)) {
    const sheet = new SaveSheet(container, new URLSearchParams(location.search));
    return () => sheet.close();
  }
  const list = new ArticleList(container);
  return () => list.close();
}
