// Opens a model's connection ahead of its first request, so a CLI's setup overlaps the TCP and
// TLS handshakes instead of waiting for them after it.
import { resolveApiKey } from "./driver.js";
import { baseUrlOf } from "./providers/base-url.js";
import type { Model, StreamOptions } from "./types.js";

/**
 * Best effort and silent: a connection that fails here is simply opened again by the request.
 * Nothing happens where the built-in transport will not send the call: the options bring their
 * own fetch, or the model has no key to be called with. The transport (node:http, node:tls)
 * loads here, as the providers load it, not with the package.
 */
export function preconnect(model: Model, options: StreamOptions = {}): void {
  if (options.fetch || typeof resolveApiKey(model, options) !== "string") return;
  const url = baseUrlOf(model);
  void import("./transport/node-fetch.js").then((transport) => transport.preconnect(url));
}
