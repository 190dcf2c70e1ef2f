// The resolve hook of sdk-resolve.js: "@rollhouse/client" and "@rollhouse/client/<file>.js"
// are the SDK's sources (../js/src), as the pages' import map says for the browser.

const SDK = new URL("../js/src/", import.meta.url);
const NAME = "@rollhouse/client";

/**
 * @param {string} specifier what a module imports
 * @returns {string | null} the SDK file's URL, or null for any other specifier
 */
export function sdkUrl(specifier) {
  if (specifier === NAME) return new URL("index.js", SDK).href;
  if (specifier.startsWith(`${NAME}/`)) return new URL(specifier.slice(NAME.length + 1), SDK).href;
  return null;
}

/**
 * @param {string} specifier what a module imports
 * @param {object} context Node's resolve context
 * @param {(specifier: string, context: object) => Promise<unknown>} next the next resolver
 * @returns {Promise<unknown>} the resolution
 */
export async function resolve(specifier, context, next) {
  return next(sdkUrl(specifier) ?? specifier, context);
}
