// Settings: theme, a voice to try, account, personal tokens, people (owner only) and what this server is.

import { api } from "../api.js";
import { announce, confirmDialog, escapeHTML, fillList, friendlyDate, passwordDialog, showError } from "../dom.js";
import { THEMES, applyTheme, currentTheme } from "../theme.js";
import { voicePanelHTML, wireVoicePanel } from "./voice-panel.js";
import { passwordFormHTML, wirePasswordForm } from "./password.js";

export const id = "settings";

export async function render(container, session) {
  const user = session.user;
  container.innerHTML = `
    <div class="settings">
      <h1 class="page-title">Settings</h1>

      <section class="card" aria-labelledby="theme-heading">
        <h2 id="theme-heading">Theme</h2>
        <p class="hint">Applies everywhere in Reverie, on every device you sign in on.</p>
        <div class="theme-grid" role="radiogroup" aria-labelledby="theme-heading">
          ${THEMES.map((theme) => `
            <label class="theme-option" data-preview="${theme.id}">
              <input type="radio" name="theme" value="${theme.id}">
              <span class="swatch" aria-hidden="true"><i></i><i></i><i></i></span>
              <span class="theme-name">${theme.name}</span>
              <span class="theme-note">${theme.note}</span>
            </label>`).join("")}
        </div>
        <p class="form-error" role="alert" data-for="theme" hidden></p>
      </section>

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
      </section>` : ""}

      <section class="card" aria-labelledby="about-heading">
        <h2 id="about-heading">About this server</h2>
        <dl class="facts" data-facts><dt>Version</dt><dd>…</dd></dl>
      </section>
    </div>`;

  wireTheme(container);
  wireVoicePanel(container);
  wireAccount(container, session);
  wireTokens(container);
  if (user.isOwner) wirePeople(container, user);
  loadFacts(container);
}

// MARK: - Theme

function wireTheme(container) {
  const current = currentTheme();
  const error = container.querySelector('[data-for="theme"]');
  for (const input of container.querySelectorAll('input[name="theme"]')) {
    input.checked = input.value === current;
    input.addEventListener("change", async () => {
      const previous = currentTheme();
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

// MARK: - Account

function wireAccount(container, session) {
  const done = container.querySelector("[data-password-done]");
  wirePasswordForm(container.querySelector('[data-password] form'), (user) => {
    session.user = user;
    done.textContent = "Password changed. Your other devices and tokens are signed out.";
    done.hidden = false;
    announce(done.textContent);
  });
  container.querySelector('[data-action="logout"]').addEventListener("click", async (event) => {
    event.target.disabled = true;
    try {
      await api("/api/auth/logout", { method: "POST" });
    } catch {
      // Signed out locally either way; an expired session is already gone on the server.
    }
    session.signedOut();
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

  secretBox.querySelector('[data-action="copy"]').addEventListener("click", async (event) => {
    const value = secretBox.querySelector("[data-secret-value]").textContent;
    try {
      await navigator.clipboard.writeText(value);
      event.target.textContent = "Copied";
    } catch {
      const range = document.createRange();
      range.selectNodeContents(secretBox.querySelector("[data-secret-value]"));
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      event.target.textContent = "Selected: copy it";
    }
  });

  load();
}

// MARK: - People

function wirePeople(container, owner) {
  const list = container.querySelector('[data-list="people"]');
  const form = container.querySelector('[data-form="person"]');
  const error = form.querySelector(".form-error");

  function load() {
    return fillList(list, "/api/users", (person) => `
        <li class="list-item">
          <div><strong>${escapeHTML(person.username)}</strong>
            <span class="meta">${person.isOwner ? "Owner" : "Member"} · joined ${friendlyDate(person.createdAt)}</span></div>
          ${person.id === owner.id ? "" : `<div class="item-actions">
            <button class="button small" type="button" data-reset="${person.id}" data-name="${escapeHTML(person.username)}">Temporary password</button>
            <button class="button danger small" type="button" data-remove="${person.id}" data-name="${escapeHTML(person.username)}">Remove</button></div>`}
        </li>`, "Nobody yet.");
  }

  list.addEventListener("click", async (event) => {
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
