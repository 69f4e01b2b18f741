// Tiny DOM helpers: elements are built with textContent (never innerHTML of data), so nothing
// an engine record holds can become markup.
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "class") node.className = value;
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  append(node, children);
  return node;
}

export function append(node, children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function clear(node) {
  while (node.firstChild) node.firstChild.remove();
  return node;
}

export function toast(message) {
  const box = document.getElementById("toast");
  box.textContent = message;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (box.textContent = ""), 6000);
}

export function formatTime(text) {
  if (!text) return "—";
  const d = new Date(text);
  return isNaN(d) ? text : d.toISOString().replace("T", " ").slice(0, 19) + "Z";
}

export function formatScore(score) {
  return typeof score === "number" ? score.toFixed(3) : "—";
}

export function outcomeBadge(outcome) {
  return el("span", { class: `badge ${outcome}` }, outcome);
}
