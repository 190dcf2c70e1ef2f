// The pages reach the SDK through one import map ("@rollhouse/client" -> ./sdk/, which the
// server serves from clients/js/src), and every name the web modules import from it exists.

import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { test } from "node:test";

import * as sdk from "@rollhouse/client";

const WEB = new URL("../../web/", import.meta.url);
const PAGES = readdirSync(WEB).filter((f) => f.endsWith(".html")).sort();
const EXPECTED = { imports: { "@rollhouse/client": "./sdk/index.js", "@rollhouse/client/": "./sdk/" } };

/**
 * @param {URL} dir a folder
 * @returns {string[]} the .js files under it, as paths relative to WEB
 */
function modules(dir) {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".js"))
    .map((f) => new URL(f, dir).pathname.slice(WEB.pathname.length));
}

test("every page carries the import map, before its module script", () => {
  assert.deepEqual(PAGES, ["index.html", "operator.html", "replay.html", "table.html"]);
  for (const page of PAGES) {
    const html = readFileSync(new URL(page, WEB), "utf8");
    const found = /<script type="importmap">(.*?)<\/script>/s.exec(html);
    assert.ok(found, `${page}: no import map`);
    assert.deepEqual(JSON.parse(found[1]), EXPECTED, page);
    assert.ok(found.index < html.indexOf('<script type="module"'), `${page}: the import map must come first`);
  }
});

test("the web modules import from the SDK only names it exports, and carry no copy of the protocol", () => {
  const files = modules(new URL("js/", WEB));
  assert.ok(files.length > 20);
  let imports = 0;
  for (const file of files) {
    const source = readFileSync(new URL(file, WEB), "utf8");
    for (const m of source.matchAll(/import\s*\{([^}]*)\}\s*from\s*"@rollhouse\/client"/g)) {
      for (const name of m[1].split(",").map((s) => s.trim()).filter(Boolean)) {
        imports += 1;
        assert.ok(name in sdk, `${file}: @rollhouse/client has no ${name}`);
      }
    }
    assert.doesNotMatch(source, /new WebSocket\(|class \w*Mirror\b|function applyPatch\b/, `${file}: protocol code belongs in the SDK`);
  }
  assert.ok(imports >= 2);
});
