// What each server offered the last time it was listed — tools, prompts, whether it has resources,
// its instructions — kept on disk under a key made of its definition (transport, command, args,
// env, cwd / url, headers), so the next session lists its tools before it connects and a changed
// definition never reuses what another one said. Light: no MCP SDK at run time.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "@keel/extension-sdk/node";
import type { Prompt, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ServerSpec } from "../config/servers.js";

/** One server's inventory as it listed it (tools before the allow / deny lists). */
export interface ServerInventory {
  tools: Tool[];
  prompts: Prompt[];
  /** It declared the resources capability (Keel offers its list / read entries). */
  resources: boolean;
  /** It declared task-augmented tools/call (tasks.requests.tools.call). */
  taskCalls: boolean;
  instructions?: string;
}

interface KnownFile {
  version: 1;
  key: string;
  /** The server's name when saved, for whoever reads the folder. */
  server: string;
  savedAt: string;
  inventory: ServerInventory;
}

/** What decides what a server offers: a change to any of these makes its old inventory unknown. */
export function definitionKey(spec: ServerSpec): string {
  const definition =
    spec.transport === "stdio"
      ? { transport: "stdio", command: spec.command, args: spec.args, env: spec.env, cwd: spec.cwd }
      : { transport: spec.transport, url: spec.url, headers: spec.headers };
  // Values may be secrets (env, headers): only their hash is ever written.
  return createHash("sha256").update(JSON.stringify(definition)).digest("hex").slice(0, 32);
}

function isInventory(value: unknown): value is ServerInventory {
  const v = value as Partial<ServerInventory> | undefined;
  return (
    typeof v === "object" &&
    v !== null &&
    Array.isArray(v.tools) &&
    Array.isArray(v.prompts) &&
    typeof v.resources === "boolean" &&
    typeof v.taskCalls === "boolean" &&
    v.tools.every((t) => typeof t?.name === "string" && typeof t.inputSchema === "object")
  );
}

export class KnownInventories {
  constructor(private readonly dir: string) {}

  private file(key: string): string {
    return join(this.dir, `${key}.json`);
  }

  /** The inventory last saved for this exact definition, or undefined (none, unreadable, another key). */
  read(spec: ServerSpec): ServerInventory | undefined {
    const key = definitionKey(spec);
    try {
      const saved = JSON.parse(readFileSync(this.file(key), "utf8")) as KnownFile;
      if (saved.version === 1 && saved.key === key && isInventory(saved.inventory)) return saved.inventory;
    } catch {
      // never listed with this definition, or a damaged file: the server is simply not known yet
    }
    return undefined;
  }

  /** Saves what the server just listed (atomically: a reader never sees half a file). */
  write(spec: ServerSpec, inventory: ServerInventory): void {
    const key = definitionKey(spec);
    const saved: KnownFile = {
      version: 1,
      key,
      server: spec.name,
      savedAt: new Date().toISOString(),
      inventory,
    };
    // A full or read-only disk costs only the head start of the next session: the error is dropped.
    writeFileAtomic(this.file(key), JSON.stringify(saved), { mode: 0o600, dirMode: 0o700 });
  }
}

/** Same inventory, as far as anyone could see (the order of tools included). */
export function sameInventory(a: ServerInventory | undefined, b: ServerInventory): boolean {
  return a !== undefined && JSON.stringify(a) === JSON.stringify(b);
}
