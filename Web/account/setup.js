// First run: create the owner account. There is no default password anywhere.

import { submitCredentials } from "../dom.js";

export const id = "setup";

export function render(container, session) {
  container.innerHTML = `
    <section class="auth-card">
      <img class="auth-logo" src="/icons/icon.svg" alt="" width="72" height="72">
      <h1>Welcome to Reverie</h1>
      <p class="lede">This server is new. Create the owner account: you will manage who else can use it.</p>
      <form class="form" novalidate>
        <label for="setup-username">Username</label>
        <input id="setup-username" data-autofocus name="username" autocomplete="username" autocapitalize="none"
               spellcheck="false" required maxlength="64" pattern="[A-Za-z0-9._\\-]+">
        <p class="hint">Letters, digits, dots, dashes and underscores.</p>
        <label for="setup-password">Password</label>
        <input id="setup-password" name="password" type="password" autocomplete="new-password" required minlength="8">
        <p class="hint">At least 8 characters. A few unrelated words make a strong one.</p>
        <label for="setup-confirm">Repeat password</label>
        <input id="setup-confirm" name="confirm" type="password" autocomplete="new-password" required minlength="8">
        <p class="form-error" role="alert" hidden></p>
        <button class="button primary wide" type="submit">Create owner account</button>
      </form>
    </section>`;

  const form = container.querySelector("form");
  submitCredentials(form, "/api/setup", session, {
    check: (data) => (data.get("password") === data.get("confirm")
      ? null
      : new Error("The two passwords are different. Type the same password twice.")),
  });
}
