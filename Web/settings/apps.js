// Settings → Apps: connect an app the person already uses (a podcast app speaking gpodder, later a
// Subsonic music app or a wallabag client) with an app password of its own, shown once with the
// server's address, the user name and how to set the app up; the apps connected, what each last
// did, and a revoke that waits out its Undo before the password stops working.

import { api } from "../api.js";
import { UndoableDelete, announce, copyText, escapeHTML, fillList, friendlyDate, showError } from "../dom.js";

/** The kinds of app, as the server names them, and whether this server answers them yet. */
const KINDS = [
  { id: "gpodder", name: "Podcast app (gpodder)", short: "Podcast app", served: true },
  { id: "subsonic", name: "Music app (Subsonic)", short: "Music app", served: false },
  { id: "wallabag", name: "wallabag", short: "wallabag", served: false },
];
const UNDO_SECONDS = 10;
const EMPTY = "No apps connected yet.";

/** The section's markup (a card); `wireApps` brings it to life. */
export function appsSectionHTML() {
  return `
      <section class="card apps" aria-labelledby="apps-heading">
        <h2 id="apps-heading">Apps</h2>
        <p class="hint">Connect the podcast app you already use (AntennaPod, Kasts, gPodder): it keeps its subscriptions and places in Reverie, and Reverie's in it. Each app gets its own password, which works only for its kind and can be revoked here.</p>
        <ul class="list" data-list="apps" aria-label="Connected apps"><li class="list-empty">Loading…</li></ul>
        <p class="listen-undo" data-apps-undo hidden><span></span> <button class="button small" type="button">Undo</button></p>
        <div class="secret app-secret" data-app-secret hidden>
          <p><strong>Shown once: copy the password now.</strong></p>
          <dl class="facts">
            <dt>Server</dt><dd><code data-app-server></code></dd>
            <dt>User name</dt><dd><code data-app-username></code></dd>
            <dt>App password</dt>
            <dd class="secret-row"><code data-app-secret-value></code><button class="button small" type="button" data-action="copy-app-password" aria-label="Copy the app password">Copy</button></dd>
          </dl>
          <figure class="app-qr" data-app-qr hidden>
            <div data-app-qr-code></div>
            <figcaption class="hint">Scan to type the server address</figcaption>
          </figure>
          <h3 class="app-steps-heading">In your podcast app</h3>
          <ol class="app-steps">
            <li><strong>AntennaPod:</strong> Settings → Synchronization → “gpodder.net” → “Custom server”: enter the server, then the user name and app password; pick or name this device.</li>
            <li><strong>Kasts:</strong> Settings → Synchronization → gpodder.net, with a custom server: the server, user name and app password.</li>
            <li><strong>gPodder:</strong> Preferences → gpodder.net: the server URL, user name and app password.</li>
          </ol>
        </div>
        <form class="inline-form" data-form="app" novalidate>
          <fieldset class="app-kinds">
            <legend>Kind of app</legend>
            ${KINDS.map((kind) => `
            <label class="app-kind">
              <input type="radio" name="kind" value="${kind.id}"${kind.served ? "" : " disabled"}${kind === KINDS[0] ? " checked" : ""}>
              <span>${escapeHTML(kind.name)}${kind.served ? "" : ' <span class="app-coming">(coming)</span>'}</span>
            </label>`).join("")}
          </fieldset>
          <label for="app-name">Name</label>
          <input id="app-name" name="name" maxlength="100" placeholder="AntennaPod on my phone" autocomplete="off" required>
          <p class="form-error" role="alert" hidden></p>
          <button class="button primary" type="submit">Connect</button>
        </form>
      </section>`;
}

/**
 * Lists the person's apps, connects new ones and revokes them with Undo. Returns `settle()`, for
 * leaving the screen or signing out: a revoke still waiting out its Undo is sent at once, and the
 * promise resolves once the server has answered it.
 */
export function wireApps(container) {
  const section = container.querySelector(".apps");
  const list = section.querySelector('[data-list="apps"]');
  const form = section.querySelector('[data-form="app"]');
  const error = form.querySelector(".form-error");
  const box = section.querySelector("[data-app-secret]");
  let sending = Promise.resolve();

  function paintHidden() {
    for (const item of list.querySelectorAll("[data-app]")) item.hidden = item.dataset.app === revokes.hiddenID;
    // The only app waiting out its Undo: the list says there are none, as it will.
    const none = list.querySelector("[data-app]") && !list.querySelector("[data-app]:not([hidden])");
    list.querySelector("[data-none]")?.remove();
    if (none) list.insertAdjacentHTML("beforeend", `<li class="list-empty" data-none>${EMPTY}</li>`);
  }

  function load() {
    return fillList(list, "/api/apps", itemHTML, EMPTY).then(paintHidden);
  }

  const revokes = new UndoableDelete(section.querySelector("[data-apps-undo]"), {
    seconds: UNDO_SECONDS,
    verb: "Revoked",
    repaint: paintHidden,
    deleted: (app) => {
      if (box.dataset.app === app.id) forget();  // its password, shown once, is no use now
      // keepalive: a revoke sent as the page closes still reaches the server.
      sending = api(`/api/apps/${app.id}`, { method: "DELETE", keepalive: true })
        .then(() => announce(`“${app.title}” can no longer sign in.`))
        .catch((problem) => { if (problem.status !== 404) showError(error, new Error(`“${app.title}” was not revoked: ${problem.message}`)); })
        .then(() => { if (section.isConnected) return load(); });
    },
  });

  list.addEventListener("click", (event) => {
    const button = event.target.closest("[data-revoke]");
    if (!button) return;
    showError(error, null);
    revokes.start({ id: button.dataset.revoke, title: button.dataset.name });
    announce(`Revoked “${button.dataset.name}”. Undo brings it back.`);
  });

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = form.elements.name.value.trim();
    const kind = form.querySelector('input[name="kind"]:checked')?.value;
    if (!name) {
      showError(error, new Error("Give the app a name, so you know it later (“AntennaPod on my phone”)."));
      form.elements.name.focus();
      return;
    }
    showError(error, null);
    const connect = form.querySelector('button[type="submit"]');
    connect.disabled = true;
    try {
      const created = await api("/api/apps", { method: "POST", body: { kind, name } });
      showCreated(created);
      form.elements.name.value = "";
      announce(`${created.app.name} connected. Shown once: copy the password now.`);
      load();
    } catch (problem) {
      showError(error, problem);
    } finally {
      connect.disabled = false;
    }
  });

  function showCreated(created) {
    box.dataset.app = created.id;
    box.querySelector("[data-app-server]").textContent = created.server;
    box.querySelector("[data-app-username]").textContent = created.username;
    box.querySelector("[data-app-secret-value]").textContent = created.secret;
    box.querySelector('[data-action="copy-app-password"]').textContent = "Copy";
    const qr = box.querySelector("[data-app-qr]");
    const code = box.querySelector("[data-app-qr-code]");
    code.innerHTML = created.qr || "";  // drawn by the server's qrencode from the address above
    const svg = code.querySelector("svg");
    svg?.setAttribute("role", "img");
    svg?.setAttribute("aria-label", `QR code of ${created.server}`);
    qr.hidden = !svg;
    box.hidden = false;
    box.scrollIntoView({ block: "nearest" });
  }

  function forget() {
    box.hidden = true;
    delete box.dataset.app;
    for (const value of box.querySelectorAll("code")) value.textContent = "";
  }

  box.querySelector('[data-action="copy-app-password"]').addEventListener("click", (event) => {
    copyText(box.querySelector("[data-app-secret-value]"), event.currentTarget);
  });

  const onPageHide = () => revokes.commit();
  window.addEventListener("pagehide", onPageHide);
  load();

  return () => {
    window.removeEventListener("pagehide", onPageHide);
    revokes.commit();
    return sending;
  };
}

function itemHTML(app) {
  const kind = KINDS.find((one) => one.id === app.kind)?.short ?? app.kind;
  const action = app.lastAction ? ` — ${escapeHTML(app.lastAction)}` : "";
  return `
            <li class="list-item" data-app="${escapeHTML(app.id)}">
              <div><strong>${escapeHTML(app.name)}</strong>
                <span class="meta">${escapeHTML(kind)} · <code>${escapeHTML(app.prefix)}…</code> · connected ${friendlyDate(app.createdAt)}</span>
                <span class="meta">last used ${friendlyDate(app.lastUsedAt)}${action}</span></div>
              <button class="button danger small" type="button" data-revoke="${escapeHTML(app.id)}" data-name="${escapeHTML(app.name)}"
                aria-label="Revoke ${escapeHTML(app.name)}">Revoke</button>
            </li>`;
}
