// Builds the tagged, JSON-safe errors the package returns from caught Node errors.
import type { SessionError } from "./types.js";

export function errorCode(e: unknown): string | undefined {
  return typeof e === "object" && e !== null && "code" in e
    ? String((e as { code: unknown }).code)
    : undefined;
}

export function ioError(op: string, path: string, e: unknown): SessionError {
  const code = errorCode(e);
  return {
    type: "io",
    op,
    path,
    ...(code ? { code } : {}),
    message: `${op} ${path} failed: ${e instanceof Error ? e.message : String(e)}`,
  };
}
