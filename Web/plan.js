// Plans: the account's Free or Plus (granted by the server's owner: nobody pays on a self-hosted
// server), and the paywall card a locked feature shows.

import { api } from "./api.js";
import { announce, escapeHTML } from "./dom.js";

export function loadPlan() {
  return api("/api/plan");
}

/** Whether the account has Plus now. */
export function hasPlus(plan) {
  return plan && plan.effective === "plus";
}

const MARKS = { included: "✓", locked: "🔒", coming: "…" };
const STATUS = { included: "Included", locked: "Plus", coming: "Coming" };

/**
 * Shows the paywall card: what Plus adds, the trial, Subscribe (how to get Plus on this server)
 * and Restore (asks the server again). Resolves with the plan when the card closes.
 */
export function showPaywall(session, plan, { reason = "" } = {}) {
  return new Promise((resolve) => {
    const card = document.createElement("dialog");
    card.className = "dialog paywall";
    card.setAttribute("aria-labelledby", "paywall-heading");
    const paint = () => {
      const plus = hasPlus(plan);
      card.innerHTML = `
        <h2 id="paywall-heading">Reverie Plus</h2>
        ${reason ? `<p class="reason"></p>` : ""}
        <ul class="paywall-features">
          ${plan.features.map((feature) => `
            <li><span class="mark" aria-hidden="true">${MARKS[feature.status]}</span>
              <span><strong>${escapeHTML(feature.name)}</strong><span class="detail">${escapeHTML(feature.detail)}</span></span>
              <span class="status ${feature.status}">${STATUS[feature.status]}</span></li>`).join("")}
        </ul>
        <p class="trial">${plus ? "Plus is on for this account." : "Trial: none needed. Plus costs nothing here: this server is self-hosted, and its owner turns Plus on."}
          Features marked Coming are not built yet; no plan has them.</p>
        <p class="how" role="status" data-how hidden></p>
        <div class="paywall-actions">
          ${plus ? "" : `<button class="button primary" type="button" data-subscribe>Subscribe</button>`}
          <button class="button" type="button" data-restore>Restore</button>
          <button class="button" type="button" data-close>${plus ? "Done" : "Not now"}</button>
        </div>`;
      if (reason) card.querySelector(".reason").textContent = reason;
      const how = card.querySelector("[data-how]");
      const subscribe = card.querySelector("[data-subscribe]");
      if (subscribe) subscribe.addEventListener("click", () => {
        how.textContent = session.user.isOwner
          ? "You own this server: turn Plus on for yourself (or anyone) in Settings → People. No payment is involved."
          : `Ask ${plan.ownerName}, who runs this server, to turn on Plus for “${session.user.username}” in Settings → People. No payment is involved; then tap Restore.`;
        how.hidden = false;
        announce(how.textContent);
      });
      card.querySelector("[data-restore]").addEventListener("click", async () => {
        try {
          plan = await loadPlan();
        } catch (problem) {
          how.textContent = `The server cannot be asked right now: ${problem.message}`;
          how.hidden = false;
          return;
        }
        const message = hasPlus(plan) ? "Plus is on for this account." : "This account has no Plus on this server yet.";
        paint();
        const status = card.querySelector("[data-how]");
        status.textContent = message;
        status.hidden = false;
        announce(message);
      });
      card.querySelector("[data-close]").addEventListener("click", () => card.close());
    };
    paint();
    card.addEventListener("close", () => { card.remove(); resolve(plan); });
    document.body.append(card);
    card.showModal();
  });
}
