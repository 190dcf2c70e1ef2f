// Roll Builder's content in the player's language. The server sends content (cities,
// buildings, innovations, events...) in English; js/i18n/roll-builder-content.js holds
// both languages, and the English text finds its key.

import content from "../i18n/roll-builder-content.js";

const CONTENT_KEY = new Map(Object.entries(content.en).map(([key, english]) => [english, key]));

/** `english` content in the current language (itself when unknown). */
export function tc(t, english) {
  const key = CONTENT_KEY.get(english);
  return key ? t(key) : english;
}

/** A log parameter that re-translates when the language changes. */
export function cref(english) {
  const key = CONTENT_KEY.get(english);
  return key ? { key, fallback: english } : english;
}
