// Peak memory of a real coding session: the 10-turn scenario (read, ls, edit, cat, write, read,
// edit, git status, wc, final text) through the built bin on the node running the suite (Node 24
// in CI). On Node 24 a few Bash calls once made V8 optimise the shell parser's WASM: 600 MB, most
// of it on background threads after the last reply, so the peak is read from outside the process
// by GNU time (its whole life, exit included), not by keel itself.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MODEL, mockSuite, runKeel } from "./helpers.js";

const suite = mockSuite();
const tool = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, arguments: args }] });

/** The ceiling the runtime issue set for this scenario; Node 20 and 22 peak near 95 MB. */
const PEAK_RSS_MB = 120;
/** GNU time (Debian's `time` package; .ci/run installs it). */
const GNU_TIME = "/usr/bin/time";

describe("memory", () => {
  it("has GNU time to measure with", () => {
    expect(existsSync(GNU_TIME), `${GNU_TIME} is missing: apt-get install time`).toBe(true);
  });

  it(`the 10-turn coding scenario peaks below ${PEAK_RSS_MB} MB RSS on node ${process.versions.node}`, async () => {
    const { server, ws } = suite.fresh([
      tool("Read", { path: "a.txt" }),
      tool("LS", { path: "." }),
      tool("Edit", { path: "a.txt", old_string: "41", new_string: "42" }),
      tool("Bash", { command: "cat a.txt" }),
      tool("Write", { path: "b.txt", content: "x\n" }),
      tool("Read", { path: "b.txt" }),
      tool("Edit", { path: "b.txt", old_string: "x", new_string: "y" }),
      tool("Bash", { command: "git status --short" }),
      tool("Bash", { command: "wc -l a.txt b.txt" }),
      { text: "done" },
    ]);
    writeFileSync(join(ws.repo, "a.txt"), "answer 41\n");
    const run = await runKeel(
      ["-p", "fix the answer", "--permission-mode", "bypassPermissions", "--model", MODEL, "--cwd", ws.repo],
      { server, ws, wrapper: [GNU_TIME, "-f", "keel peak rss: %M KB"] },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(server.requests).toHaveLength(10);
    const kb = Number(/keel peak rss: (\d+) KB/.exec(run.stderr)?.[1]);
    expect(kb).toBeGreaterThan(0);
    expect(kb / 1024).toBeLessThan(PEAK_RSS_MB);
  });
});
