// Keeping secrets out of what leaves the extension: tokens are scrubbed from every result and error
// by the SDK's scrubSecrets (a service may echo one back, plain or encoded), and a sensitive
// action's argument values are replaced for records.
import { REDACTED } from "@keel/extension-sdk";

export { REDACTED, scrubSecrets } from "@keel/extension-sdk";

/** The arguments as a record may keep them: names only, each value `[redacted]`. */
export function redactArgs(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(args).map((key) => [key, REDACTED]));
}
