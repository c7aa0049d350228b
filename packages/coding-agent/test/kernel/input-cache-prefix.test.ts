// The cache-first invariant for what the user adds mid-session: a `!cmd` notice, a prompt with
// @file attachments and an image, a denial that stopped the run, and a permission-mode change
// all reach the model by appending; every request's bytes are a prefix of the next one's, and
// each request keeps its cache breakpoint.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { cacheLines, historyBreakpoints } from "@keel/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createCodingAgent } from "../../src/index.js";
import { faux, type Sandbox, sandbox } from "./helpers.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);

describe("what the user adds keeps the prefix", () => {
  it("!cmd, @mentions with an image, a stopping denial and a mode change only append", async () => {
    box = sandbox();
    writeFileSync(join(box.workspace, "a.ts"), "export const a = 1;\n");
    writeFileSync(join(box.workspace, "shot.png"), PNG);
    const f = faux({
      turns: [
        { text: "Hello." },
        { text: "I see a.ts and the picture." },
        { toolCalls: [{ name: "Write", arguments: { path: "b.ts", content: "x" } }] },
        { text: "Waiting for you." },
        { text: "Done." },
      ],
    });
    const created = await createCodingAgent({
      cwd: box.workspace,
      home: box.home,
      model: f.model,
      streamOptions: f.streamOptions,
      ui: { approve: async () => ({ decision: "deny", reason: "not b.ts", stopRun: true }) },
    });
    const agent = created._unsafeUnwrap();
    await agent.prompt("hi");
    (await agent.runShell("ls"))._unsafeUnwrap();
    await agent.prompt("look at @a.ts and @shot.png");
    await agent.prompt("write b");
    agent.setPermissionMode("plan")._unsafeUnwrap();
    await agent.prompt("what now?");
    await agent.close();

    expect(f.requests).toHaveLength(4);
    for (let n = 0; n + 1 < f.requests.length; n++) {
      const a = cacheLines(f.requests[n]!);
      const b = cacheLines(f.requests[n + 1]!);
      expect(b.length).toBeGreaterThan(a.length);
      for (let i = 0; i < a.length; i++) expect(b[i], `request ${n} line ${i}`).toBe(a[i]);
    }
    // Each request still marks its last message for the cache.
    for (const request of f.requests) {
      const last = (request.body.messages as unknown[]).length - 1;
      expect(historyBreakpoints(request).map((b) => b.message)).toContain(last);
    }
  });
});
