// `node --import ./sdk-resolve.js`: the web modules import the SDK as "@rollhouse/client",
// which the pages' import map sends to /sdk/ (clients/js/src, served by the server); in Node
// the same name goes to the same files through this resolve hook (sdk-hooks.js).
import { register } from "node:module";

register("./sdk-hooks.js", import.meta.url);
