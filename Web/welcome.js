// The welcome page (/welcome): what a phone needs to open Reverie over HTTPS at home. It asks the
// server what it answers to (GET /welcome/about), shows the addresses with a QR code, the
// certificate to download and the steps, and checks whether this device trusts the server: a
// request to the HTTPS address's /welcome/trust only gets through once the certificate is trusted.
// It works over plain HTTP too (that is how a phone first gets here), so it uses nothing the app's
// modules need a secure context for.

const $ = (id) => document.getElementById(id);

async function about() {
  const answer = await fetch("/welcome/about", { cache: "no-store" });
  if (!answer.ok) throw new Error(`the server answered ${answer.status}`);
  return answer.json();
}

/** Whether `address` (an HTTPS origin with a trailing slash) answers this device: only when its
 *  certificate is trusted here. */
async function trusted(address) {
  try {
    const answer = await fetch(`${address}welcome/trust`, { mode: "cors", cache: "no-store" });
    return answer.ok && (await answer.json()).trusted === true;
  } catch {
    return false;
  }
}

function show(info) {
  const list = $("address-list");
  list.replaceChildren(...info.https.map((address) => {
    const item = document.createElement("li");
    const link = document.createElement("a");
    link.href = address;
    link.textContent = address;
    item.append(link);
    return item;
  }));
  $("addresses").hidden = info.https.length === 0;
  if (info.qrSVG) {
    $("qr-code").innerHTML = info.qrSVG;  // drawn by the server's qrencode from the address above
    $("qr-code").querySelector("svg")?.setAttribute("aria-label", `QR code of ${info.https[0]}`);
    $("qr").hidden = false;
  }
  if (info.authority) {
    $("fingerprint").textContent = info.authority.fingerprint;
    // An authority made before name constraints (mayName null) could vouch for any site: said so.
    const limited = Array.isArray(info.authority.mayName);
    $("authority-home").hidden = !limited;
    $("authority-unlimited").hidden = limited;
    const outside = (info.certificate && info.certificate.outside) || [];
    if (outside.length) {
      $("authority-outside").textContent = `It may not vouch for ${outside.join(", ")}, so those are left out: it was made for other names. `
        + "To add them, the server's owner runs reverie tls new-authority, and each device trusts the new one.";
      $("authority-outside").hidden = false;
    }
    const next = info.authority.next;
    if (next) {
      // A year before the authority ends its successor is made: each device installs it (as it
      // did this one) before the server moves to it.
      const end = new Date(info.authority.notValidAfter).toLocaleDateString();
      const handover = new Date(next.handover).toLocaleDateString();
      const link = (href, text) => Object.assign(document.createElement("a"), { href, textContent: text });
      const fingerprint = Object.assign(document.createElement("code"), { className: "fingerprint", textContent: next.fingerprint });
      $("authority-ending").replaceChildren(
        `This authority ends on ${end}. The one that follows it is ready: install it on each device before ${handover}, when the server moves to it, and trust it as you did this one: `,
        link(next.profile, "iPhone profile"), " or ", link(next.certificate, "certificate (.crt)"),
        ". Its SHA-256 fingerprint is ", fingerprint, ".");
      $("authority-ending").hidden = false;
    } else if (info.authority.endsSoon) {
      const end = new Date(info.authority.notValidAfter).toLocaleDateString();
      $("authority-ending").textContent = `It ends on ${end}. The server makes the one that follows it; this page offers it then.`;
      $("authority-ending").hidden = false;
    }
    $("authority").hidden = false;
  } else if (info.https.length) {
    $("own-certificate").hidden = false;
  }
  if (!info.https.length) {
    $("no-https-reason").textContent = info.httpsReason || "This server serves plain HTTP only.";
    $("no-https").hidden = false;
  }
}

async function check(info) {
  const state = $("trust-state");
  const again = $("check-again");
  if (!info.https.length) {
    state.textContent = info.secureHere ? "This address is already secure on this device." : "This server has no HTTPS address yet.";
    state.dataset.trusted = String(info.secureHere);
    return;
  }
  for (const address of info.https) {
    if (await trusted(address)) {
      state.replaceChildren("This device trusts Reverie. ", Object.assign(document.createElement("a"), { href: address, textContent: "Open it securely" }));
      state.dataset.trusted = "true";
      again.hidden = true;
      return;
    }
  }
  state.textContent = "This device does not trust Reverie yet. Follow the steps below, then come back.";
  state.dataset.trusted = "false";
  again.hidden = false;
}

async function start() {
  let info;
  try {
    info = await about();
  } catch (problem) {
    $("trust-state").textContent = `The server could not be asked (${problem.message}). Reload the page to try again.`;
    return;
  }
  show(info);
  await check(info);
  $("check-again").addEventListener("click", () => check(info));
  // Back from Settings: check again.
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") check(info); });
}

start();
