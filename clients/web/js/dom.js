// A tiny element builder shared by the game boards:
//   h("button", {class: "x", text: "Roll", testid: "roll", onclick: fn}, child, [more])
// null / undefined / false attributes and children are skipped; `true` sets an empty attribute.

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag the element's tag
 * @param {{[name: string]: any}} [attrs] attributes; `class`, `text`, `testid` and `on<event>` handlers
 * @param {...any} children nodes, strings, arrays of them; null, undefined and false are skipped
 * @returns {HTMLElementTagNameMap[K]} the element (h("input") is an HTMLInputElement)
 */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k === "testid") node.dataset.testid = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) node.append(c);
  return node;
}
