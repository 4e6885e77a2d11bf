// The screen for an address that has none ("Nothing here", with a way back), and for an area that
// is not built yet: an honest empty state that says what is coming.

import { AREAS, icon } from "./areas.js";
import { escapeHTML } from "./dom.js";

export const id = "area";

export function render(container, session, area) {
  if (!area) {
    container.innerHTML = `
      <section class="empty-state">
        <h1>Nothing here</h1>
        <p>This page does not exist. Pick an area below.</p>
        <a class="button primary" href="${AREAS[0].path}" data-link>Go to ${AREAS[0].name}</a>
      </section>`;
    return;
  }
  container.innerHTML = `
    <section class="empty-state area-${area.id}" aria-labelledby="area-heading">
      <div class="empty-icon">${icon(area.icon, 56)}</div>
      <h1 id="area-heading">${escapeHTML(area.name)}</h1>
      <p class="lede">${escapeHTML(area.tagline)}</p>
      <div class="card coming">
        <h2>Not built yet</h2>
        <p>${escapeHTML(area.name)} is on its way. When it arrives, you will have:</p>
        <ul>${(area.coming || []).map((item) => `<li>${escapeHTML(item)}</li>`).join("")}</ul>
      </div>
    </section>`;
}
