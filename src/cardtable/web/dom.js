// Tiny DOM builders. Text always goes in as text nodes (never innerHTML), so
// player names and server messages can never inject markup.

const SVG_NS = "http://www.w3.org/2000/svg";

function fill(el, attrs, children, isSvg) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") el.setAttribute("class", Array.isArray(value) ? value.filter(Boolean).join(" ") : value);
    else if (key === "text") el.textContent = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (!isSvg && key in el && typeof value !== "string") el[key] = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** h("button", {class: "x", onclick: f}, "text", otherNode) */
export function h(tag, attrs, ...children) {
  return fill(document.createElement(tag), attrs, children, false);
}

/** The same for SVG elements. */
export function svg(tag, attrs, ...children) {
  return fill(document.createElementNS(SVG_NS, tag), attrs, children, true);
}

/** Replace all children of el. */
export function replace(el, ...children) {
  el.replaceChildren();
  return fill(el, null, children, false);
}

export function clear(el) {
  el.replaceChildren();
}

const sheets = new Map(); // href -> Promise, so each sheet is linked once

/** Link a stylesheet once; resolves when it has loaded (or failed: the page goes on unstyled). */
export function stylesheet(href) {
  if (!sheets.has(href)) {
    sheets.set(href, new Promise((resolve) => {
      const link = document.createElement("link");
      link.rel = "stylesheet";
      link.href = href;
      link.onload = () => resolve(true);
      link.onerror = () => resolve(false);
      document.head.append(link);
    }));
  }
  return sheets.get(href);
}
