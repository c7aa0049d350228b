// The kernel when the journal cannot follow: a full disk stops the run before the next model
// request (instead of resending a context that no longer advances), the journal goes on once
// space is back, and a read-only session refuses prompts instead of answering unrecorded.
import fs, { appendFileSync, readFileSync, readlinkSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { openSession } from "@keel/session";
import { afterEach, describe, expect, it } from "vitest";
import { createCodingAgent } from "../../src/index.js";
import { faux, type Sandbox, sandbox } from "./helpers.js";

let box: Sandbox;
let restoreDisk: (() => void) | undefined;
afterEach(() => {
  restoreDisk?.();
  restoreDisk = undefined;
  box?.cleanup();
});

/**
 * Makes every write to a file under `dir` fail with ENOSPC while `full` (a disk full for
 * that directory only), by replacing fs.writeSync for this process. The session writer
 * imports it as an ES binding, which syncBuiltinESMExports updates.
 */
function diskUnder(dir: string) {
  const real = fs.writeSync;
  const state = { full: false };
  const pathOf = (fd: number) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      return "";
    }
  };
  fs.writeSync = ((fd: number, ...rest: unknown[]) => {
    if (state.full && pathOf(fd).startsWith(dir))
      throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    return (real as (...a: unknown[]) => number)(fd, ...rest);
  }) as typeof fs.writeSync;
  syncBuiltinESMExports();
  restoreDisk = () => {
    fs.writeSync = real;
    syncBuiltinESMExports();
  };
  return state;
}

const bash = (command: string) => ({ toolCalls: [{ name: "Bash", arguments: { command } }] });

describe("a full disk during a run", () => {
  it("stops before the next request, says why, and journals again once space is back", async () => {
    box = sandbox();
    const disk = diskUnder(box.home);
    // A model that would call tools forever if nothing stopped it.
    const f = faux({ turns: [{ text: "ready" }], fallback: bash("echo again") });
    const agent = (
      await createCodingAgent({
        cwd: box.workspace,
        home: box.home,
        model: f.model,
        streamOptions: f.streamOptions,
        permissionMode: "bypassPermissions",
      })
    )._unsafeUnwrap();
    expect((await agent.prompt("first"))._unsafeUnwrap().text).toBe("ready");
    const file = agent.sessionFile!;
    const acknowledged = readFileSync(file, "utf8");

    // The disk fills while the first tool runs: its result cannot be journaled.
    const unsubscribe = agent.subscribe((e) => {
      if (e.type === "tool_start") disk.full = true;
    });
    const before = f.requests.length;
    const run = (await agent.prompt("loop"))._unsafeUnwrap();
    unsubscribe();
    expect(f.requests.length - before).toBe(1);
    expect(run.stopReason).toBe("error");
    expect(run.error?.type).toBe("journal");
    expect(run.error?.message).toMatch(/ENOSPC/);
    expect(run.error?.message).toMatch(/Free disk space/);

    // While still full, a new prompt is not sent at all.
    const refused = (await agent.prompt("still full"))._unsafeUnwrap();
    expect(refused.stopReason).toBe("error");
    expect(f.requests.length - before).toBe(1);

    disk.full = false;
    f.setScenario({ turns: [{ text: "back" }] });
    expect((await agent.prompt("space is back"))._unsafeUnwrap().text).toBe("back");
    // The request after recovery carries the journal's context, not what was never recorded.
    const sent = JSON.stringify(f.requests.at(-1)!.body);
    expect(sent).not.toContain("still full");
    await agent.close();

    const text = readFileSync(file, "utf8");
    expect(text.startsWith(acknowledged)).toBe(true);
    const reopened = (await openSession(file))._unsafeUnwrap();
    expect(reopened.notices).toEqual([]);
    const prompts = reopened.fold().messages.filter((m) => m.role === "user");
    expect(prompts.map((m) => m.content)).toEqual(["first", "loop", "space is back"]);
    await reopened.close();
  });
});

describe("a read-only session", () => {
  it("refuses a prompt without sending it and says to fork", async () => {
    box = sandbox();
    const f = faux({ turns: [{ text: "one" }, { text: "never" }] });
    const options = {
      cwd: box.workspace,
      home: box.home,
      model: f.model,
      streamOptions: f.streamOptions,
    };
    const first = (await createCodingAgent(options))._unsafeUnwrap();
    await first.prompt("hello");
    const file = first.sessionFile!;
    await first.close();
    appendFileSync(
      file,
      `${JSON.stringify({ type: "from_the_future", id: "zzzzzzzzzz", parentId: null, timestamp: "" })}\n`,
    );
    const size = readFileSync(file).length;

    const again = (
      await createCodingAgent({ ...options, session: { mode: "resume", session: file } })
    )._unsafeUnwrap();
    const refused = await again.prompt("second");
    expect(refused._unsafeUnwrapErr()).toMatchObject({ type: "session", problem: "read_only" });
    expect(refused._unsafeUnwrapErr().message).toMatch(/entry types this Keel does not know/);
    expect(refused._unsafeUnwrapErr().message).toMatch(/[Ff]ork/);
    expect(f.requests).toHaveLength(1);
    expect(again.diagnostics().filter((d) => d.level === "error")).toEqual([]);
    await again.close();
    expect(readFileSync(file).length).toBe(size);
  });
});
