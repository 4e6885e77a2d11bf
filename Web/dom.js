// Small DOM helpers shared by the screens.

import { api } from "./api.js";

/** Escapes text for use inside HTML. */
export function escapeHTML(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

/** Says something to screen readers through the polite live region. */
export function announce(message) {
  const region = document.getElementById("announcer");
  region.textContent = "";
  setTimeout(() => { region.textContent = message; }, 50);
}

/**
 * Full screen for a running session: the tab bar steps aside, so nothing covers the session's own
 * controls and a stray tap cannot leave it. The brand link still leads out.
 */
export function setImmersive(on) {
  document.getElementById("shell").dataset.immersive = String(Boolean(on));
}

/** Shows an error (or clears it with null) in a form's alert element. */
export function showError(element, error) {
  element.textContent = error ? error.message : "";
  element.hidden = !error;
}

/**
 * Asks for confirmation in a modal dialog. Resolves true when the person confirms.
 * @param {{title: string, message: string, confirm: string, danger?: boolean}} options
 */
export function confirmDialog({ title, message, confirm, danger = false }) {
  return modalDialog({ title, message, confirm, danger }, (dialog) => {
    dialog.querySelector('button[value="cancel"]').focus();
    return (confirmed) => confirmed;
  });
}

/**
 * A modal dialog with a title, a message, `fields` (HTML) and Cancel / `confirm` buttons.
 * `wire(dialog)` sets it up and returns how to answer: it gets whether the person confirmed.
 */
function modalDialog({ title, message, confirm, danger = false, fields = "" }, wire) {
  return new Promise((resolve) => {
    const dialog = document.createElement("dialog");
    dialog.className = "dialog";
    dialog.innerHTML = `
      <form method="dialog" novalidate>
        <h2>${escapeHTML(title)}</h2>
        <p>${escapeHTML(message)}</p>
        ${fields}
        <div class="dialog-actions">
          <button value="cancel" class="button">Cancel</button>
          <button value="confirm" class="button ${danger ? "danger" : "primary"}">${escapeHTML(confirm)}</button>
        </div>
      </form>`;
    document.body.append(dialog);
    dialog.showModal();
    const answer = wire(dialog);
    dialog.addEventListener("close", () => {
      resolve(answer(dialog.returnValue === "confirm"));
      dialog.remove();
    });
  });
}

/**
 * Asks for a new password in a modal dialog (at least 8 characters). Resolves with it, or null
 * when the person cancels.
 * @param {{title: string, message: string, confirm: string}} options
 */
export function passwordDialog({ title, message, confirm }) {
  return fieldDialog({ title, message, confirm, label: "Temporary password", name: "password",
    attributes: `autocapitalize="none" spellcheck="false" minlength="8"`,
    check: (value) => (value.length < 8 ? "A password needs at least 8 characters." : null) });
}

/**
 * Asks for a name in a modal dialog (1 to `maxLength` characters, trimmed). Resolves with it, or
 * null when the person cancels.
 */
export async function nameDialog({ title, message, confirm, value = "", placeholder = "", maxLength = 60 }) {
  const name = await fieldDialog({ title, message, confirm, label: "Name", name: "name", value,
    attributes: `maxlength="${maxLength}" placeholder="${escapeHTML(placeholder)}"`,
    check: (text) => (text.trim() ? null : "Give it a name.") });
  return name == null ? null : name.trim();
}

/** A modal dialog with one text field: its value when confirmed and `check(value)` says nothing
 *  against it (what it says shows under the field), else null. */
function fieldDialog({ title, message, confirm, label, name, value = "", attributes = "", check }) {
  const fields = `
    <label for="dialog-${name}">${escapeHTML(label)}</label>
    <input id="dialog-${name}" name="${name}" type="text" autocomplete="off" value="${escapeHTML(value)}" ${attributes}>
    <p class="form-error" role="alert" hidden></p>`;
  return modalDialog({ title, message, confirm, fields }, (dialog) => {
    const input = dialog.querySelector("input");
    const confirmButton = dialog.querySelector('button[value="confirm"]');
    confirmButton.addEventListener("click", (event) => {
      const problem = check(input.value);
      if (problem) {
        event.preventDefault();
        showError(dialog.querySelector(".form-error"), new Error(problem));
        input.focus();
      }
    });
    input.addEventListener("keydown", (event) => {
      if (event.key !== "Enter") return;
      event.preventDefault();  // the form's first button is Cancel
      confirmButton.click();
    });
    input.focus();
    input.select();
    return (confirmed) => (confirmed ? input.value : null);
  });
}

/**
 * Copies the text of `code` (a secret shown once) to the clipboard and says so on `button`; where
 * the browser does not allow it (an address that is not secure), selects the text to copy by hand.
 */
export async function copyText(code, button) {
  try {
    await navigator.clipboard.writeText(code.textContent);
    button.textContent = "Copied";
  } catch {
    const range = document.createRange();
    range.selectNodeContents(code);
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    button.textContent = "Selected: copy it";
  }
}

/** A short, friendly date: "today", "yesterday" or "3 Nov 2026". */
export function friendlyDate(iso) {
  if (!iso) return "never";
  const date = new Date(iso);
  const today = new Date();
  const days = Math.round((new Date(today.toDateString()) - new Date(date.toDateString())) / 86400000);
  if (days === 0) return "today";
  if (days === 1) return "yesterday";
  return date.toLocaleDateString(undefined, { day: "numeric", month: "short", year: "numeric" });
}

/**
 * Sends a username and password form to `path` and signs the person in with the answer.
 * `check(data)` may return an Error to show instead of sending.
 */
export function submitCredentials(form, path, session, { check = () => null, onFailure = () => {} } = {}) {
  const error = form.querySelector(".form-error");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const problem = check(data);
    if (problem) {
      showError(error, problem);
      return;
    }
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    showError(error, null);
    try {
      const result = await api(path, {
        method: "POST",
        body: { username: data.get("username"), password: data.get("password") },
      });
      await session.signedIn(result.user);
    } catch (failure) {
      showError(error, failure);
      onFailure(failure);
      button.disabled = false;
    }
  });
}

/**
 * Fills a <ul> from an API list: one item per entry, `empty` text when there are none, the
 * error's message when loading fails.
 */
export async function fillList(list, path, renderItem, empty) {
  try {
    const items = await api(path);
    list.innerHTML = items.length ? items.map(renderItem).join("") : `<li class="list-empty">${escapeHTML(empty)}</li>`;
  } catch (problem) {
    list.innerHTML = `<li class="list-empty"></li>`;
    list.firstChild.textContent = problem.message;
  }
}

/** A size for people: "840 KB", "12.5 MB", "3.1 GB". */
export function fileSize(bytes) {
  if (bytes < 1000) return `${bytes} bytes`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = -1;
  do { value /= 1000; unit += 1; } while (value >= 1000 && unit < units.length - 1);
  return `${value >= 100 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}

/** The person's time zone name (Europe/Paris), for answers that depend on their hour; UTC when unknown. */
export function timeZone() {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}

// MARK: - A page that is not secure

/**
 * What this browser cannot do because the page's address is not secure (plain http on a LAN
 * address, not https or localhost: no install, no offline start, no wake lock), as one sentence;
 * null on a secure page. `what` finishes "…so this browser can't ".
 */
export function insecureSentence(what) {
  return window.isSecureContext ? null : `This address is not secure, so this browser can't ${what}.`;
}

/**
 * The same as a notice (HTML) with a link to the server's /welcome page, which explains HTTPS and
 * its certificate; "" on a secure page.
 */
export function secureContextNotice(what) {
  const sentence = insecureSentence(what);
  return sentence ? `<p class="notice" data-secure-notice>${escapeHTML(sentence)} <a href="/welcome">Set up HTTPS</a></p>` : "";
}

/** A value kept in localStorage as JSON; `fallback` when there is none or it does not parse. */
export function storedJSON(key, fallback) {
  try {
    return JSON.parse(localStorage.getItem(key) || "null") ?? fallback;
  } catch {
    return fallback;
  }
}

/** Calls `fn` once calls stop coming for `ms` (typing, say); `.cancel()` drops the call waiting. */
export function debounce(fn, ms) {
  let timer = null;
  const debounced = (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
  debounced.cancel = () => clearTimeout(timer);
  return debounced;
}

/**
 * A delete that waits out its Undo, for a list: `start(item)` hides the item (the list leaves
 * out `hiddenID` when it paints) and says "Deleted “title”." (or `verb` for "Deleted":
 * "Revoked “title”.") with an Undo button in `box` (a `<p>` with a `<span>` and a `<button>`);
 * after `seconds`, or at `commit()` (the screen is left, another delete starts), `deleted(item)`
 * does the deleting. `undo()` brings the item back.
 */
export class UndoableDelete {
  constructor(box, { deleted, repaint, seconds = 10, verb = "Deleted" }) {
    this.box = box;
    this.deleted = deleted;
    this.repaint = repaint;
    this.seconds = seconds;
    this.verb = verb;
    this.pending = null;   // {item, timer}
    box.querySelector("button").addEventListener("click", () => this.undo());
  }

  get hiddenID() { return this.pending?.item.id; }

  start(item) {
    this.commit();
    this.pending = { item, timer: setTimeout(() => this.commit(), this.seconds * 1000) };
    this.box.querySelector("span").textContent = `${this.verb} “${item.title}”.`;
    this.box.hidden = false;
    this.repaint();
    this.box.querySelector("button").focus();
  }

  undo() {
    if (!this.pending) return;
    clearTimeout(this.pending.timer);
    announce(`“${this.pending.item.title}” is back.`);
    this.pending = null;
    this.box.hidden = true;
    this.repaint();
  }

  commit() {
    const pending = this.pending;
    if (!pending) return;
    clearTimeout(pending.timer);
    this.pending = null;
    this.box.hidden = true;
    this.deleted(pending.item);
  }
}
