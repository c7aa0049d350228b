// examples/extensions loaded through the kernel's extension loading (`extensionPaths`, as `keel -e`
// does): task-timer's status texts, and notify running a notifier found on PATH.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, join, resolve } from "node:path";
import type { CodingAgent } from "@keel/coding-agent";
import type { Scenario } from "@keel/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fauxProvider, recordingUi, type Sandbox, sandbox, start } from "./kernel-harness.js";

const examples = resolve(import.meta.dirname, "../../../../examples/extensions");

let box: Sandbox;
let running: CodingAgent | undefined;
const savedEnv = { PATH: process.env.PATH, KEEL_NOTIFY_AFTER_MS: process.env.KEEL_NOTIFY_AFTER_MS };

beforeEach(() => {
  box = sandbox();
});
afterEach(async () => {
  await running?.close();
  running = undefined;
  process.env.PATH = savedEnv.PATH;
  if (savedEnv.KEEL_NOTIFY_AFTER_MS === undefined) delete process.env.KEEL_NOTIFY_AFTER_MS;
  else process.env.KEEL_NOTIFY_AFTER_MS = savedEnv.KEEL_NOTIFY_AFTER_MS;
  box.cleanup();
});

/** Starts the kernel in the sandbox with one example extension, answering with `turns`. */
async function startExample(
  file: string,
  turns: Scenario["turns"],
  ui?: ReturnType<typeof recordingUi>["ui"],
): Promise<CodingAgent> {
  const provider = fauxProvider({ turns });
  running = await start({
    cwd: box.workspace,
    home: box.home,
    model: provider.model,
    streamOptions: provider.streamOptions,
    extensionPaths: [join(examples, file)],
    ...(ui ? { ui } : {}),
  });
  return running;
}

/** A notify-send running `script` in a fresh bin folder; returns that folder. */
function fakeNotifier(script: string): string {
  const bin = join(box.root, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "notify-send"), `#!/bin/sh\n${script}\n`);
  chmodSync(join(bin, "notify-send"), 0o755);
  return bin;
}

describe("examples/extensions", () => {
  it("task-timer: running…, then done in …; a failed run keeps its failure", async () => {
    const recorded = recordingUi();
    const agent = await startExample(
      "task-timer.ts",
      [{ text: "ok" }, { kind: "error", status: 400, message: "bad request from the test" }],
      recorded.ui,
    );
    expect(agent.diagnostics().filter((d) => d.level === "error")).toEqual([]);
    const texts = () => recorded.statuses.filter((s) => s.key === "task-timer").map((s) => s.text);

    expect((await agent.prompt("hi")).isOk()).toBe(true);
    expect(texts()[0]).toBe("running…");
    expect(texts().at(-1)).toMatch(/^done in \d+\.\ds$/);

    const failed = await agent.prompt("fail");
    expect(failed._unsafeUnwrap().stopReason).toBe("error");
    const second = texts().slice(2);
    expect(second[0]).toBe("running…");
    expect(second.slice(1).length).toBeGreaterThan(0);
    for (const text of second.slice(1)) expect(text).toMatch(/^failed after \d+\.\ds$/);
  });

  it("notify: runs notify-send from PATH after a run longer than KEEL_NOTIFY_AFTER_MS", async () => {
    const marker = join(box.root, "notified.txt");
    const bin = fakeNotifier(`printf '%s\\n' "$@" > '${marker}'`);
    process.env.PATH = `${bin}${delimiter}${savedEnv.PATH ?? ""}`;
    process.env.KEEL_NOTIFY_AFTER_MS = "0";

    const agent = await startExample("notify.ts", [{ text: "finished" }]);
    expect(agent.diagnostics().filter((d) => d.level === "error")).toEqual([]);
    expect((await agent.prompt("hi")).isOk()).toBe(true);
    expect(readFileSync(marker, "utf8")).toMatch(/^Keel\nDone in \d+s \(1 turn\)\n$/);
  });

  it("notify: stays quiet under the threshold and does not fail without a notifier", async () => {
    const marker = join(box.root, "notified.txt");
    const bin = fakeNotifier(`touch '${marker}'`);
    process.env.PATH = bin;
    process.env.KEEL_NOTIFY_AFTER_MS = "3600000";

    const agent = await startExample("notify.ts", [{ text: "quick" }, { text: "again" }]);
    expect((await agent.prompt("hi")).isOk()).toBe(true);
    expect(existsSync(marker)).toBe(false);

    process.env.PATH = join(box.root, "empty");
    process.env.KEEL_NOTIFY_AFTER_MS = "0";
    expect((await agent.prompt("again")).isOk()).toBe(true);
    expect(existsSync(marker)).toBe(false);
    expect(agent.diagnostics().filter((d) => d.extensionId === "notify")).toEqual([]);
  });
});
