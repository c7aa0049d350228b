// The names the model and permission rules see: group `mcp__<server>`, entries
// `mcp__<server>__<tool>` (Claude Code's convention), limited to letters, digits, `_` and `-`
// and 64 characters, unique, and stable for the session once given (a tool that appears later
// never takes the name of one already known).
import { createHash } from "node:crypto";

export const MAX_NAME_LENGTH = 64;

export function sanitize(part: string): string {
  const clean = part.replace(/[^A-Za-z0-9_-]/g, "_");
  return clean === "" ? "_" : clean;
}

function fit(name: string, original: string): string {
  if (name.length <= MAX_NAME_LENGTH) return name;
  const hash = createHash("sha256").update(original).digest("hex").slice(0, 6);
  return `${name.slice(0, MAX_NAME_LENGTH - 7)}_${hash}`;
}

/**
 * A server's part of the names: sanitised, with no `__` inside it and no `_` at its end, so
 * `mcp__<server>__<tool>` always splits at the second `__` and a rule for server `docs` can never
 * cover a server named `docs__evil` (it becomes `docs_evil`).
 */
export function serverPart(name: string): string {
  const clean = sanitize(name).replace(/_{2,}/g, "_").replace(/_+$/, "");
  return clean === "" ? "server" : clean;
}

/** Gives each distinct original name one output name for the life of the namer. */
export class Namer {
  private readonly given = new Map<string, string>();
  private readonly taken = new Set<string>();

  constructor(
    private readonly format: (clean: string) => string,
    private readonly clean: (original: string) => string = sanitize,
  ) {}

  /** A name of Keel's own (a helper entry) under `key`, after the originals already given. */
  claim(key: string, clean: string): string {
    const known = this.given.get(key);
    if (known) return known;
    const base = fit(this.format(clean), key);
    let name = base;
    for (let n = 2; this.taken.has(name); n++) name = fit(`${base}_${n}`, `${key}#${n}`);
    this.given.set(key, name);
    this.taken.add(name);
    return name;
  }

  /** Names for `originals`: remembered ones first, then exact-clean names, then suffixed. */
  assign(originals: readonly string[]): Map<string, string> {
    const fresh = originals.filter((o) => !this.given.has(o));
    // An original that is already clean has the first claim on its name.
    const clean = this.clean;
    const ordered = [...fresh].sort(
      (a, b) => Number(clean(a) !== a) - Number(clean(b) !== b) || (a < b ? -1 : a > b ? 1 : 0),
    );
    for (const original of ordered) {
      const base = fit(this.format(clean(original)), original);
      let name = base;
      for (let n = 2; this.taken.has(name); n++) name = fit(`${base}_${n}`, `${original}#${n}`);
      this.given.set(original, name);
      this.taken.add(name);
    }
    return new Map(originals.map((o) => [o, this.given.get(o)!]));
  }
}

export function groupFor(serverName: string): string {
  return `mcp__${serverName}`;
}

/** Namer for one server's entries, `mcp__<server>__<tool>`. */
export function toolNamer(serverName: string): Namer {
  return new Namer((clean) => `mcp__${serverName}__${clean}`);
}

/** Namer for servers: the `<server>` part of the names above, unique across configured servers. */
export function serverNamer(): Namer {
  return new Namer((clean) => clean.slice(0, 40).replace(/_+$/, ""), serverPart);
}
