// Choosing a new password: the screen a person sees after signing in with a temporary password
// from the owner, and the form Settings uses to change your own.

import { api } from "../api.js";
import { announce, showError } from "../dom.js";

export const id = "password";

/** The form's fields; `prefix` keeps ids unique when the form sits inside another screen. */
export function passwordFormHTML(prefix, { currentLabel = "Current password", submit = "Change password", autofocus = false } = {}) {
  return `
    <form class="form" data-form="password" novalidate>
      <label for="${prefix}-current">${currentLabel}</label>
      <input id="${prefix}-current" name="current" type="password" autocomplete="current-password" required ${autofocus ? "data-autofocus" : ""}>
      <label for="${prefix}-new">New password</label>
      <input id="${prefix}-new" name="new" type="password" autocomplete="new-password" required minlength="8">
      <p class="hint">At least 8 characters. A few unrelated words make a strong one.</p>
      <label for="${prefix}-repeat">Repeat new password</label>
      <input id="${prefix}-repeat" name="repeat" type="password" autocomplete="new-password" required minlength="8">
      <p class="form-error" role="alert" hidden></p>
      <button class="button primary wide" type="submit">${submit}</button>
    </form>`;
}

/**
 * Sends the form to `POST /api/auth/password`. `done(user)` runs after the server changed it;
 * every other session and token of the account is signed out by then, this one stays.
 */
export function wirePasswordForm(form, done) {
  const error = form.querySelector(".form-error");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    if (!data.get("current") || !data.get("new")) {
      showError(error, new Error("Type your current password and a new one."));
      return;
    }
    if (data.get("new") !== data.get("repeat")) {
      showError(error, new Error("The two new passwords are different. Type the same one twice."));
      form.repeat.select();
      return;
    }
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    showError(error, null);
    try {
      const result = await api("/api/auth/password", {
        method: "POST", body: { currentPassword: data.get("current"), newPassword: data.get("new") },
      });
      form.reset();
      await done(result.user);
    } catch (problem) {
      showError(error, problem);
      (problem.code === "wrong_password" ? form.current : form.new).select();
    } finally {
      button.disabled = false;
    }
  });
}

export function render(container, session) {
  container.innerHTML = `
    <section class="auth-card">
      <img class="auth-logo" src="/icons/icon.svg" alt="" width="72" height="72">
      <h1>Choose a new password</h1>
      <p class="lede">The owner gave <strong></strong> a temporary password. Choose your own to go on: your songs, history and progress are all here.</p>
      ${passwordFormHTML("choose", { currentLabel: "Temporary password", submit: "Save and continue", autofocus: true })}
      <button class="button link" type="button" data-action="logout">Sign out instead</button>
    </section>`;
  container.querySelector(".lede strong").textContent = session.user.username;
  wirePasswordForm(container.querySelector("form"), async (user) => {
    announce("Password saved.");
    await session.signedIn(user);
  });
  container.querySelector('[data-action="logout"]').addEventListener("click", async () => {
    await api("/api/auth/logout", { method: "POST" }).catch(() => null);
    session.signedOut({ onPurpose: true });
  });
}
