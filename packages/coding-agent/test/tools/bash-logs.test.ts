// The Bash tool's full-output logs never fill a disk: each log has a cap, the folder a budget
// and an age limit (oldest go first), and no log is started when the disk is nearly full.
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { prepareLogDir } from "../../src/tools/bash-logs.js";
import { type BashDetails, createBashTool, defaultShell, LOG_LIMITS } from "../../src/tools/index.js";
import { context, makeTempDir, textOf } from "./helpers.js";

const SHELL = { file: defaultShell().file, args: ["-c"] };
const DAY = 24 * 60 * 60 * 1000;

describe("Bash output logs", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, cleanup } = await makeTempDir());
  });
  afterEach(() => cleanup());

  function oldLog(name: string, bytes: number, ageMs: number): string {
    const path = join(dir, name);
    writeFileSync(path, Buffer.alloc(bytes, 0x61));
    const when = (Date.now() - ageMs) / 1000;
    utimesSync(path, when, when);
    return path;
  }

  it("removes logs past the age limit, then the oldest until a new one fits the budget", () => {
    const limits = { ...LOG_LIMITS, maxLogBytes: 100, maxTotalBytes: 350, maxAgeMs: 7 * DAY };
    const ancient = oldLog("bash-1.log", 10, 8 * DAY);
    const a = oldLog("bash-2.log", 100, 3 * DAY);
    const b = oldLog("bash-3.log", 100, 2 * DAY);
    const c = oldLog("bash-4.log", 100, 1 * DAY);
    const other = oldLog("notes.txt", 1000, 30 * DAY);
    expect(prepareLogDir(dir, limits, { freeBytes: () => Number.MAX_SAFE_INTEGER })).toBeUndefined();
    // 300 bytes of logs + room for a new 100-byte one is over 350: the oldest goes.
    expect([ancient, a, b, c, other].map(existsSync)).toEqual([false, false, true, true, true]);
  });

  it("keeps at most maxFiles logs", () => {
    const limits = { ...LOG_LIMITS, maxFiles: 3 };
    for (let i = 0; i < 5; i++) oldLog(`bash-${i}.log`, 1, (10 - i) * 1000);
    prepareLogDir(dir, limits, { freeBytes: () => Number.MAX_SAFE_INTEGER });
    expect(readdirSync(dir).sort()).toEqual(["bash-3.log", "bash-4.log"]);
  });

  it("starts no log when the disk is nearly full, and says so", () => {
    expect(prepareLogDir(dir, LOG_LIMITS, { freeBytes: () => 1024 })).toMatch(/nearly full/);
  });

  it("stops a log at its cap and tells the model the end is in the output shown", async () => {
    const logs = join(dir, "logs");
    const bash = createBashTool({
      cwd: dir,
      shell: SHELL,
      logDir: logs,
      maxOutputBytes: 1024,
      logLimits: { ...LOG_LIMITS, maxLogBytes: 10_000, minFreeBytes: 0 },
    });
    const result = await bash.execute({ command: "seq 1 20000" }, context());
    const details = result.details as BashDetails;
    expect(details.truncated).toBe(true);
    expect(statSync(details.logPath!).size).toBe(10_000);
    expect(textOf(result)).toMatch(/Log \(its first 9\.8 KB; the end is above\)/);
    expect(textOf(result)).toContain("\n20000\n");
  });

  it("keeps nothing in memory beyond the tail when no log can be written", async () => {
    const bash = createBashTool({
      cwd: dir,
      shell: SHELL,
      logDir: join(dir, "logs"),
      maxOutputBytes: 1024,
      logLimits: { ...LOG_LIMITS, minFreeBytes: Number.MAX_SAFE_INTEGER },
    });
    const result = await bash.execute({ command: "seq 1 20000" }, context());
    expect((result.details as BashDetails).logPath).toBeUndefined();
    expect(textOf(result)).toMatch(/The full log could not be saved \(the disk is nearly full/);
    expect(readdirSync(join(dir, "logs"))).toEqual([]);
  });
});
