// Settings › Try a voice: type a line, hear it spoken by the server, follow the captions.

import { api } from "../api.js";
import { announce, escapeHTML, showError } from "../dom.js";
import { continueAfterOpening, follow, playOpening, render as renderSpeech, voiceOptionsHTML } from "../speech.js";
import { clock } from "../player/time.js";
import { Transport } from "../player/transport.js";

const SAMPLE = "Breathe in slowly. (1s) And let it go.";
const MAX_CHARACTERS = 2000;

/** The panel's markup (a card); `wireVoicePanel` brings it to life. */
export function voicePanelHTML() {
  return `
      <section class="card voice-panel" aria-labelledby="voice-heading">
        <h2 id="voice-heading">Try a voice</h2>
        <p class="hint">Write a line and hear it. Pauses go inline: <code>(0.5s)</code>, <code>(2s)</code>, <code>(1m)</code>.</p>
        <form class="inline-form" data-form="voice" novalidate>
          <label for="voice-text">Line to speak</label>
          <textarea id="voice-text" name="text" rows="3" maxlength="${MAX_CHARACTERS}">${escapeHTML(SAMPLE)}</textarea>
          <label for="voice-choice">Voice</label>
          <select id="voice-choice" name="voice" disabled><option>Loading voices…</option></select>
          <label for="voice-rate">Speed <output data-rate-value for="voice-rate">1.00×</output></label>
          <input id="voice-rate" name="rate" type="range" min="0.8" max="1.2" step="0.05" value="1">
          <p class="form-error" role="alert" hidden></p>
          <button class="button primary" type="submit" disabled>Speak</button>
        </form>
        <div class="voice-progress" data-progress hidden>
          <progress max="1" value="0" aria-label="Speaking"></progress>
          <span data-progress-text>Starting…</span>
        </div>
        <div class="voice-result" data-result hidden>
          <audio controls preload="auto"></audio>
          <ol class="captions" data-captions aria-label="Captions"></ol>
          <ul class="warnings" data-warnings hidden></ul>
        </div>
      </section>`;
}

/** Loads the voices and handles speaking. */
export async function wireVoicePanel(container) {
  const form = container.querySelector('[data-form="voice"]');
  const select = form.voice;
  const speak = form.querySelector('button[type="submit"]');
  const error = form.querySelector(".form-error");
  const progressBox = container.querySelector("[data-progress]");
  const result = container.querySelector("[data-result]");
  const transport = new Transport({ element: result.querySelector("audio"), name: "voice" });
  const captionList = result.querySelector("[data-captions]");
  const warningList = result.querySelector("[data-warnings]");
  let cues = [];
  /** While the opening of a render plays ahead of the rest: its address. */
  let opening = null;

  form.rate.addEventListener("input", () => {
    form.querySelector("[data-rate-value]").textContent = `${Number(form.rate.value).toFixed(2)}×`;
  });

  try {
    const voices = await api("/api/speech/voices");
    if (!voices.length) {
      select.innerHTML = "<option>No voices installed</option>";
      showError(error, new Error("No speech engine is installed on this server. Run make run on it: that installs Piper and eSpeak NG."));
      return;
    }
    select.innerHTML = voiceOptionsHTML(voices);
    select.disabled = false;
    speak.disabled = false;
  } catch (problem) {
    select.innerHTML = "<option>Voices unavailable</option>";
    showError(error, problem);
    return;
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = form.text.value.trim();
    if (!text) {
      showError(error, new Error("Write something to speak first."));
      form.text.focus();
      return;
    }
    showError(error, null);
    speak.disabled = true;
    result.hidden = true;
    setProgress(0, "Starting…");
    progressBox.hidden = false;
    try {
      opening = null;
      const render = await renderSpeech(text, { voice: select.value, rate: Number(form.rate.value) }, {
        progress: (fraction) => setProgress(fraction, fraction < 1
          ? `${opening ? "Playing the beginning while the rest is spoken" : "Speaking"}… ${Math.round(fraction * 100)}%` : "Done"),
        opening: showOpening,
      });
      await showResult(render);
      announce("Your line is ready to play.");
    } catch (problem) {
      showError(error, problem);
    } finally {
      progressBox.hidden = true;
      speak.disabled = false;
    }
  });

  function setProgress(value, text) {
    progressBox.querySelector("progress").value = value;
    progressBox.querySelector("[data-progress-text]").textContent = text;
  }

  /** Plays the opening (the first phrase) while the rest is spoken. */
  function showOpening(url) {
    opening = url;
    cues = [];
    captionList.innerHTML = "";
    warningList.hidden = true;
    result.hidden = false;
    playOpening(transport, url);
  }

  async function showResult(render) {
    const response = await fetch(render.captionsURL, { credentials: "same-origin" });
    if (!response.ok) throw new Error("The captions could not be loaded. Try again.");
    cues = parseVTT(await response.text());
    captionList.innerHTML = cues.map((cue, index) => `
      <li data-cue="${index}"><button type="button" class="caption" data-seek="${cue.start}">
        <span class="cue-time">${clock(cue.start)}</span> ${escapeHTML(cue.text)}</button></li>`).join("");
    warningList.innerHTML = render.warnings.map((warning) =>
      `<li>Line ${warning.line}, column ${warning.column}: ${escapeHTML(warning.message)}</li>`).join("");
    warningList.hidden = render.warnings.length === 0;
    result.hidden = false;
    if (opening) {
      // The whole render goes on from where the opening is, at the seam after its phrase.
      opening = null;
      await continueAfterOpening(transport, render.audioURL);
    } else {
      transport.load(render.audioURL);
    }
  }

  // The caption being spoken is marked as the voice goes (as Bedside's and an article's are).
  follow(transport, () => {
    const now = transport.position;
    for (const item of captionList.children) {
      const cue = cues[Number(item.dataset.cue)];
      item.classList.toggle("active", now >= cue.start && now < cue.end);
    }
  });

  captionList.addEventListener("click", (event) => {
    const button = event.target.closest("[data-seek]");
    if (!button) return;
    transport.seek(Number(button.dataset.seek));
    transport.play();
  });
}

/** Reads WebVTT cues: [{start, end, text}] in seconds. */
export function parseVTT(text) {
  const cues = [];
  for (const block of text.replace(/\r\n/g, "\n").split(/\n{2,}/)) {
    const lines = block.split("\n");
    const timing = lines.findIndex((line) => line.includes("-->"));
    if (timing < 0) continue;
    const [start, end] = lines[timing].split("-->").map((part) => seconds(part.trim().split(/\s+/)[0]));
    cues.push({ start, end, text: lines.slice(timing + 1).join(" ").trim() });
  }
  return cues;
}

function seconds(stamp) {
  return stamp.split(":").reduce((total, part) => total * 60 + Number(part), 0);
}
