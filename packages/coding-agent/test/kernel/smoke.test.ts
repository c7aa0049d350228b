import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createCodingAgent } from "../../src/index.js";
import { faux, type Sandbox, sandbox } from "./helpers.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

describe("createCodingAgent", () => {
  it("runs a tool with T1/T2 journaled and answers", async () => {
    box = sandbox();
    const f = faux({
      turns: [
        { toolCalls: [{ name: "Write", arguments: { path: "a.txt", content: "hello\n" } }] },
        { text: "Wrote a.txt." },
      ],
    });
    const early: string[] = [];
    const created = await createCodingAgent({
      cwd: box.workspace,
      home: box.home,
      model: f.model,
      streamOptions: f.streamOptions,
      permissionMode: "bypassPermissions",
      onEvent: (e) => early.push(e.type),
    });
    if (created.isErr()) throw new Error(created.error.message);
    const agent = created.value;
    const events: string[] = [];
    agent.subscribe((e) => events.push(e.type));
    const run = await agent.prompt("write a.txt");
    expect(run.isOk()).toBe(true);
    const summary = run._unsafeUnwrap();
    expect(summary.stopReason).toBe("stop");
    expect(summary.text).toBe("Wrote a.txt.");
    expect(readFileSync(join(box.workspace, "a.txt"), "utf8")).toBe("hello\n");
    const file = agent.sessionFile!;
    await agent.close();
    const types = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).type);
    expect(types).toContain("op_begin");
    expect(types).toContain("op_end");
    expect(types.indexOf("op_begin")).toBeLessThan(types.indexOf("op_end"));
    expect(events).toContain("tool_end");
    expect(events.at(-1)).toBe("run_end");
    // onEvent also heard what creation emitted, before anyone could subscribe.
    expect(early.slice(0, early.indexOf("run_start"))).toContain("session_start");
    expect(agent.toolNames()).toEqual(["Read", "Write", "Edit", "Bash", "Glob", "Grep", "LS"]);
  });

  it("keeps running when a listener throws, and warns once", async () => {
    box = sandbox();
    const f = faux({ turns: [{ text: "one" }, { text: "two" }] });
    const created = await createCodingAgent({
      cwd: box.workspace,
      home: box.home,
      model: f.model,
      streamOptions: f.streamOptions,
    });
    if (created.isErr()) throw new Error(created.error.message);
    const agent = created.value;
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on("warning", onWarning);
    try {
      agent.subscribe(() => {
        throw new Error("listener broke");
      });
      expect((await agent.prompt("first"))._unsafeUnwrap().text).toBe("one");
      expect((await agent.prompt("second"))._unsafeUnwrap().text).toBe("two");
      await new Promise((r) => setImmediate(r));
      expect(warnings.filter((m) => m.includes("listener broke"))).toHaveLength(1);
    } finally {
      process.off("warning", onWarning);
      await agent.close();
    }
  });
});
