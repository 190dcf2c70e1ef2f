// A tiny element builder shared by the game boards:
//   h("button", {class: "x", text: "Roll", testid: "roll", onclick: fn}, child, [more])
// null / undefined / false attributes and children are skipped; `true` sets an empty attribute.

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
