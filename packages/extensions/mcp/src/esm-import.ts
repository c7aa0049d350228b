// The extension's door to its MCP client at run time. The client (and the MCP SDK under it)
// is loaded by package name only when a session has servers or `keel mcp` runs, so a host that
// bundles this extension (the keel bin) never bundles or starts the SDK. A file of its own,
// named like the kernel's, so the keel bin serves it with its door outside the V8 code cache.
export function importEsm(specifier: string): Promise<unknown> {
  return import(specifier);
}
