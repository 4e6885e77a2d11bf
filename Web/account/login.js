// Sign in with a username and password.

import { submitCredentials } from "../dom.js";

export const id = "login";

export function render(container, session) {
  container.innerHTML = `
    <section class="auth-card">
      <img class="auth-logo" src="/icons/icon.svg" alt="" width="72" height="72">
      <h1>Sign in</h1>
      <p class="lede">Welcome back to Reverie.</p>
      <form class="form" novalidate>
        <label for="login-username">Username</label>
        <input id="login-username" data-autofocus name="username" autocomplete="username" autocapitalize="none" spellcheck="false" required>
        <label for="login-password">Password</label>
        <input id="login-password" name="password" type="password" autocomplete="current-password" required>
        <p class="form-error" role="alert" hidden></p>
        <button class="button primary wide" type="submit">Sign in</button>
      </form>
      <p class="hint centered">Forgot your password? Ask the owner of this server for a temporary one: you keep your account and everything in it, and choose a new password when you sign in.</p>
    </section>`;

  const form = container.querySelector("form");
  submitCredentials(form, "/api/auth/login", session, {
    check: (data) => (data.get("username") && data.get("password") ? null : new Error("Enter your username and password.")),
    onFailure: () => form.password.select(),
  });
}
