// A confirm box for moves that cost points (a drop, a show): a modal
// <dialog> with the question in words, a confirm and a cancel button. Esc or
// Cancel keeps everything as it was. Focus starts on Cancel when the move is
// a costly mistake, so a stray Enter never makes it.

import { h } from "../../dom.js";

let open = null;

/** Is a confirm box up? (The board leaves the keys to it meanwhile.) */
export const dialogOpen = () => Boolean(open && open.el.open);

/** Close the box if it is up (a new view made its question moot), answering "no". */
export function closeDialog() {
  if (open) open.finish(false);
}

/**
 * Ask; resolves true (confirmed) or false.
 * opts: {id, title, lines: [text], confirm: label, cancel: label, danger: bool}
 */
export function confirmDialog(host, opts) {
  closeDialog();
  return new Promise((resolve) => {
    const titleId = `${opts.id}-title`;
    const ok = h("button", { class: ["action", opts.danger ? "danger" : "primary"], id: `${opts.id}-confirm` }, opts.confirm);
    const no = h("button", { class: "action", id: `${opts.id}-cancel` }, opts.cancel || "Cancel");
    const el = h("dialog", {
      class: ["in-dialog", opts.danger && "danger"], id: opts.id, "aria-labelledby": titleId,
      role: opts.danger ? "alertdialog" : "dialog",
    },
    h("h2", { id: titleId }, opts.title),
    (opts.lines || []).map((line, i) => h("p", { class: i === 0 && opts.danger ? "in-warning" : null }, line)),
    h("div", { class: "in-dialog-buttons" }, no, ok));
    const state = { el, finish: null };
    state.finish = (answer) => {
      if (open !== state) return;
      open = null;
      if (el.open) el.close();
      el.remove();
      resolve(answer);
    };
    ok.addEventListener("click", () => state.finish(true));
    no.addEventListener("click", () => state.finish(false));
    el.addEventListener("cancel", (e) => { e.preventDefault(); state.finish(false); });
    el.addEventListener("keydown", (e) => e.stopPropagation()); // the board's keys are off meanwhile
    open = state;
    host.append(el);
    el.showModal();
    (opts.danger ? no : ok).focus();
  });
}
