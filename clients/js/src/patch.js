// Applying patch ops to a view (docs/protocol.md 6; protocol/patch.py is the reference).
//
// An op is {op: "replace" | "add" | "remove", path: [key or index, ...], value}: a str step
// goes into a map, an int step into a list. replace needs the target (or path [] for the
// whole view); add needs an absent key, or an index 0..length (inserting before it); remove
// needs the target. applyPatch never mutates the view or the ops: it copies each container
// on a touched path once and shares everything else, so treat views as immutable.

import { PatchError } from "./errors.js";
import { isMap } from "./plain.js";

const OPS = ["replace", "add", "remove"];

/**
 * @typedef {import("./messages.js").Op} Op
 * @typedef {{[key: string]: unknown} | unknown[]} Container
 */

/**
 * Throw a PatchError unless `op` is a well-formed op (whatever view it meets).
 * @param {unknown} op anything
 * @returns {asserts op is Op} the op is well formed
 */
export function checkOp(op) {
  if (!isMap(op)) throw new PatchError("an op must be a map");
  const kind = op.op;
  if (typeof kind !== "string" || !OPS.includes(kind))
    throw new PatchError(`op must be one of ${JSON.stringify(OPS)}, got ${JSON.stringify(kind)}`, "op");
  const allowed = kind === "remove" ? ["op", "path"] : ["op", "path", "value"];
  for (const key of Object.keys(op)) {
    if (!allowed.includes(key)) throw new PatchError(`${kind} op: unknown field '${key}'`, key);
  }
  if (kind !== "remove" && !("value" in op)) throw new PatchError(`${kind} op: missing 'value'`, "value");
  const path = op.path;
  if (!Array.isArray(path)) throw new PatchError("op path must be a list", "path");
  for (const step of path) {
    if (typeof step !== "string" && !Number.isInteger(step))
      throw new PatchError("op path steps must be str or int", "path");
  }
  if (path.length === 0 && kind !== "replace") throw new PatchError(`${kind} op needs a non-empty path`, "path");
}

/**
 * Apply `ops` in order to a copy of `view`; PatchError if an op does not fit it.
 * @template T
 * @param {T} view plain data (not changed)
 * @param {readonly unknown[]} ops the ops (not changed)
 * @returns {T} the new view, sharing unchanged parts with `view` and the ops
 */
export function applyPatch(view, ops) {
  /** @type {unknown} */
  let root = view;
  /** @type {WeakSet<object>} containers this call copied, so written in place */
  const owned = new WeakSet();
  /**
   * @param {unknown} node a container on the path
   * @param {unknown[]} where the path to it
   * @returns {Container} a copy this call owns
   */
  const own = (node, where) => {
    if (node !== null && typeof node === "object" && owned.has(node)) return /** @type {Container} */ (node);
    /** @type {Container} */
    let copy;
    if (Array.isArray(node)) copy = node.slice();
    else if (isMap(node)) copy = Object.assign(Object.create(Object.getPrototypeOf(node)), node);
    else throw new PatchError(`path ${JSON.stringify(where)} is not a map or a list`, "path");
    owned.add(copy);
    return copy;
  };
  for (const op of ops) {
    checkOp(op);
    const path = op.path;
    if (path.length === 0) {
      root = op.value;
      continue;
    }
    root = own(root, []);
    let node = /** @type {Container} */ (root);
    for (let depth = 0; depth < path.length - 1; depth++) {
      const step = path[depth];
      const child = own(get(node, step, path.slice(0, depth + 1)), path.slice(0, depth + 1));
      set(node, step, child);
      node = child;
    }
    const last = path[path.length - 1];
    if (Array.isArray(node)) applyToList(node, last, op);
    else applyToMap(node, last, op);
  }
  return /** @type {T} */ (root);
}

/**
 * @param {Container} node a map or a list
 * @param {string | number} step a key or an index
 * @param {unknown[]} where the path so far
 * @returns {unknown} the child
 */
function get(node, step, where) {
  if (Array.isArray(node)) {
    if (typeof step !== "number" || step < 0 || step >= node.length)
      throw new PatchError(`path ${JSON.stringify(where)}: no such index`, "path");
    return node[step];
  }
  if (typeof step !== "string" || !Object.hasOwn(node, step))
    throw new PatchError(`path ${JSON.stringify(where)}: no such key`, "path");
  return node[step];
}

/**
 * @param {Container} node a map or a list this call owns
 * @param {string | number} step a key or an index that exists
 * @param {unknown} value the new child
 */
function set(node, step, value) {
  if (Array.isArray(node)) node[/** @type {number} */ (step)] = value;
  else define(node, /** @type {string} */ (step), value);
}

/**
 * Set a key as an own data property ("__proto__" included).
 * @param {{[key: string]: unknown}} map a map this call owns
 * @param {string} key the key
 * @param {unknown} value its value
 */
function define(map, key, value) {
  Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * @param {{[key: string]: unknown}} map the parent map
 * @param {string | number} key the last step
 * @param {Op} op the op
 */
function applyToMap(map, key, op) {
  if (typeof key !== "string") throw new PatchError(`map key must be str, got ${JSON.stringify(key)}`, "path");
  const exists = Object.hasOwn(map, key);
  if (op.op === "add") {
    if (exists) throw new PatchError(`add: key '${key}' already exists`, "path");
    define(map, key, op.value);
    return;
  }
  if (!exists) throw new PatchError(`${op.op}: no key '${key}'`, "path");
  if (op.op === "remove") delete map[key];
  else define(map, key, op.value);
}

/**
 * @param {unknown[]} list the parent list
 * @param {string | number} index the last step
 * @param {Op} op the op
 */
function applyToList(list, index, op) {
  if (typeof index !== "number") throw new PatchError(`list index must be int, got ${JSON.stringify(index)}`, "path");
  if (op.op === "add") {
    if (index < 0 || index > list.length)
      throw new PatchError(`add: index ${index} out of range 0..${list.length}`, "path");
    list.splice(index, 0, op.value);
    return;
  }
  if (index < 0 || index >= list.length) throw new PatchError(`${op.op}: index ${index} out of range`, "path");
  if (op.op === "remove") list.splice(index, 1);
  else list[index] = op.value;
}
