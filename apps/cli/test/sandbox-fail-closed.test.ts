// Where no sandbox can start, keel fails closed and says so once: simulated by pointing keel at a
// bubblewrap that is not there (KEEL_BWRAP), and at one that cannot make a sandbox (user
// namespaces refused). Plan mode refuses even a command that only reads; default asks, which
// headless means denied; nothing runs either way.
import { chmodSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lines, MODEL, mockSuite, runKeel } from "./helpers.js";

const { fresh } = mockSuite();

describe("no sandbox can start", () => {
  it.each(
    [
      ["bubblewrap is missing", () => "/nonexistent/bwrap"],
      [
        "bubblewrap cannot make a sandbox",
        (dir: string) => {
          const fake = join(dir, "bwrap");
          writeFileSync(
            fake,
            '#!/bin/sh\n[ "$1" = --version ] && { echo "bubblewrap 0.8.0"; exit 0; }\necho "bwrap: setting up uid map: Permission denied" >&2; exit 1\n',
          );
          chmodSync(fake, 0o755);
          return fake;
        },
      ],
    ]
      .map(([name, bwrap]) => [name as string, bwrap as (dir: string) => string] as const)
      .flatMap(([name, bwrap]) => (["plan", "default"] as const).map((mode) => [name, mode, bwrap] as const)),
  )(
    "%s, %s mode: plan refuses Bash, default asks (denied headless), said once",
    async (_name, mode, bwrap) => {
      const { server, ws } = fresh([
        { toolCalls: [{ id: "toolu_ls", name: "Bash", arguments: { command: "ls" } }] },
        { toolCalls: [{ id: "toolu_touch", name: "Bash", arguments: { command: "touch made.txt" } }] },
        { text: "done" },
      ]);
      const run = await runKeel(
        [
          "-p",
          "go",
          "--model",
          MODEL,
          "--permission-mode",
          mode,
          "--cwd",
          ws.repo,
          "--output-format",
          "stream-json",
        ],
        { server, ws, env: { KEEL_BWRAP: bwrap(ws.home) } },
      );
      expect(run.code, run.stderr).toBe(0);
      const said = run.stderr.split("\n").filter((l) => l.includes("No OS sandbox"));
      expect(said, run.stderr).toHaveLength(1);
      const ended = lines(run.stdout).filter((l) => l.type === "tool_end");
      expect(ended.map((l) => l.isError)).toEqual([true, true]);
      if (mode === "plan") expect(String(ended[0]!.text)).toMatch(/no OS sandbox can start here/);
      else expect(String(ended[0]!.text)).toMatch(/nobody can approve it/);
      expect(readdirSync(ws.repo).filter((n) => n !== ".git")).toEqual([]);
    },
  );
});
