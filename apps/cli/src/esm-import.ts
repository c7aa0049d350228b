// The CLI core's door to ES modules at run time (the TUI entry). Built as its own file,
// dist/esm-import.cjs, outside the V8 code cache of dist/keel.cjs: a cached script loses
// import()'s binding to Node's loader across processes (src/code-cache.ts). The kernel's
// src/esm-import.ts gets the same treatment.
export function importEsm(specifier: string): Promise<unknown> {
  return import(specifier);
}
