// The account page (`/account`): accounts are optional (docs/protocol.md, "Players").
// A guest may register (his history stays his) or sign in; a signed-in player may sign
// out, change his password or delete his account. The server says why it refuses
// anything; the page shows that message as it is.

import { call } from "./api.js";
import { h, replace } from "./dom.js";
import { fetchMe } from "./profile.js";

const post = (path, body) => call("POST", path, body || {});

/** A small form: labelled fields, one button, its own error line; `submit(values)`. */
function form(id, title, fields, button, submit, note = null) {
  const inputs = fields.map(([name, label, type, autocomplete]) => {
    const inputId = `${id}-${name}`;
    return [name, h("input", { id: inputId, name, type, autocomplete, required: true }), label, inputId];
  });
  const error = h("p", { class: "form-error", role: "alert", id: `${id}-error` });
  const el = h("form", { class: "account-form", id },
    h("h2", null, title), note ? h("p", { class: "hint" }, note) : null,
    inputs.map(([, input, label, inputId]) => h("div", { class: "account-field" }, h("label", { for: inputId }, label), input)),
    h("button", { type: "submit", class: "primary" }, button), error);
  el.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    const values = Object.fromEntries(inputs.map(([name, input]) => [name, input.value]));
    try {
      await submit(values);
    } catch (e) {
      error.textContent = e.message;
    }
  });
  return el;
}

export function renderAccount(root, navigate) {
  const main = h("main", { class: "home account" }, h("p", { class: "hint" }, "Loading…"));
  root.append(main);
  const head = (text) => h("header", { class: "home-head profile-head" },
    h("a", { href: "/", "data-route": "", class: "back-link" }, "← cardtable"),
    h("h1", null, "Your account"), h("p", { class: "tagline", id: "account-state" }, text));

  async function draw() {
    const me = await fetchMe();
    const reload = () => draw().catch(() => {});
    if (me?.username) {
      replace(main, head(`Signed in as ${me.username}.`),
        h("section", { class: "panel" },
          h("p", null, h("a", { href: `/p/${encodeURIComponent(me.player_id)}`, "data-route": "", id: "account-profile" }, "Your profile and matches")),
          h("button", { type: "button", id: "sign-out", onclick: async () => { await post("/api/account/logout"); reload(); } }, "Sign out")),
        h("section", { class: "panel" }, form("change-password", "Change password", [
          ["password", "Current password", "password", "current-password"],
          ["new_password", "New password (10 characters or more)", "password", "new-password"]], "Change password",
        async (v) => { await post("/api/account/password", v); reload(); },
        "Every other browser signed in to this account is signed out.")),
        h("section", { class: "panel" }, form("delete-account", "Delete account", [
          ["password", "Password", "password", "current-password"]], "Delete my account",
        async (v) => { await post("/api/account/delete", v); navigate("/"); },
        "Your account, your name in past matches and your sign-ins are deleted for good.")));
      return;
    }
    const who = me ? `You play as the guest ${me.name}.` : "You have not played here yet.";
    replace(main, head(`${who} An account is optional: it keeps your name and matches on any device.`),
      h("section", { class: "panel" }, form("register", "Register", [
        ["username", "Username (3–24 letters, digits, _ - .)", "text", "username"],
        ["password", "Password (10 characters or more)", "password", "new-password"]], "Register",
      async (v) => { await post("/api/account/register", v); reload(); },
      me ? "Your matches so far stay yours." : null)),
      h("section", { class: "panel" }, form("sign-in", "Sign in", [
        ["username", "Username", "text", "username"],
        ["password", "Password", "password", "current-password"]], "Sign in",
      async (v) => { await post("/api/account/login", v); reload(); })));
  }

  draw().catch((e) => replace(main, head(""), h("p", { class: "form-error", role: "alert" }, `Could not load: ${e.message}`)));
  return { destroy() {} };
}
