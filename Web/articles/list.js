// Listen's article list (/listen/articles): in progress, saved and finished, with source, reading
// time and progress; saving by URL, pasted text or an imported EPUB, PDF, HTML or TXT file with the
// import job's progress; delete with Undo; the bookmarklet.

import { api } from "../api.js";
import { icon } from "../areas.js";
import { UndoableDelete, announce, escapeHTML } from "../dom.js";
import { followJob } from "../jobs.js";
import { sendFile } from "../upload.js";

const TRASH_ICON = "M4 7h16M10 11v6m4-6v6M6 7l1 13h10l1-13M9 7V4h6v3";
const ARTICLE_ICON = "M6 3h9l4 4v14H6zM14 3v5h5M9 12h7M9 16h7";
const BACK_ICON = "M15 18l-6-6 6-6";
const UNDO_SECONDS = 10;

/**
 * The bookmarklet: opens this server's save sheet for the page it is pressed on, and hands the
 * sheet the page as the browser has it (after its scripts ran, with the person's own sign-in)
 * once the sheet says it is ready; the sheet fetches the address itself when nothing comes.
 */
export function bookmarklet(origin = location.origin) {
  const code = `(function(){var o='${origin}',u=location.href,h=document.documentElement.outerHTML;`
    + `var w=window.open(o+'/listen/save?page=1&url='+encodeURIComponent(u)+'&title='+encodeURIComponent(document.title),'reverie-save','width=420,height=640');`
    + `function m(e){if(e.source===w&&e.origin===o&&e.data==='reverie-ready'){w.postMessage({reveriePage:1,url:u,html:h},o);window.removeEventListener('message',m);}}`
    + `window.addEventListener('message',m);})()`;
  return `javascript:${code}`;
}

export class ArticleList {
  constructor(container) {
    this.container = container;
    this.closed = false;
    this.deletes = null;
    this.load();
  }

  close() {
    this.closed = true;
    this.deletes?.commit();
  }

  async load() {
    this.container.innerHTML = `<p class="loading" role="status">Loading your articles…</p>`;
    let list;
    try {
      list = await api("/api/articles");
    } catch (error) {
      if (this.closed) return;
      this.container.innerHTML = `
        <section class="empty-state"><h1>Articles</h1>
          <p role="alert">${escapeHTML(error.message)}</p>
          <button class="button" type="button" data-retry>Try again</button></section>`;
      this.container.querySelector("[data-retry]").addEventListener("click", () => this.load());
      return;
    }
    if (this.closed) return;
    this.items = list.items;
    this.container.innerHTML = `
      <section class="articles" aria-labelledby="articles-heading">
        <a class="back-link" href="/listen" data-link>${icon(BACK_ICON, 20)}<span>Library</span></a>
        <h1 id="articles-heading">Articles</h1>
        <form class="article-add" data-add>
          <label for="article-url">Save a web page</label>
          <div class="article-add-row">
            <input id="article-url" name="url" type="url" inputmode="url" placeholder="https://…" autocomplete="off" required>
            <button class="button primary" type="submit">Save</button>
          </div>
        </form>
        <details class="article-paste">
          <summary>Paste text instead</summary>
          <form data-paste>
            <label for="article-title">Title</label>
            <input id="article-title" name="title" maxlength="300" autocomplete="off">
            <label for="article-text">Text</label>
            <textarea id="article-text" name="text" rows="6" required></textarea>
            <button class="button" type="submit">Save text</button>
          </form>
        </details>
        <label class="button file-button article-upload">
          ${icon("M12 16V4m0 0-4.5 4.5M12 4l4.5 4.5M4 15v3a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-3", 20)}<span>Import a file (EPUB, PDF, HTML, TXT)</span>
          <input type="file" accept=".epub,.pdf,.html,.htm,.xhtml,.txt,.md,application/epub+zip,application/pdf,text/html,text/plain" multiple data-upload>
        </label>
        <p class="listen-error article-error" role="alert" hidden></p>
        <ul class="listen-jobs article-jobs" aria-label="Articles being saved"></ul>
        <p class="listen-undo" role="status" hidden><span></span> <button class="button small" type="button">Undo</button></p>
        <div class="article-groups"></div>
        <section class="bookmarklet" aria-labelledby="bookmarklet-heading">
          <h2 id="bookmarklet-heading">Save from any page</h2>
          <p>Drag this button to your bookmarks bar. On any article, press it: the page is saved here, ready to read or listen to.</p>
          <a class="button bookmarklet-link" data-bookmarklet>Save to Reverie</a>
          <p class="hint">On a phone, add Reverie to your home screen: it appears in the share menu.</p>
        </section>
      </section>`;
    const $ = (selector) => this.container.querySelector(selector);
    // Set as a property: a javascript: address never appears in the markup the page is made from.
    $("[data-bookmarklet]").setAttribute("href", bookmarklet());
    $("[data-bookmarklet]").addEventListener("click", (event) => {
      event.preventDefault();
      announce("Drag “Save to Reverie” to your bookmarks bar, then press it on any article.");
    });
    $("[data-add]").addEventListener("submit", (event) => {
      event.preventDefault();
      const input = event.target.elements.url;
      this.saveURL(input.value.trim()).then((ok) => { if (ok) input.value = ""; });
    });
    $("[data-paste]").addEventListener("submit", (event) => this.paste(event));
    $("[data-upload]").addEventListener("change", (event) => this.upload([...event.target.files]));
    this.deletes = new UndoableDelete($(".listen-undo"), {
      seconds: UNDO_SECONDS,
      repaint: () => this.paint(),
      deleted: (item) => {
        api(`/api/articles/${item.id}`, { method: "DELETE" }).catch(() => {});
        this.items = this.items.filter((known) => known.id !== item.id);
        if (!this.closed) this.paint();
      },
    });
    this.paint();
    this.showJobs();
  }

  showError(message) {
    const box = this.container.querySelector(".article-error");
    box.textContent = message || "";
    box.hidden = !message;
  }

  async saveURL(url) {
    this.showError(null);
    try {
      const job = await api("/api/articles", { method: "POST", body: { url } });
      this.track(job);
      return true;
    } catch (error) {
      this.showError(error.message);
      return false;
    }
  }

  async paste(event) {
    event.preventDefault();
    this.showError(null);
    const form = event.target;
    try {
      const article = await api("/api/articles", { method: "POST", body: { title: form.elements.title.value, text: form.elements.text.value } });
      form.reset();
      this.items.unshift(article);
      this.paint();
      announce(`Saved “${article.title}”.`);
    } catch (error) {
      this.showError(error.message);
    }
  }

  async upload(files) {
    this.showError(null);
    for (const file of files) {
      const row = this.jobRow(file.name, "Uploading…");
      try {
        const job = await sendFile("/api/articles/upload", file, (fraction) => {
          row.querySelector("progress").value = Math.round(fraction * 30);
        });
        row.remove();
        this.track(job);
      } catch (error) {
        row.remove();
        this.showError(`${file.name}: ${error.message}`);
      }
    }
    this.container.querySelector("[data-upload]").value = "";
  }

  jobRow(title, text) {
    const row = document.createElement("li");
    row.className = "listen-job";
    row.innerHTML = `<p><span data-job-title></span> <span data-job-text></span></p><progress max="100" value="0"></progress>`;
    row.querySelector("[data-job-title]").textContent = `Saving “${title}”:`;
    row.querySelector("[data-job-text]").textContent = text;
    row.querySelector("progress").setAttribute("aria-label", `Saving ${title}`);
    this.container.querySelector(".article-jobs").append(row);
    return row;
  }

  /** Follows an import job; done, the article joins the list. */
  track(job) {
    const row = this.jobRow(job.title, "waiting");
    followJob(job.id, async (current) => {
      row.querySelector("progress").value = Math.round(current.progress * 100);
      row.querySelector("[data-job-text]").textContent = current.status === "failed" ? current.message : (current.message || "waiting");
      if (current.status === "failed") {
        row.classList.add("failed");
        row.querySelector("progress").remove();
        const dismiss = document.createElement("button");
        dismiss.className = "button small";
        dismiss.type = "button";
        dismiss.textContent = "Dismiss";
        dismiss.addEventListener("click", () => row.remove());
        row.append(dismiss);
      }
      if (current.status === "done") {
        row.remove();
        try {
          const article = await api(`/api/articles/${current.itemID}`);
          if (!this.closed && !this.items.some((known) => known.id === article.summary.id)) {
            this.items.unshift(article.summary);
            this.paint();
            announce(`Saved “${article.summary.title}”.`);
          }
        } catch { /* it shows on the next visit */ }
      }
    }, () => this.closed);
  }

  async showJobs() {
    let answer;
    try { answer = await api("/api/jobs"); } catch { return; }
    if (this.closed) return;
    for (const job of answer.jobs.filter((job) => job.kind === "article.import" && (job.status === "queued" || job.status === "running"))) this.track(job);
  }

  paint() {
    const groups = this.container.querySelector(".article-groups");
    const shown = this.items.filter((item) => item.id !== this.deletes?.hiddenID);
    if (!shown.length) {
      groups.innerHTML = `
        <div class="listen-empty">
          ${icon(ARTICLE_ICON, 40)}
          <p>No articles yet. Save a web page by its address, paste some text, or import an EPUB or PDF: Reverie reads it to you.</p>
        </div>`;
      return;
    }
    const sections = [["inProgress", "In progress"], ["saved", "Saved"], ["finished", "Finished"]];
    groups.innerHTML = sections.map(([status, name]) => {
      const items = shown.filter((item) => item.status === status);
      if (!items.length) return "";
      return `
        <section class="article-group" aria-label="${name}">
          <h2>${name} <span class="count">${items.length}</span></h2>
          <ul class="listen-list">${items.map((item) => this.itemHTML(item)).join("")}</ul>
        </section>`;
    }).join("");
    for (const button of groups.querySelectorAll("[data-delete]")) {
      button.addEventListener("click", () => this.deletes.start(this.items.find((item) => item.id === button.dataset.delete)));
    }
  }

  itemHTML(item) {
    const facts = [item.byline, item.source, `${item.readingMinutes} min read`,
      item.chapterCount > 1 ? `${item.chapterCount} chapters` : null,
      item.status === "inProgress" ? `${Math.round(item.fraction * 100)}% read` : null].filter(Boolean).map(escapeHTML).join(" · ");
    return `
      <li class="listen-item article-item" data-id="${item.id}">
        <a class="listen-open" href="/listen/articles/${item.id}" data-link>
          <span class="listen-art placeholder" aria-hidden="true">${icon(ARTICLE_ICON, 28)}</span>
          <span class="listen-text"><span class="listen-title">${escapeHTML(item.title)}</span><span class="listen-facts">${facts}</span>
          ${item.status === "inProgress" ? `<progress max="100" value="${Math.round(item.fraction * 100)}" aria-label="Read ${Math.round(item.fraction * 100)}%"></progress>` : ""}</span>
        </a>
        <button class="icon-button" type="button" data-delete="${item.id}" aria-label="Delete ${escapeHTML(item.title)}">${icon(TRASH_ICON, 20)}</button>
      </li>`;
  }

}
