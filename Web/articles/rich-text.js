// An article's rich text as HTML: the text with its spans (bold, italics, code, links, headings,
// quotes and lists), every word in a span of its own that the reader lights and a tap finds.

import { escapeHTML } from "../dom.js";

/**
 * The HTML of `text` from `from` to `to` (UTF-16 offsets, as the spans count): paragraphs at
 * blank lines, a heading, quote or list item where a span says so, bold, italic, code and links
 * inside, and every word a <span class="w" data-at="offset"> the highlight and a tap find.
 */
export function richTextHTML(text, spans, from, to) {
  const blocks = [];
  let start = from;
  while (start < to) {
    let end = text.indexOf("\n\n", start);
    if (end < 0 || end > to) end = to;
    if (end > start) blocks.push([start, end]);
    start = end + 2;
  }
  const inline = spans.filter((span) => ["bold", "italic", "code", "link"].includes(span.style) && span.location < to && span.location + span.length > from);
  const covering = (style, a, b) => spans.find((span) => span.style === style && span.location <= a && span.location + span.length >= b);
  return blocks.map(([a, b]) => {
    const heading = covering("heading", a, b);
    const quote = covering("quote", a, b);
    const code = spans.find((span) => span.style === "code" && span.location <= a && span.location + span.length >= b && text.slice(a, b).includes("\n"));
    const lines = [];
    let lineStart = a;
    for (let i = a; i <= b; i += 1) {
      if (i === b || text[i] === "\n") { lines.push([lineStart, i]); lineStart = i + 1; }
    }
    const body = (x, y) => inlineHTML(text, inline, x, y);
    if (heading) {
      const level = Math.min(6, Math.max(2, (heading.level || 2) + 1));
      return `<h${level} class="reader-heading" data-block="${a}">${body(a, b)}</h${level}>`;
    }
    if (code) return `<pre data-block="${a}">${body(a, b)}</pre>`;
    const items = lines.map(([x, y]) => [x, y, covering("listItem", x, y)]);
    if (items.every(([, , item]) => item)) {
      return `<ul data-block="${a}">${items.map(([x, y]) => `<li>${body(x, y)}</li>`).join("")}</ul>`;
    }
    const paragraph = lines.map(([x, y]) => body(x, y)).join("<br>");
    return quote ? `<blockquote data-block="${a}"><p>${paragraph}</p></blockquote>` : `<p data-block="${a}">${paragraph}</p>`;
  }).join("");
}

/** A line's inline HTML: runs of the same styles, each word in its own span. */
function inlineHTML(text, spans, from, to) {
  const cuts = new Set([from, to]);
  for (const span of spans) {
    if (span.location > from && span.location < to) cuts.add(span.location);
    const end = span.location + span.length;
    if (end > from && end < to) cuts.add(end);
  }
  const points = [...cuts].sort((x, y) => x - y);
  let html = "";
  for (let i = 0; i + 1 < points.length; i += 1) {
    const [a, b] = [points[i], points[i + 1]];
    const active = spans.filter((span) => span.location <= a && span.location + span.length >= b);
    let piece = words(text, a, b);
    if (active.some((span) => span.style === "code")) piece = `<code>${piece}</code>`;
    if (active.some((span) => span.style === "italic")) piece = `<em>${piece}</em>`;
    if (active.some((span) => span.style === "bold")) piece = `<strong>${piece}</strong>`;
    const link = active.find((span) => span.style === "link" && span.url);
    if (link) piece = `<a href="${escapeHTML(link.url)}" target="_blank" rel="noopener noreferrer">${piece}</a>`;
    html += piece;
  }
  return html;
}

function words(text, a, b) {
  return text.slice(a, b).replace(/\S+/g, (word, offset) => `\u0000${a + offset}\u0001${word}\u0002`)
    .split("\u0002").map((part) => {
      const at = part.indexOf("\u0000");
      if (at < 0) return escapeHTML(part);
      const [offset, word] = part.slice(at + 1).split("\u0001");
      return `${escapeHTML(part.slice(0, at))}<span class="w" data-at="${offset}">${escapeHTML(word)}</span>`;
    }).join("");
}
