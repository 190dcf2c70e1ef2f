// ESLint's own recommended rules (@eslint/js), for code that runs in browsers and in Node.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["node_modules/", "types/"] },
  js.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { ...globals.browser, ...globals.node },
    },
    rules: {
      eqeqeq: ["error", "always"],
      "no-var": "error",
      "prefer-const": "error",
      "no-unused-vars": ["error", { argsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },
];
