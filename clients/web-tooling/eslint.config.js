// ESLint's own recommended rules (@eslint/js), as clients/js uses them, for the web client's
// modules (../web/js: browser code) and these checks (Node). The config lives here, beside the
// client, so ../web stays what the server serves: `npm run lint` runs it from ../ (clients/), the folder holding both.
import js from "@eslint/js";
import globals from "globals";

const rules = {
  eqeqeq: ["error", "always", { null: "ignore" }],
  "no-var": "error",
  "prefer-const": "error",
  "no-unused-vars": ["error", { argsIgnorePattern: "^_", caughtErrors: "none" }],
};

export default [
  { ignores: ["**/node_modules/"] },
  { files: ["web/js/**/*.js", "web-tooling/**/*.js"], ...js.configs.recommended },
  {
    files: ["web/js/**/*.js"],
    languageOptions: { ecmaVersion: 2024, sourceType: "module", globals: { ...globals.browser } },
    rules,
  },
  {
    files: ["web-tooling/**/*.js"],
    languageOptions: { ecmaVersion: 2024, sourceType: "module", globals: { ...globals.node } },
    rules,
  },
];
