// The web client's strings (clients/web/js/i18n.js and js/i18n/*.js): English and Portuguese
// have the same keys and the same {placeholders}; t() fills, falls back and translates nested
// names; errorText() picks the code's sentence, its family's, or the server's words.

import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { after, before, describe, test } from "node:test";

import { DICTIONARIES, LANGS, addStrings, errorText, fromNavigator, has, lang, setLang, t } from "../../web/js/i18n.js";

const I18N = new URL("../../web/js/i18n/", import.meta.url);
/** @type {[string, {[lang: string]: {[key: string]: string}}][]} every js/i18n/<name>.js module's strings */
const MODULES = await Promise.all(
  readdirSync(I18N)
    .filter((f) => f.endsWith(".js"))
    .sort()
    .map(async (f) => /** @type {[string, any]} */ ([f, (await import(new URL(f, I18N).href)).default])),
);
for (const [, strings] of MODULES) addStrings(strings); // as the pages do when they load them

/**
 * @param {string} text a string
 * @returns {string[]} its {placeholders}, sorted
 */
const placeholders = (text) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

/**
 * Every difference between the languages of one dictionary set.
 * @param {{[lang: string]: {[key: string]: string}}} strings strings per language
 * @returns {string[]} what differs
 */
function differences(strings) {
  const [en, pt] = [strings.en ?? {}, strings["pt-BR"] ?? {}];
  const out = [];
  for (const key of Object.keys(en)) if (!(key in pt)) out.push(`pt-BR lacks ${key}`);
  for (const key of Object.keys(pt)) if (!(key in en)) out.push(`en lacks ${key}`);
  for (const key of Object.keys(en)) {
    if (!(key in pt)) continue;
    if (typeof en[key] !== "string" || !en[key].trim()) out.push(`en ${key} is empty`);
    if (typeof pt[key] !== "string" || !pt[key].trim()) out.push(`pt-BR ${key} is empty`);
    else if (placeholders(en[key]).join() !== placeholders(pt[key]).join()) out.push(`${key}: placeholders differ`);
  }
  return out;
}

describe("both languages", () => {
  test("the languages are English and Brazilian Portuguese", () => {
    assert.deepEqual(LANGS, ["en", "pt-BR"]);
  });

  test("every module of js/i18n/ has the same keys and placeholders in both", () => {
    assert.ok(MODULES.length >= 10, `found ${MODULES.length} string modules`);
    for (const [name, strings] of MODULES) assert.deepEqual(differences(strings), [], name);
  });

  test("the whole dictionary (i18n.js and every module) has the same keys and placeholders in both", () => {
    assert.deepEqual(differences(DICTIONARIES), []);
    assert.ok(Object.keys(DICTIONARIES.en).length > 500);
  });

  test("a dictionary that lacks a key, or a placeholder, is caught", () => {
    assert.deepEqual(differences({ en: { a: "x", b: "{n} s" }, "pt-BR": { b: "{m} s" } }), ["pt-BR lacks a", "b: placeholders differ"]);
  });
});

describe("lookups", () => {
  /** @type {any} */
  const g = globalThis;
  before(() => {
    // setLang() marks the page's language and translates it: a page with nothing to translate
    g.document = { documentElement: { lang: "en" }, querySelectorAll: () => [] };
    g.localStorage = { setItem() {}, getItem: () => null };
  });
  after(() => {
    setLang("en");
    delete g.document;
    delete g.localStorage;
  });

  test("Node has no navigator: English; a browser asking for any pt-* gets Portuguese", () => {
    assert.equal(lang(), "en");
    assert.equal(fromNavigator(null), "en");
    assert.equal(fromNavigator({ languages: ["pt-PT", "en"] }), "pt-BR");
    assert.equal(fromNavigator({ language: "PT" }), "pt-BR");
    assert.equal(fromNavigator({ languages: [], language: "de-DE" }), "en");
  });

  test("t fills {params}, keeps unknown ones, and falls back to the key", () => {
    addStrings({ en: { "test.hello": "Hello {name}, {missing}" }, "pt-BR": { "test.hello": "Olá {name}, {missing}" } });
    assert.equal(t("test.hello", { name: "Ana" }), "Hello Ana, {missing}");
    assert.equal(t("test.no_such_key"), "test.no_such_key");
    assert.equal(has("test.hello"), true);
    assert.equal(has("test.no_such_key"), false);
  });

  test("a param may itself be a key: it is translated, with its fallback when unknown", () => {
    assert.equal(t("common.bot_n", { n: 2 }), "bot 2");
    assert.equal(t("test.hello", { name: { key: "common.bot_n", params: { n: 3 } }, missing: 1 }), "Hello bot 3, 1");
    assert.equal(t("test.hello", { name: { key: "nope.nope", fallback: "Zoë" }, missing: 0 }), "Hello Zoë, 0");
  });

  test("Portuguese after setLang, English where a key is only English", () => {
    addStrings({ en: { "test.only_en": "only English" } });
    setLang("pt-BR");
    assert.equal(lang(), "pt-BR");
    assert.equal(g.document.documentElement.lang, "pt-BR");
    assert.equal(t("test.hello", { name: "Ana", missing: "!" }), "Olá Ana, !");
    assert.equal(t("common.bot_n", { n: 2 }), DICTIONARIES["pt-BR"]["common.bot_n"].replace("{n}", "2"));
    assert.equal(t("test.only_en"), "only English");
    setLang("klingon"); // not a language: nothing changes
    assert.equal(lang(), "pt-BR");
    setLang("en");
  });

  test("errorText: the code's sentence, else its family's, else the server's words (English only)", () => {
    assert.equal(errorText("room/full", "server words"), DICTIONARIES.en["err.room/full"]);
    assert.equal(errorText("rollie/no_such_thing", "server words"), DICTIONARIES.en["err.rollie/rejected"]);
    assert.equal(errorText("zzz/unknown", "server words"), "server words");
    assert.equal(errorText("zzz/unknown"), DICTIONARIES.en["err.generic"]);
    setLang("pt-BR");
    assert.equal(errorText("zzz/unknown", "server words"), DICTIONARIES["pt-BR"]["err.generic"]);
    setLang("en");
  });
});
