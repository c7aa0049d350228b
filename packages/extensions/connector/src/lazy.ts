// Loads a service SDK on first use, with require (Node ≥ 20.19 requires ESM packages too): a
// session that never calls a connector never loads its SDK, and a host that bundles this
// package (the keel CLI) can keep the SDK out of its bundle by treating it as external, where a
// dynamic import() would be inlined or, left in a code-cached bundle, fail.
import { createRequire } from "node:module";

const load = createRequire(import.meta.url);

export function loadSdk<T>(name: string): T {
  return load(name) as T;
}
