// The save sheet (/listen/save) the bookmarklet and the Web Share Target (the manifest's
// share_target) open.

import { api } from "../api.js";
import { announce, escapeHTML, setImmersive } from "../dom.js";
import { followJob } from "../jobs.js";

/**
 * The seed's share sheet for the bookmarklet and the Web Share Target: saving, then the logo, a
 * drawn checkmark, "Saved", the title, and Read / Listen; or the error with Retry and Cancel.
 * Success goes away after 4 s, an error after 6 s, unless the person touches the sheet first.
 */
export class SaveSheet {
  constructor(container, params) {
    this.container = container;
    this.closed = false;
    const shared = [params.get("url"), params.get("text"), params.get("title")].filter(Boolean).join(" ");
    this.url = params.get("url") || (shared.match(/https?:\/\/\S+/) || [null])[0];
    this.text = this.url ? null : params.get("text");
    this.title = params.get("title") || "";
    // Opened by the bookmarklet, which hands over the page itself.
    this.fromPage = params.get("page") === "1" && Boolean(window.opener) && Boolean(this.url);
    setImmersive(true);
    this.container.innerHTML = `<section class="save-page" aria-labelledby="save-heading"><h1 id="save-heading" class="sr-only">Save to Reverie</h1><div class="save-backdrop"></div></section>`;
    this.save();
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    setImmersive(false);
  }

  sheet(html, label) {
    const page = this.container.querySelector(".save-page");
    page.querySelector(".save-sheet")?.remove();
    const sheet = document.createElement("div");
    sheet.className = "save-sheet";
    sheet.setAttribute("role", "dialog");
    sheet.setAttribute("aria-label", label);
    sheet.innerHTML = `<div class="grab-bar" aria-hidden="true"></div>${html}`;
    page.append(sheet);
    return sheet;
  }

  async save() {
    const sheet = this.sheet(`<div class="save-saving"><span class="spinner" aria-hidden="true"></span><p role="status">Saving${this.title ? ` “${escapeHTML(this.title)}”` : ""}…</p><progress max="100" value="0" aria-label="Saving"></progress></div>`, "Saving");
    try {
      let article;
      const html = this.fromPage ? await this.pageFromOpener() : null;
      if (html && !this.closed) {
        try {
          article = await api("/api/articles", { method: "POST", body: { url: this.url, html } });
        } catch {
          article = null;  // not an article as handed over: the server fetches the address below
        }
      }
      if (article) {
        if (this.closed) return;
      } else if (this.url) {
        const job = await api("/api/articles", { method: "POST", body: { url: this.url } });
        const done = await new Promise((resolve) => followJob(job.id, (current) => {
          const bar = sheet.querySelector("progress");
          if (bar) bar.value = Math.round(current.progress * 100);
          if (current.status === "done" || current.status === "failed") resolve(current);
        }, () => this.closed));
        if (this.closed) return;
        if (done.status === "failed") throw new Error(done.message || "The page could not be saved.");
        article = (await api(`/api/articles/${done.itemID}`)).summary;
      } else if (this.text) {
        article = await api("/api/articles", { method: "POST", body: { text: this.text, title: this.title } });
      } else {
        throw new Error("Nothing was shared: share a web page, or some text.");
      }
      if (!this.closed) this.saved(article);
    } catch (error) {
      if (!this.closed) this.failed(error.message);
    }
  }

  /**
   * The page's document from the window that opened the sheet (the bookmarklet), asked for once
   * the sheet is ready; null if none comes within 3 s. Only a message from the opener, from the
   * origin of the address being saved, is taken.
   */
  pageFromOpener() {
    return new Promise((resolve) => {
      let expected;
      try { expected = new URL(this.url).origin; } catch { resolve(null); return; }
      const listen = (event) => {
        if (event.source !== window.opener || event.origin !== expected || event.data?.reveriePage !== 1 || event.data.url !== this.url) return;
        clearTimeout(timer);
        window.removeEventListener("message", listen);
        resolve(typeof event.data.html === "string" ? event.data.html : null);
      };
      const timer = setTimeout(() => { window.removeEventListener("message", listen); resolve(null); }, 3000);
      window.addEventListener("message", listen);
      window.opener.postMessage("reverie-ready", expected);
    });
  }

  saved(article) {
    const sheet = this.sheet(`
      <img class="save-logo" src="/icons/icon-192.png" alt="" width="100" height="100">
      <p class="save-done"><svg class="save-check" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">
        <circle class="save-check-circle" cx="12" cy="12" r="10.5" pathLength="1"/><path class="save-check-mark" d="M7 12.5l3.2 3.2L17 9" pathLength="1"/></svg>
        <span>Saved</span></p>
      <p class="save-title">${escapeHTML(article.title)}</p>
      <div class="save-actions">
        <a class="button save-read" href="/listen/articles/${article.id}?action=read" data-link>Read</a>
        <a class="button primary save-listen" href="/listen/articles/${article.id}?action=listen" data-link>Listen</a>
      </div>`, "Saved");
    announce(`Saved “${article.title}”.`);
    this.dismissAfter(sheet, 4000);
  }

  failed(message) {
    const sheet = this.sheet(`
      <svg class="save-error-icon" viewBox="0 0 24 24" width="70" height="70" aria-hidden="true"><circle cx="12" cy="12" r="10"/><path d="M12 7v6M12 16.5v.5"/></svg>
      <h2 class="save-error-title">Couldn't Save Article</h2>
      <p class="save-error-message" role="alert">${escapeHTML(message)}</p>
      <div class="save-actions">
        <button class="button" type="button" data-cancel>Cancel</button>
        <button class="button primary" type="button" data-retry>Retry</button>
      </div>`, "Couldn't save");
    sheet.querySelector("[data-retry]").addEventListener("click", () => { clearTimeout(this.timer); this.save(); });
    sheet.querySelector("[data-cancel]").addEventListener("click", () => this.dismiss());
    this.dismissAfter(sheet, 6000);
  }

  /** Goes away after `ms`, unless the person touches, clicks or types in the sheet first. */
  dismissAfter(sheet, ms) {
    clearTimeout(this.timer);
    sheet.dataset.autoDismiss = String(ms);
    this.timer = setTimeout(() => this.dismiss(), ms);
    const keep = () => {
      clearTimeout(this.timer);
      delete sheet.dataset.autoDismiss;
    };
    for (const type of ["pointerdown", "keydown", "focusin", "wheel", "touchstart"]) sheet.addEventListener(type, keep, { once: true, passive: true });
  }

  dismiss() {
    if (this.closed) return;
    const sheet = this.container.querySelector(".save-sheet");
    sheet?.classList.add("leaving");
    setTimeout(() => {
      if (this.closed) return;
      // Opened by the bookmarklet: the little window closes. Otherwise, the articles.
      if (window.opener && window.name === "reverie-save") { window.close(); return; }
      history.replaceState({}, "", "/listen/articles");
      window.dispatchEvent(new PopStateEvent("popstate"));
    }, 250);
  }
}
