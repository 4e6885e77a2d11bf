// Settings → Apps: connect an app the person already uses (a podcast app speaking gpodder, a
// read-later app speaking wallabag's API; later a Subsonic music app) with an app password of its
// own, shown once with the server's address, the user name (and for wallabag the OAuth client id
// and secret) and how to set the app up; the apps connected, what each last did, and a revoke that
// waits out its Undo before the password stops working.

import { api } from "../api.js";
import { UndoableDelete, announce, copyText, escapeHTML, fillList, friendlyDate, showError } from "../dom.js";

/** The kinds of app, as the server names them, and whether this server answers them yet. */
const KINDS = [
  { id: "gpodder", name: "Podcast app (gpodder)", short: "Podcast app", served: true, example: "AntennaPod on my phone" },
  { id: "wallabag", name: "Read-later app (wallabag)", short: "Read-later app", served: true, example: "wallabag on my iPhone" },
  { id: "subsonic", name: "Music app (Subsonic)", short: "Music app", served: false, example: "" },
];
const UNDO_SECONDS = 10;
const EMPTY = "No apps connected yet.";

/** The section's markup (a card); `wireApps` brings it to life. */
export function appsSectionHTML() {
  return `
      <section class="card apps" aria-labelledby="apps-heading">
        <h2 id="apps-heading">Apps</h2>
        <p class="hint">Connect the podcast app you already use (AntennaPod, Kasts, gPodder): it keeps its subscriptions and places in Reverie, and Reverie's in it. Or a read-later app (wallabag, its browser extension): the pages it saves come to Listen, read aloud like any article. Each app gets its own password, which works only for its kind and can be revoked here.</p>
        <div class="notice app-connect" data-app-connect role="group" aria-labelledby="app-connect-text" hidden>
          <p id="app-connect-text" data-app-connect-text></p>
          <div class="row" data-app-connect-buttons>
            <button class="button primary" type="button" data-action="approve-app">Connect</button>
            <button class="button" type="button" data-action="decline-app">Not now</button>
          </div>
        </div>
        <ul class="list" data-list="apps" aria-label="Connected apps"><li class="list-empty">Loading…</li></ul>
        <p class="listen-undo" data-apps-undo hidden><span></span> <button class="button small" type="button">Undo</button></p>
        <div class="secret app-secret" data-app-secret hidden>
          <p><strong data-app-shown-once>Shown once: copy the password now.</strong></p>
          <dl class="facts">
            <dt>Server</dt><dd><code data-app-server></code></dd>
            <dt>User name</dt><dd><code data-app-username></code></dd>
            <dt>App password</dt>
            <dd class="secret-row"><code data-app-secret-value></code><button class="button small" type="button" data-copy="secret-value" aria-label="Copy the app password">Copy</button></dd>
            <dt data-app-client hidden>Client ID</dt>
            <dd data-app-client hidden><div class="secret-row"><code data-app-client-id></code><button class="button small" type="button" data-copy="client-id" aria-label="Copy the client ID">Copy</button></div></dd>
            <dt data-app-client hidden>Client secret</dt>
            <dd data-app-client hidden><div class="secret-row"><code data-app-client-secret></code><button class="button small" type="button" data-copy="client-secret" aria-label="Copy the client secret">Copy</button></div></dd>
          </dl>
          <figure class="app-qr" data-app-qr hidden>
            <div data-app-qr-code></div>
            <figcaption class="hint">Scan to type the server address</figcaption>
          </figure>
          <div data-app-steps="gpodder">
            <h3 class="app-steps-heading">In your podcast app</h3>
            <ol class="app-steps">
              <li><strong>AntennaPod:</strong> Settings → Synchronization → “gpodder.net” → “Custom server”: enter the server, then the user name and app password; pick or name this device.</li>
              <li><strong>Kasts:</strong> Settings → Synchronization → gpodder.net, with a custom server: the server, user name and app password.</li>
              <li><strong>gPodder:</strong> Preferences → gpodder.net: the server URL, user name and app password.</li>
            </ol>
          </div>
          <div data-app-steps="wallabag" hidden>
            <h3 class="app-steps-heading">In wallabag</h3>
            <ol class="app-steps">
              <li><strong>wallabag app (iOS, Android):</strong> on its login screen (Android: Settings → Connection), enter the server address, client ID, client secret, user name and app password.</li>
              <li><strong>Browser extension (wallabagger):</strong> its options: the same server address, client ID, client secret, user name and app password.</li>
              <li><strong>Then:</strong> share any page to wallabag (the share sheet, or the extension's button) and it is saved to Listen, where Reverie reads it aloud.</li>
            </ol>
          </div>
        </div>
        <form class="inline-form" data-form="app" novalidate>
          <fieldset class="app-kinds">
            <legend>Kind of app</legend>
            ${KINDS.map((kind) => `
            <label class="app-kind">
              <input type="radio" name="kind" value="${kind.id}" data-example="${escapeHTML(kind.example)}"${kind.served ? "" : " disabled"}${kind === KINDS[0] ? " checked" : ""}>
              <span>${escapeHTML(kind.name)}${kind.served ? "" : ' <span class="app-coming">(coming)</span>'}</span>
            </label>`).join("")}
          </fieldset>
          <label for="app-name">Name</label>
          <input id="app-name" name="name" maxlength="100" placeholder="${escapeHTML(KINDS[0].example)}" autocomplete="off" required>
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
      const example = form.querySelector('input[name="kind"]:checked')?.dataset.example || KINDS[0].example;
      showError(error, new Error(`Give the app a name, so you know it later (“${example}”).`));
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
      announce(`${created.app.name} connected. ${box.querySelector("[data-app-shown-once]").textContent}`);
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
    // wallabag's apps sign in as an OAuth client too: its id and secret, shown once with the password.
    const client = Boolean(created.clientId && created.clientSecret);
    box.querySelector("[data-app-client-id]").textContent = client ? created.clientId : "";
    box.querySelector("[data-app-client-secret]").textContent = client ? created.clientSecret : "";
    for (const part of box.querySelectorAll("[data-app-client]")) part.hidden = !client;
    box.querySelector("[data-app-shown-once]").textContent = client
      ? "Shown once: copy the password and client secret now." : "Shown once: copy the password now.";
    for (const steps of box.querySelectorAll("[data-app-steps]")) steps.hidden = steps.dataset.appSteps !== created.app.kind;
    for (const button of box.querySelectorAll("[data-copy]")) button.textContent = "Copy";
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

  for (const button of box.querySelectorAll("[data-copy]")) {
    button.addEventListener("click", (event) => {
      copyText(box.querySelector(`[data-app-${button.dataset.copy}]`), event.currentTarget);
    });
  }

  // The name's example follows the kind chosen.
  form.addEventListener("change", (event) => {
    if (event.target.name === "kind") form.elements.name.placeholder = event.target.dataset.example;
  });

  wireConnect(section, load);

  const onPageHide = () => revokes.commit();
  window.addEventListener("pagehide", onPageHide);
  load();

  return () => {
    window.removeEventListener("pagehide", onPageHide);
    revokes.commit();
    return sending;
  };
}

/**
 * An app that signs in with Nextcloud's login flow (AntennaPod's "Nextcloud" sync) sends the
 * person here (`/settings?connect=TOKEN`): they approve it, and the app collects a password of its
 * own; they never type theirs into it.
 */
function wireConnect(section, reload) {
  const token = new URLSearchParams(location.search).get("connect");
  if (!token) return;
  const card = section.querySelector("[data-app-connect]");
  const text = card.querySelector("[data-app-connect-text]");
  const buttons = card.querySelector("[data-app-connect-buttons]");
  const done = (message) => {
    text.textContent = message;
    buttons.hidden = true;
    announce(message);
    history.replaceState({}, "", location.pathname);  // a reload does not ask again
  };
  api(`/api/apps/login-flows/${encodeURIComponent(token)}`).then((flow) => {
    text.textContent = `“${flow.name}” asks to keep your podcasts in step with Reverie. It gets a password of its own, for podcasts only, that you can revoke here. Connect only if you just asked for this in the app.`;
    card.hidden = false;
    section.scrollIntoView({ block: "start" });  // Apps' heading at the top, the question under it
    card.scrollIntoView({ block: "nearest" });  // ...and all of it in view with large text too
    card.querySelector('[data-action="approve-app"]').focus({ preventScroll: true });
  }).catch((problem) => {
    card.hidden = false;
    done(problem.message);
  });
  card.querySelector('[data-action="approve-app"]').addEventListener("click", async (event) => {
    event.currentTarget.disabled = true;
    try {
      const app = await api(`/api/apps/login-flows/${encodeURIComponent(token)}`, { method: "POST" });
      done(`Connected “${app.name}”. Go back to the app: it finishes signing in by itself.`);
      reload();
    } catch (problem) {
      done(problem.message);
    }
  });
  card.querySelector('[data-action="decline-app"]').addEventListener("click", () => {
    card.hidden = true;
    history.replaceState({}, "", location.pathname);
    announce("Not connected.");
  });
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
