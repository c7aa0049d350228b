// What the user has already been told about connecting, kept in the extension's data folder (user
// state: credentials are the user's, not a project's), so "not connected" is said once per
// connector and hint — not on every start — and again only after it was connected in between.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type AtomicWriteError, writeFileAtomic } from "@keel/extension-sdk/node";
import { ok, type Result } from "neverthrow";

/** Connector id → the exact line the user was shown. */
type Told = Record<string, string>;

const FILE = "told.json";

function read(dataDir: string): Told {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(join(dataDir, FILE), "utf8"));
  } catch {
    // Missing or unreadable: the worst case is saying the line once more.
    return {};
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return {};
  return Object.fromEntries(
    Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === "string"),
  );
}

export class ToldOnce {
  private readonly told: Told;
  private changed = false;

  constructor(private readonly dataDir: string) {
    this.told = read(dataDir);
  }

  /** True the first time this line is offered for this connector (a changed hint counts as new). */
  first(connectorId: string, line: string): boolean {
    if (this.told[connectorId] === line) return false;
    this.told[connectorId] = line;
    this.changed = true;
    return true;
  }

  /** The connector is connected now: a later disconnection is news again. */
  forget(connectorId: string): void {
    if (!(connectorId in this.told)) return;
    delete this.told[connectorId];
    this.changed = true;
  }

  /** Writes what changed; when it cannot, the line is said again next time. */
  save(): Result<void, AtomicWriteError> {
    if (!this.changed) return ok(undefined);
    const written = writeFileAtomic(join(this.dataDir, FILE), `${JSON.stringify(this.told, null, 2)}\n`, {
      durable: false,
    });
    return written.map(() => undefined);
  }
}
