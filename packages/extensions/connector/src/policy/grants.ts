// "Allow this exact call": a grant bound to a hash of the action and its arguments, valid until
// it expires. Any other argument, or the same ones after expiry, asks again. The clock is passed in.
import { createHash } from "node:crypto";

/** JSON with object keys sorted, so `{a,b}` and `{b,a}` hash alike. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** sha256 over the action's name and its canonical arguments. */
export function callHash(entry: string, args: Record<string, unknown>): string {
  return createHash("sha256").update(entry).update("\0").update(canonicalJson(args)).digest("hex");
}

export const DEFAULT_EXACT_TTL_MS = 10 * 60 * 1000;

export class ExactCallGrants {
  private readonly expiries = new Map<string, number>();

  constructor(private readonly ttlMs: number = DEFAULT_EXACT_TTL_MS) {}

  grant(hash: string, now: number): number {
    const expiresAt = now + this.ttlMs;
    this.expiries.set(hash, expiresAt);
    return expiresAt;
  }

  covers(hash: string, now: number): boolean {
    const expiresAt = this.expiries.get(hash);
    if (expiresAt === undefined) return false;
    if (now < expiresAt) return true;
    this.expiries.delete(hash);
    return false;
  }
}
