// The process's global fetch honours HTTPS_PROXY / HTTP_PROXY / NO_PROXY, as the model transport
// does: extensions' SDKs (Octokit, the MCP SDK, Linear's) call the global fetch, which Node 20
// sends direct. Installed once when the core loads, and only when a proxy variable is set.
import { proxyConfigured, proxyFetch } from "@keel/ai";

export function installProxyFetch(env: NodeJS.ProcessEnv = process.env): void {
  if (!proxyConfigured(env)) return;
  globalThis.fetch = proxyFetch(globalThis.fetch.bind(globalThis));
}
