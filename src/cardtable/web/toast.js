// Short messages for the player: errors and notices in a corner (toasts),
// and a polite screen-reader announcer for things seen on the table.
// A toast belongs to the hand it was shown in: the board clears them when the
// next hand is dealt (clearHandToasts), unless it was shown with {keep: true}.

const SHOW_FOR = 5000;

/** Show `text` for a few seconds; kind is "error" or "info"; keep: not cleared with the hand. */
export function toast(text, kind = "error", { keep = false } = {}) {
  const box = document.getElementById("toasts");
  if (!box || !text) return;
  const item = document.createElement("div");
  item.className = `toast toast-${kind}`;
  if (keep) item.dataset.keep = "true";
  item.textContent = String(text); // server text: never parsed as HTML
  box.append(item);
  while (box.children.length > 3) box.firstElementChild.remove();
  setTimeout(() => item.remove(), SHOW_FOR);
}

/** A new hand is dealt: what was said about the last one is no longer true. */
export function clearHandToasts() {
  const box = document.getElementById("toasts");
  if (!box) return;
  for (const item of [...box.children]) if (!item.dataset.keep) item.remove();
}

/** Read `text` to screen-reader users without moving focus. */
export function announce(text) {
  const region = document.getElementById("announcer");
  if (!region || !text) return;
  // Clearing first makes a repeated message be read again.
  region.textContent = "";
  setTimeout(() => { region.textContent = String(text); }, 30);
}
