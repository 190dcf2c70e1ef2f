// Loads the shared vectors (tests/vectors/ at the repository's root) and compares a step with
// a vector's `expect`, as tests/vectors/compare.py does for the Python runners.

import { readFileSync, readdirSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";

export const ROOT = new URL("../../../tests/vectors/", import.meta.url);

/**
 * @param {string} file a path under tests/vectors/
 * @returns {any} its JSON
 */
export function load(file) {
  return JSON.parse(readFileSync(new URL(file, ROOT), "utf8"));
}

/**
 * @param {string} folder a folder under tests/vectors/
 * @returns {any[]} every vector in it, sorted by file name
 */
export function loadAll(folder) {
  return readdirSync(new URL(`${folder}/`, ROOT))
    .filter((name) => name.endsWith(".json"))
    .sort()
    .map((name) => load(`${folder}/${name}`));
}

export const MIRROR_STATE = ["seq", "view", "seat", "seat_token", "game", "role", "presence", "resyncing", "resume_seq"];
/** @type {{[key: string]: unknown}} */
export const MIRROR_OUTPUTS = { welcomed: false, changed: null, resync_requested: false, answers: {}, error: null };
export const SESSION_STATE = [...MIRROR_STATE, "pending", "failure"];
/** @type {{[key: string]: unknown}} */
export const SESSION_OUTPUTS = { sent: [], welcomed: false, changed: null, answers: {}, error: null, outcome: null };

/**
 * `key: expected X, got Y` for each disagreement (an empty list: the step passes).
 * @param {{[key: string]: unknown}} expect the step's expect
 * @param {{[key: string]: unknown}} observed the step as plain data
 * @param {string[]} state keys checked when named
 * @param {{[key: string]: unknown}} outputs keys always checked, with their defaults
 * @returns {string[]} the mismatches
 */
export function mismatches(expect, observed, state, outputs) {
  const unknown = Object.keys(expect).filter((key) => !state.includes(key) && !(key in outputs));
  if (unknown.length) throw new Error(`unknown expect keys ${unknown}`);
  const wanted = { ...outputs, ...expect };
  return Object.entries(wanted)
    .filter(([key, value]) => !isDeepStrictEqual(plain(observed[key]), value))
    .map(([key, value]) => `${key}: expected ${JSON.stringify(value)}, got ${JSON.stringify(observed[key])}`);
}

/**
 * A value as JSON would carry it (own enumerable properties, plain prototypes).
 * @param {unknown} value anything JSON-like
 * @returns {unknown} its JSON round trip
 */
export function plain(value) {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}
