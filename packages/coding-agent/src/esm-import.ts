// The kernel's one door to ES modules at run time: extension files, the shell parser.
// A file of its own so the keel bin can keep it out of its V8 code cache: a cached script loses
// import()'s binding to Node's loader across processes (apps/cli/src/code-cache.ts).
export function importEsm(specifier: string): Promise<unknown> {
  return import(specifier);
}
