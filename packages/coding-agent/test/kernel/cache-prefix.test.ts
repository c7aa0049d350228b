// The cache-first invariant, measured at the wire: every request's bytes (minus its one-request
// synthetic trailing message) are an exact prefix of the next request's, while session state,
// catalogs and notices change every turn.
import { readFileSync } from "node:fs";
import { type CatalogEntry, defineExtension, Type, textResult } from "@keel/extension-sdk";
import { cacheLines, isSystemReminder, type RecordedRequest } from "@keel/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createCodingAgent } from "../../src/index.js";
import { faux, type Sandbox, sandbox } from "./helpers.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

type Json = Record<string, unknown>;

/** The request as canonical bytes: system and tools, then one line per message. */
function canonical(request: RecordedRequest, dropSynthetic: boolean): string {
  return cacheLines(request, { dropReminder: dropSynthetic }).join("\n");
}

function noticeTexts(request: RecordedRequest): string[] {
  return (request.body.messages as Json[])
    .map((m) =>
      typeof m.content === "string" ? m.content : (((m.content as Json[])[0]?.text as string) ?? ""),
    )
    .filter((t) => t.startsWith("<capabilities>"));
}

const entry = (name: string, description: string): CatalogEntry => ({
  name,
  description,
  parameters: Type.Object({}),
  execute: async () => textResult(`${name} ran`),
});

describe("KV-cache prefix retention", () => {
  it("keeps every request a prefix of the next over 20 turns of changing state and catalogs", async () => {
    box = sandbox();
    const dynamic = new Map<string, string>([["alpha", "First dynamic tool"]]);
    let staticDescription = "A stable tool";
    const invalidate: (() => void)[] = [];
    // Catalog changes by turn: gains and losses twice in one catalog, an update in the other.
    const changes: Record<number, () => void> = {
      4: () => dynamic.set("gamma", "Added at turn 4"),
      7: () => dynamic.delete("alpha"),
      9: () => {
        staticDescription = "A stable tool, now described differently";
      },
      11: () => dynamic.set("delta", "Added at turn 11"),
      14: () => dynamic.delete("gamma"),
    };
    const probe = defineExtension({
      id: "cache-probe",
      sessionState: { schema: Type.Object({ items: Type.Array(Type.String()) }), default: { items: [] } },
      hooks: {
        beforeModelCall: (_event, runtime) => {
          const items = runtime.state.get().items;
          return items.length > 0 ? { context: `Open items: ${items.join("; ")}` } : undefined;
        },
        turnEnd: (event) => {
          const change = changes[event.turn];
          if (change) {
            change();
            for (const fn of invalidate) fn();
          }
        },
      },
      tools: (tool) => [
        tool({
          name: "SetItems",
          description: "Replace the open items.",
          parameters: Type.Object({ items: Type.Array(Type.String()) }),
          async execute(args, _ctx, runtime) {
            runtime.state.set({ items: args.items });
            return textResult(`${args.items.length} items`);
          },
        }),
      ],
      catalogs: [
        {
          id: "dynamic",
          discover: () => [...dynamic].map(([name, d]) => entry(name, d)),
          subscribe: (fn) => {
            invalidate.push(fn);
            return undefined;
          },
        },
        {
          id: "static",
          discover: () => [entry("beta", staticDescription)],
          subscribe: (fn) => {
            invalidate.push(fn);
            return undefined;
          },
        },
      ],
    });

    const f = faux({
      turns: [],
      fallback: (request) =>
        request.index < 19
          ? { toolCalls: [{ name: "SetItems", arguments: { items: [`item ${request.index}`, "shared"] } }] }
          : { text: "All done." },
    });
    const created = await createCodingAgent({
      cwd: box.workspace,
      home: box.home,
      model: f.model,
      streamOptions: f.streamOptions,
      permissionMode: "bypassPermissions",
      extensions: [probe],
      discoverExtensions: false,
    });
    if (created.isErr()) throw new Error(created.error.message);
    const agent = created.value;
    // Turn hooks fire without being awaited by the loop; wait for each turn's change to land.
    agent.subscribe((e) => {
      if (e.type === "turn_end") void 0;
    });
    const run = await agent.prompt("Work through the items.");
    expect(run._unsafeUnwrap().stopReason).toBe("stop");
    const sessionFile = agent.sessionFile!;
    await agent.close();

    const requests = f.requests;
    expect(requests).toHaveLength(20);
    let kept = 0;
    for (let n = 0; n + 1 < requests.length; n++) {
      const current = canonical(requests[n]!, true);
      const next = canonical(requests[n + 1]!, false);
      if (next.startsWith(current)) kept++;
      else {
        const a = current.split("\n");
        const b = next.split("\n");
        const i = a.findIndex((line, k) => line !== b[k]);
        expect.fail(
          `request ${n} is not a prefix of request ${n + 1} at line ${i}:\n${a[i]?.slice(0, 600)}\n!==\n${b[i]?.slice(0, 600)}`,
        );
      }
    }
    const retention = kept / (requests.length - 1);
    expect(retention).toBe(1);

    // Every request but the first carries the synthetic reminder, and the journal never does.
    for (const r of requests.slice(1))
      expect(isSystemReminder((r.body.messages as Json[]).at(-1)!)).toBe(true);
    expect(readFileSync(sessionFile, "utf8")).not.toContain("<system-reminder>");

    // Notices: the first lists names per catalog; later ones carry only the diff.
    const notices = noticeTexts(requests.at(-1)!);
    expect(notices[0]).toContain("cache-probe: alpha");
    expect(notices[0]).toContain("cache-probe-static: beta");
    const later = notices.slice(1).join("\n---\n");
    expect(notices.length).toBe(6);
    expect(later).toContain("Added:\n  cache-probe: gamma");
    expect(later).toContain("Removed:\n  cache-probe: alpha");
    expect(later).toContain("Updated:\n  cache-probe-static: beta");
    expect(later).toContain("Added:\n  cache-probe: delta");
    expect(later).toContain("Removed:\n  cache-probe: gamma");
    for (const notice of notices.slice(1)) {
      expect(notice).not.toContain("On-demand tools");
      // A diff notice never re-lists a tool that did not change.
      expect(notice.match(/beta/g)?.length ?? 0).toBeLessThanOrEqual(1);
    }
  });
});
