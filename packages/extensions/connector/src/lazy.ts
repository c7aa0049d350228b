// Loads a service SDK on first use, with require (Node ≥ 20.19 requires ESM packages too): a
// session that never calls a connector never loads its SDK, and a host that bundles this
// package (the keel CLI) can keep the SDK out of its bundle by treating it as external, where a
// dynamic import() would be inlined or, left in a code-cached bundle, fail. The SDKs are optional
// peers (they install ~25 MB, mostly declarations), so a missing one is said plainly.
import { createRequire } from "node:module";

const load = createRequire(import.meta.url);

export function loadSdk<T>(name: string): T {
  try {
    load.resolve(name);
  } catch {
    throw new Error(
      `${name} is not installed; it is an optional peer dependency of @keel/ext-connector: npm i ${name} (the keel CLI ships it)`,
    );
  }
  return load(name) as T;
}
