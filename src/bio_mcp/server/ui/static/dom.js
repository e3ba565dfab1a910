// Small DOM builders: h() for HTML, s() for SVG. Text is always set as text, never as HTML.
const SVG_NS = "http://www.w3.org/2000/svg";

function build(el, attrs, children) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

export const h = (tag, attrs, ...children) => build(document.createElement(tag), attrs, children);
export const s = (tag, attrs, ...children) => build(document.createElementNS(SVG_NS, tag), attrs, children);

export function failure(target, error) {
  const code = error.code ? `${error.code}: ` : "";
  target.replaceChildren(h("p", { class: "error", role: "alert" }, code + error.message));
}

export function busy(target) {
  target.replaceChildren(h("p", { class: "muted" }, "Loading…"));
}
