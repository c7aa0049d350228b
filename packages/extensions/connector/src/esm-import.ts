// This package's one door to ES modules at run time (connector packages named in `modules`).
// Named like the kernel's and the CLI's esm-import modules on purpose: the keel CLI routes every
// `esm-import.js` to its own dist/esm-import.cjs, outside its V8 code cache, where a cached
// script would lose import()'s binding to Node's loader.
export function importEsm(specifier: string): Promise<unknown> {
  return import(specifier);
}
