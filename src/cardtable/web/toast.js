// Short messages for the player: errors and notices in a corner (toasts),
// and a polite screen-reader announcer for things seen on the table.

const SHOW_FOR = 5000;

/** Show `text` for a few seconds; kind is "error" or "info". */
export function toast(text, kind = "error") {
  const box = document.getElementById("toasts");
  if (!box || !text) return;
  const item = document.createElement("div");
  item.className = `toast toast-${kind}`;
  item.textContent = String(text); // server text: never parsed as HTML
  box.append(item);
  while (box.children.length > 3) box.firstElementChild.remove();
  setTimeout(() => item.remove(), SHOW_FOR);
}

/** Read `text` to screen-reader users without moving focus. */
export function announce(text) {
  const region = document.getElementById("announcer");
  if (!region || !text) return;
  // Clearing first makes a repeated message be read again.
  region.textContent = "";
  setTimeout(() => { region.textContent = String(text); }, 30);
}
