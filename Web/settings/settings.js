// Settings: theme and app icon, your plan, a voice to try, account, songs' sync on this device,
// apps connected to Reverie, personal tokens, people (owner only) and what this server is.

import { api } from "../api.js";
import { announce, confirmDialog, copyText, escapeHTML, fileSize, fillList, friendlyDate, passwordDialog, secureContextNotice, showError } from "../dom.js";
import { followJob } from "../jobs.js";
import { ICONS, THEMES, applyIcon, applyTheme, currentTheme, rememberedIcon } from "../theme.js";
import { hasPlus, loadPlan, showPaywall } from "../plan.js";
import * as drafts from "../write/drafts.js";
import { voicePanelHTML, wireVoicePanel } from "./voice-panel.js";
import { storageSectionHTML, wireStorage } from "./storage.js";
import { appsSectionHTML, wireApps } from "./apps.js";
import { passwordFormHTML, wirePasswordForm } from "../account/password.js";

export const id = "settings";

/** Sends a revoke still waiting out its Undo (Settings → Apps); resolves once it is answered. */
let settleApps = () => Promise.resolve();

/** Leaving Settings: an app revoked here stops working now, not when its Undo would have ended. */
export function leave() {
  settleApps();
  settleApps = () => Promise.resolve();
}

export async function render(container, session) {
  leave();
  const user = session.user;
  container.innerHTML = `
    <div class="settings">
      <h1 class="page-title">Settings</h1>
      ${secureContextNotice("install Reverie, open it offline, or keep the screen on for the alarm")}

      <section class="card" aria-labelledby="theme-heading">
        <h2 id="theme-heading">Theme</h2>
        <p class="hint">Applies everywhere in Reverie, on every device you sign in on.</p>
        <div class="theme-grid" role="radiogroup" aria-labelledby="theme-heading">
          ${THEMES.map((theme) => `
            <label class="theme-option${theme.premium ? " premium" : ""}" data-preview="${theme.id}">
              <input type="radio" name="theme" value="${theme.id}">
              <span class="swatch" aria-hidden="true"><i></i><i></i><i></i></span>
              <span class="theme-name">${theme.name}${theme.premium ? ' <span class="plus-badge">Plus</span>' : ""}</span>
              <span class="theme-note">${theme.note}</span>
            </label>`).join("")}
        </div>
        <p class="form-error" role="alert" data-for="theme" hidden></p>
      </section>

      <section class="card" aria-labelledby="icon-heading">
        <h2 id="icon-heading">App icon</h2>
        <p class="hint">The icon this browser shows, and the one a new install of Reverie gets. An app already installed keeps its icon until you install it again.</p>
        <div class="icon-grid" role="radiogroup" aria-labelledby="icon-heading">
          ${ICONS.map((icon) => `
            <label class="icon-option${icon.premium ? " premium" : ""}">
              <input type="radio" name="icon" value="${icon.id}">
              <img src="${icon.file}" alt="" width="56" height="56">
              <span>${icon.name}${icon.premium ? ' <span class="plus-badge">Plus</span>' : ""}</span>
            </label>`).join("")}
        </div>
        <p class="form-error" role="alert" data-for="icon" hidden></p>
      </section>

      <section class="card" aria-labelledby="plan-heading">
        <h2 id="plan-heading">Plan</h2>
        <p data-plan-state>…</p>
        <button class="button" type="button" data-action="paywall">See what Plus adds</button>
        <div class="switch-row" data-bypass hidden>
          <label for="bypass-switch"><strong>Bypass IAP (Dev)</strong><span class="hint"> Development mode only: unlocks everything for this account.</span></label>
          <input id="bypass-switch" type="checkbox" data-bypass-switch>
        </div>
        <p class="form-error" role="alert" data-for="plan" hidden></p>
      </section>

      <section class="card" aria-labelledby="sync-heading">
        <h2 id="sync-heading">Sync songs</h2>
        <div class="switch-row">
          <label for="sync-switch"><strong>Sync this device's songs with the server</strong></label>
          <input id="sync-switch" type="checkbox" data-sync-switch>
        </div>
        <p class="hint" data-sync-explain></p>
        <p class="notice" role="status" data-sync-done hidden></p>
        <p class="form-error" role="alert" data-for="sync" hidden></p>
      </section>

      ${storageSectionHTML()}

      ${voicePanelHTML()}

      <section class="card" aria-labelledby="account-heading">
        <h2 id="account-heading">Account</h2>
        <p>Signed in as <strong>${escapeHTML(user.username)}</strong>${user.isOwner ? ' <span class="badge">Owner</span>' : ""}</p>
        <button class="button" type="button" data-action="logout">Sign out</button>
        <details class="disclosure" data-password>
          <summary>Change password</summary>
          <p class="hint">Your other devices and personal tokens are signed out; this one stays signed in.</p>
          ${passwordFormHTML("account")}
          <p class="notice" role="status" data-password-done hidden></p>
        </details>
      </section>

      ${appsSectionHTML()}

      <section class="card" aria-labelledby="tokens-heading">
        <h2 id="tokens-heading">Personal tokens</h2>
        <p class="hint">For the <code>reverie</code> command line and your own scripts: send one as <code>Authorization: Bearer …</code>.</p>
        <ul class="list" data-list="tokens"><li class="list-empty">Loading…</li></ul>
        <div class="secret" data-secret hidden>
          <p><strong>Copy this token now.</strong> It will not be shown again.</p>
          <div class="secret-row"><code data-secret-value></code><button class="button" type="button" data-action="copy">Copy</button></div>
        </div>
        <form class="inline-form" data-form="token">
          <label for="token-name">New token name</label>
          <div class="row">
            <input id="token-name" name="name" maxlength="100" placeholder="e.g. laptop scripts" required>
            <button class="button primary" type="submit">Create</button>
          </div>
          <p class="form-error" role="alert" hidden></p>
        </form>
      </section>

      ${user.isOwner ? `
      <section class="card" aria-labelledby="people-heading">
        <h2 id="people-heading">People</h2>
        <p class="hint">Everyone with an account has their own progress, history and lyrics.</p>
        <ul class="list" data-list="people"><li class="list-empty">Loading…</li></ul>
        <p class="notice" role="status" data-people-done hidden></p>
        <form class="inline-form" data-form="person" novalidate>
          <h3>Add a person</h3>
          <label for="person-username">Username</label>
          <input id="person-username" name="username" autocomplete="off" autocapitalize="none" spellcheck="false" required>
          <label for="person-password">Password</label>
          <input id="person-password" name="password" type="password" autocomplete="new-password" required minlength="8">
          <p class="form-error" role="alert" hidden></p>
          <button class="button primary" type="submit">Add person</button>
        </form>
      </section>

      <section class="card" aria-labelledby="backups-heading">
        <h2 id="backups-heading">Backups</h2>
        <p class="hint">A backup holds the whole server: everyone's songs, progress and files, Wind Down's audio and the
          HTTPS authority. Download it and keep it on another machine; <code>reverie restore FILE --data-dir NEW</code> brings it back.</p>
        <ul class="list" data-list="backups"><li class="list-empty">Loading…</li></ul>
        <div class="backup-job" data-backup-job hidden>
          <p><span data-job-text></span> <span data-job-percent></span></p>
          <progress max="100" value="0" aria-label="Making a backup"></progress>
        </div>
        <p class="form-error" role="alert" data-backup-error hidden></p>
        <button class="button primary" type="button" data-action="backup">Make a backup</button>
        <p class="hint">Backups made before someone was removed still hold what was theirs: remove the ones you no longer need.</p>
      </section>` : ""}

      <section class="card" aria-labelledby="about-heading">
        <h2 id="about-heading">About this server</h2>
        <dl class="facts" data-facts><dt>Version</dt><dd>…</dd></dl>
      </section>
    </div>`;

  // The plan, asked for once; a tap that needs it before it arrives waits for it, and a tap after
  // it could not be loaded asks again (see knownPlan).
  const plan = { current: null };
  plan.ready = loadPlan().then((answer) => { plan.current = answer; return answer; });
  plan.ready.catch(() => {});
  wireTheme(container, session, plan);
  wireIcon(container, session, plan);
  wirePlan(container, session, plan);
  wireSync(container);
  wireStorage(container);
  wireVoicePanel(container);
  settleApps = wireApps(container);
  wireAccount(container, session, () => settleApps());
  wireTokens(container);
  if (user.isOwner) wirePeople(container, user, plan);
  if (user.isOwner) wireBackups(container);
  loadFacts(container);
}

// MARK: - Theme

/** The plan, once the server has answered. When the first answer was an error, the server is
 * asked again (once for each tap that needs it) and the plan is painted when it comes; throws
 * when it still cannot be loaded. */
async function knownPlan(plan) {
  if (plan.current) return plan.current;
  try {
    return await plan.ready;
  } catch {
    plan.ready = loadPlan().then((answer) => { plan.current = answer; return answer; });
    const answer = await plan.ready;
    paintPlan(document.querySelector(".settings"), answer);
    return answer;
  }
}

/** A Plus choice on a Free account: the paywall card instead, and the choice as it was. */
async function lockedChoice(input, previous, session, plan, reason, error) {
  input.checked = false;
  const before = input.form || input.closest("[role=radiogroup]");
  const kept = before.querySelector(`input[value="${previous}"]`);
  if (kept) kept.checked = true;
  if (!plan.current) {
    showError(error, new Error(`${reason} Your plan cannot be loaded right now; try again when the server can be reached.`));
    return;
  }
  plan.current = await showPaywall(session, plan.current, { reason });
  paintPlan(input.closest(".settings"), plan.current);
}

function wireTheme(container, session, plan) {
  const current = currentTheme();
  const error = container.querySelector('[data-for="theme"]');
  for (const input of container.querySelectorAll('input[name="theme"]')) {
    input.checked = input.value === current;
    input.addEventListener("change", async () => {
      const previous = currentTheme();
      const theme = THEMES.find((t) => t.id === input.value);
      if (theme.premium && !hasPlus(await knownPlan(plan).catch(() => null))) {
        await lockedChoice(input, previous, session, plan, `${theme.name} is a Plus theme.`, error);
        return;
      }
      applyTheme(input.value, { animate: true });
      showError(error, null);
      try {
        await api("/api/settings", { method: "PATCH", body: { theme: input.value } });
        announce(`Theme changed to ${THEMES.find((t) => t.id === input.value).name}.`);
      } catch (problem) {
        applyTheme(previous, { animate: true });
        container.querySelector(`input[value="${previous}"]`).checked = true;
        showError(error, new Error(`The theme was not saved: ${problem.message}`));
      }
    });
  }
}

// MARK: - App icon

function wireIcon(container, session, plan) {
  const error = container.querySelector('[data-for="icon"]');
  const current = rememberedIcon();
  for (const input of container.querySelectorAll('input[name="icon"]')) {
    input.checked = input.value === current;
    input.addEventListener("change", async () => {
      const previous = rememberedIcon();
      const icon = ICONS.find((one) => one.id === input.value);
      if (icon.premium && !hasPlus(await knownPlan(plan).catch(() => null))) {
        await lockedChoice(input, previous, session, plan, `The ${icon.name} icon comes with Plus.`, error);
        return;
      }
      showError(error, null);
      try {
        await api("/api/settings", { method: "PATCH", body: { icon: input.value } });
        applyIcon(input.value);
        announce(`${icon.name} icon chosen. New installs of Reverie get it; an installed app keeps its icon until it is installed again.`);
      } catch (problem) {
        container.querySelector(`input[name="icon"][value="${previous}"]`).checked = true;
        showError(error, new Error(`The icon was not saved: ${problem.message}`));
      }
    });
  }
}

// MARK: - Plan

function paintPlan(container, plan) {
  if (!container || !plan) return;
  const plus = hasPlus(plan);
  container.querySelector("[data-plan-state]").innerHTML = plus
    ? `<strong>Plus</strong> — ${plan.plan === "plus" ? `granted by ${escapeHTML(plan.ownerName)}` : "unlocked by Bypass IAP (Dev)"}.`
    : `<strong>Free</strong> — the four themes, every rhyme and sound. Plus adds premium themes and icons; ${escapeHTML(plan.ownerName)} grants it.`;
  for (const option of container.querySelectorAll(".theme-option.premium, .icon-option.premium")) option.classList.toggle("locked", !plus);
  const bypass = container.querySelector("[data-bypass]");
  bypass.hidden = !plan.developmentMode;
  container.querySelector("[data-bypass-switch]").checked = plan.bypass;
}

async function wirePlan(container, session, plan) {
  const error = container.querySelector('[data-for="plan"]');
  container.querySelector('[data-action="paywall"]').addEventListener("click", async () => {
    try {
      await knownPlan(plan);
    } catch (problem) {
      showError(error, new Error(`Your plan cannot be loaded: ${problem.message}`));
      return;
    }
    plan.current = await showPaywall(session, plan.current);
    paintPlan(container, plan.current);
  });
  container.querySelector("[data-bypass-switch]").addEventListener("change", async (event) => {
    showError(error, null);
    try {
      plan.current = await api("/api/plan/bypass", { method: "PUT", body: { enabled: event.target.checked } });
      announce(event.target.checked ? "Bypass on: everything is unlocked for this account." : "Bypass off.");
    } catch (problem) {
      event.target.checked = !event.target.checked;
      showError(error, problem);
    }
    paintPlan(container, plan.current);
  });
  try {
    paintPlan(container, await plan.ready);
  } catch (problem) {
    container.querySelector("[data-plan-state]").textContent = `Your plan cannot be loaded: ${problem.message}`;
  }
}

// MARK: - Sync

const SYNC_ON = "On: songs you write here are saved to your Reverie server and appear on every device you sign in on. Offline edits wait on this device and go up when the connection returns.";
const SYNC_OFF = "Off: this device keeps its songs to itself, in this browser's storage, and saves nothing to the server — for a shared computer, or for drafts you want nowhere else. Rhymes are still worked out by your server, which reads the lines and keeps none of them. Turning sync back on merges these songs with the server; a song changed on both sides keeps both, the other as a copy. Turning it off never deletes anything.";

function wireSync(container) {
  const toggle = container.querySelector("[data-sync-switch]");
  const explain = container.querySelector("[data-sync-explain]");
  const done = container.querySelector("[data-sync-done]");
  const error = container.querySelector('[data-for="sync"]');
  const paint = () => {
    toggle.checked = drafts.syncEnabled();
    explain.textContent = toggle.checked ? SYNC_ON : SYNC_OFF;
  };
  paint();
  toggle.addEventListener("change", async () => {
    showError(error, null);
    done.hidden = true;
    toggle.disabled = true;
    try {
      if (toggle.checked) {
        const result = await drafts.turnSyncOn();
        done.textContent = result.summary;
      } else {
        const kept = await drafts.turnSyncOff();
        done.textContent = `Sync is off. ${kept} song${kept === 1 ? " is" : "s are"} kept on this device.`;
      }
      done.hidden = false;
      announce(done.textContent);
    } catch (problem) {
      showError(error, new Error(`${toggle.checked ? "Sync was not turned on" : "Sync was not turned off"}: ${problem.message}`));
    } finally {
      toggle.disabled = false;
      paint();
    }
  });
}

// MARK: - Account

/** `settle()` sends what is waiting to be sent (an app's revoke) before signing out ends the session. */
function wireAccount(container, session, settle) {
  const done = container.querySelector("[data-password-done]");
  wirePasswordForm(container.querySelector('[data-password] form'), (user) => {
    session.user = user;
    done.textContent = "Password changed. Your other devices and tokens are signed out.";
    done.hidden = false;
    announce(done.textContent);
  });
  container.querySelector('[data-action="logout"]').addEventListener("click", async (event) => {
    event.target.disabled = true;
    await settle();
    try {
      await api("/api/auth/logout", { method: "POST" });
    } catch {
      // Signed out locally either way; an expired session is already gone on the server.
    }
    session.signedOut({ onPurpose: true });
  });
}

// MARK: - Tokens

function wireTokens(container) {
  const list = container.querySelector('[data-list="tokens"]');
  const form = container.querySelector('[data-form="token"]');
  const error = form.querySelector(".form-error");
  const secretBox = container.querySelector("[data-secret]");

  function load() {
    return fillList(list, "/api/tokens", (token) => `
            <li class="list-item">
              <div><strong>${escapeHTML(token.name)}</strong>
                <span class="meta"><code>${escapeHTML(token.prefix)}…</code> · created ${friendlyDate(token.createdAt)} · last used ${friendlyDate(token.lastUsedAt)}</span></div>
              <button class="button danger small" type="button" data-revoke="${token.id}" data-name="${escapeHTML(token.name)}">Revoke</button>
            </li>`, "No tokens yet. Create one to use Reverie from scripts.");
  }

  list.addEventListener("click", async (event) => {
    const button = event.target.closest("[data-revoke]");
    if (!button) return;
    const confirmed = await confirmDialog({
      title: "Revoke this token?",
      message: `Scripts using “${button.dataset.name}” will stop working at once. This cannot be undone; you can create a new token afterwards.`,
      confirm: "Revoke", danger: true,
    });
    if (!confirmed) return;
    try {
      await api(`/api/tokens/${button.dataset.revoke}`, { method: "DELETE" });
      announce(`Token ${button.dataset.name} revoked.`);
    } catch (problem) {
      showError(error, problem);
    }
    load();
  });

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = form.name.value.trim();
    if (!name) {
      showError(error, new Error("Give the token a name, so you can recognise it later."));
      return;
    }
    showError(error, null);
    try {
      const created = await api("/api/tokens", { method: "POST", body: { name } });
      secretBox.querySelector("[data-secret-value]").textContent = created.secret;
      secretBox.hidden = false;
      form.reset();
      announce("Token created. Copy it now; it will not be shown again.");
      load();
    } catch (problem) {
      showError(error, problem);
    }
  });

  secretBox.querySelector('[data-action="copy"]').addEventListener("click", (event) => {
    copyText(secretBox.querySelector("[data-secret-value]"), event.currentTarget);
  });

  load();
}

// MARK: - People

function wirePeople(container, owner, plan) {
  const list = container.querySelector('[data-list="people"]');
  const form = container.querySelector('[data-form="person"]');
  const error = form.querySelector(".form-error");

  function load() {
    return fillList(list, "/api/users", (person) => `
        <li class="list-item">
          <div><strong>${escapeHTML(person.username)}</strong>
            <span class="meta">${person.isOwner ? "Owner" : "Member"} · ${person.plan === "plus" ? "Plus" : "Free"} · joined ${friendlyDate(person.createdAt)}</span></div>
          <div class="item-actions">
            <button class="button small" type="button" data-plan="${person.id}" data-to="${person.plan === "plus" ? "free" : "plus"}" data-name="${escapeHTML(person.username)}"
              aria-label="${person.plan === "plus" ? `Take back Plus from ${escapeHTML(person.username)}` : `Grant Plus to ${escapeHTML(person.username)}`}">${person.plan === "plus" ? "Plus ✓" : "Grant Plus"}</button></div>
          ${person.id === owner.id ? "" : `<div class="item-actions">
            <button class="button small" type="button" data-reset="${person.id}" data-name="${escapeHTML(person.username)}">Temporary password</button>
            <button class="button danger small" type="button" data-remove="${person.id}" data-name="${escapeHTML(person.username)}">Remove</button></div>`}
        </li>`, "Nobody yet.");
  }

  list.addEventListener("click", async (event) => {
    const grant = event.target.closest("[data-plan]");
    if (grant) {
      try {
        await api(`/api/users/${grant.dataset.plan}/plan`, { method: "PUT", body: { plan: grant.dataset.to } });
        announce(grant.dataset.to === "plus" ? `${grant.dataset.name} has Plus.` : `${grant.dataset.name} is back on Free.`);
        if (grant.dataset.plan === owner.id) {
          // The owner's own plan changed: the locks on this screen follow.
          plan.current = await loadPlan();
          paintPlan(list.closest(".settings"), plan.current);
        }
      } catch (problem) {
        showError(error, problem);
      }
      load();
      return;
    }
    const reset = event.target.closest("[data-reset]");
    if (reset) {
      const password = await passwordDialog({
        title: `A temporary password for ${reset.dataset.name}`,
        message: `${reset.dataset.name} is signed out everywhere, signs in with this password, and then chooses their own. Their songs, history and progress stay.`,
        confirm: "Set temporary password",
      });
      if (!password) return;
      try {
        await api(`/api/users/${reset.dataset.reset}/password`, { method: "PUT", body: { password } });
        announce(`${reset.dataset.name} can sign in with the temporary password.`);
        showError(error, null);
        const notice = container.querySelector("[data-people-done]");
        notice.textContent = `Tell ${reset.dataset.name} the temporary password; they choose their own when they sign in.`;
        notice.hidden = false;
      } catch (problem) {
        showError(error, problem);
      }
      return;
    }
    const button = event.target.closest("[data-remove]");
    if (!button) return;
    const confirmed = await confirmDialog({
      title: `Remove ${button.dataset.name}?`,
      message: "Their account, progress, history and lyrics are deleted from this server. This cannot be undone.",
      confirm: "Remove", danger: true,
    });
    if (!confirmed) return;
    try {
      await api(`/api/users/${button.dataset.remove}`, { method: "DELETE" });
      announce(`${button.dataset.name} removed.`);
    } catch (problem) {
      showError(error, problem);
    }
    load();
  });

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    showError(error, null);
    try {
      const person = await api("/api/users", {
        method: "POST", body: { username: data.get("username"), password: data.get("password") },
      });
      form.reset();
      announce(`${person.username} can now sign in.`);
      load();
    } catch (problem) {
      showError(error, problem);
    }
  });

  load();
}

// MARK: - Backups

function wireBackups(container) {
  const list = container.querySelector('[data-list="backups"]');
  const box = container.querySelector("[data-backup-job]");
  const error = container.querySelector("[data-backup-error]");
  const button = container.querySelector('[data-action="backup"]');
  const closed = () => !container.isConnected;

  function paintJob(job) {
    box.hidden = false;
    box.querySelector("progress").value = Math.round(job.progress * 100);
    box.querySelector("[data-job-percent]").textContent = job.status === "running" ? `${Math.round(job.progress * 100)}%` : "";
    box.querySelector("[data-job-text]").textContent = job.status === "queued" ? "Waiting to start…"
      : job.status === "failed" ? `The backup failed: ${job.message || "no reason given"}. Try again; the server's log has more.`
      : job.status === "done" ? "Backup made." : (job.message || "Copying…");
    button.disabled = job.status === "queued" || job.status === "running";
    if (job.status === "done") {
      box.hidden = true;
      announce("Backup made. Download it to keep it somewhere safe.");
      load();
    }
  }

  async function load() {
    let answer;
    try {
      answer = await api("/api/backups");
    } catch (problem) {
      list.innerHTML = `<li class="list-empty"></li>`;
      list.firstChild.textContent = problem.message;
      return;
    }
    list.innerHTML = answer.backups.length ? answer.backups.map((backup) => {
      const when = new Date(backup.createdAt);
      const label = `${friendlyDate(backup.createdAt)}, ${when.toLocaleTimeString(undefined, { hour: "numeric", minute: "2-digit" })}`;
      return `
        <li class="list-item">
          <div><strong>${escapeHTML(label)}</strong>
            <span class="meta">${fileSize(backup.bytes)} · ${backup.files} ${backup.files === 1 ? "file" : "files"} · ${backup.database === "sqlite" ? "SQLite" : "PostgreSQL"}</span></div>
          <div class="item-actions">
            <a class="button small" href="${escapeHTML(backup.downloadURL)}" download aria-label="Download the backup of ${escapeHTML(label)}">Download</a>
            <button class="button danger small" type="button" data-remove-backup="${backup.id}" data-label="${escapeHTML(label)}">Remove</button></div>
        </li>`;
    }).join("") : `<li class="list-empty">No backups yet. Make one before you move the server or change its disk.</li>`;
    if (answer.making && box.hidden) followJob(answer.making.id, paintJob, closed);
  }

  button.addEventListener("click", async () => {
    showError(error, null);
    button.disabled = true;
    let job;
    try {
      job = await api("/api/backups", { method: "POST" });
    } catch (problem) {
      button.disabled = false;
      showError(error, problem);
      return;
    }
    paintJob(job);
    followJob(job.id, paintJob, closed);
  });

  list.addEventListener("click", async (event) => {
    const remove = event.target.closest("[data-remove-backup]");
    if (!remove) return;
    const confirmed = await confirmDialog({
      title: "Remove this backup?",
      message: `The backup of ${remove.dataset.label} is deleted from the server. Copies you downloaded stay where you put them.`,
      confirm: "Remove", danger: true,
    });
    if (!confirmed) return;
    try {
      await api(`/api/backups/${remove.dataset.removeBackup}`, { method: "DELETE" });
      announce("Backup removed.");
    } catch (problem) {
      showError(error, problem);
    }
    load();
  });

  load();
}

// MARK: - About

async function loadFacts(container) {
  const facts = container.querySelector("[data-facts]");
  try {
    const health = await api("/api/health");
    const engines = health.speech.engines.length ? health.speech.engines.join(", ") : "none yet";
    facts.innerHTML = `
      <dt>Version</dt><dd>${escapeHTML(health.version)}</dd>
      <dt>Database</dt><dd>${health.database.kind === "sqlite" ? "SQLite (on this machine)" : "PostgreSQL"}</dd>
      <dt>Speech engines</dt><dd>${escapeHTML(engines)}</dd>
      <dt>API</dt><dd><a href="/openapi.yaml">openapi.yaml</a></dd>`;
  } catch (problem) {
    facts.innerHTML = `<dt>Server</dt><dd></dd>`;
    facts.querySelector("dd").textContent = problem.message;
  }
}
