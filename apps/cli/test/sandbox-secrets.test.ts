// A connector token in keel's environment (GITHUB_TOKEN) stays out of the model's reach in every
// mode: commands do not get it, and where a command finds it anyway (unsandboxed, reading keel's
// own /proc environ) the scrubber takes it out of the result, plain or encoded or cut short. Then
// the whole Keel home, every stream-json line and every request body the mock received are
// searched for the token and its encodings: none may hold it.
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: shell text in the attempts, not templates
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startMockServer } from "@keel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, lines, MODEL } from "./helpers.js";
import { fixture, hostDir, type Listeners, listeners, removeHostDir } from "./sandbox-machine.js";

const TOKEN = "ghp_Zq8Lw3Nv6Tr1Yb5Kd9Hs2Jm4Xc7Pf0Ga3Ue";

// Ways a command may try to print the token (`$GITHUB_TOKEN` from its environment, or keel's
// own environment under /proc when nothing hides keel's processes).
const ATTEMPTS = [
  "echo $GITHUB_TOKEN",
  'echo "token: $GITHUB_TOKEN"',
  'printf %s "$GITHUB_TOKEN" | base64',
  'printf %s "$GITHUB_TOKEN" | od -An -tx1 | tr -d " \\n"',
  "echo ${GITHUB_TOKEN:0:20}",
  "env | grep -i github",
  "for p in /proc/[0-9]*; do tr '\\0' '\\n' < $p/environ 2>/dev/null; done | grep -a GITHUB_TOKEN | sort -u",
  "for p in /proc/[0-9]*; do tr '\\0' '\\n' < $p/environ 2>/dev/null; done | grep -a GITHUB_TOKEN | sort -u | base64 -w0",
  "for p in /proc/[0-9]*; do tr '\\0' '\\n' < $p/environ 2>/dev/null; done | grep -a GITHUB_TOKEN | cut -c14-33",
];

/** Every reading of `text` a decoder gets: as it is, its base64 and hex runs decoded at every offset. */
function readings(text: string): string[] {
  const out = [text];
  for (const run of text.match(/[A-Za-z0-9+/=_-]{8,}/g) ?? [])
    for (let off = 0; off < 4; off++)
      out.push(
        Buffer.from(run.slice(off).replace(/-/g, "+").replace(/_/g, "/"), "base64").toString("latin1"),
      );
  for (const run of text.match(/[0-9a-fA-F]{8,}/g) ?? [])
    for (let off = 0; off < 2; off++) out.push(Buffer.from(run.slice(off), "hex").toString("latin1"));
  return out;
}

/** True when any reading of `text` holds 10 consecutive characters of the token. */
function leaks(text: string): boolean {
  const all = readings(text);
  for (let i = 0; i + 10 <= TOKEN.length; i++)
    if (all.some((r) => r.includes(TOKEN.slice(i, i + 10)))) return true;
  return false;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

let dir: string;
let net: Listeners;
beforeAll(async () => {
  dir = hostDir();
  net = await listeners(dir, "secrets");
});
afterAll(async () => {
  await net.close();
  removeHostDir(dir);
});

const CASES = [
  ...(["plan", "default", "acceptEdits", "dontAsk", "bypassPermissions"] as const).flatMap((mode) => [
    { mode, forced: false, unsandboxed: false },
    { mode, forced: true, unsandboxed: false },
  ]),
  // The user's choice to run bypassPermissions unconfined: keel's /proc is in reach, the scrubber is what holds.
  { mode: "bypassPermissions" as const, forced: false, unsandboxed: true },
];

describe("a connector token in keel's environment", () => {
  it.each(CASES)(
    "$mode (parser forced: $forced, unsandboxed: $unsandboxed): nothing useful comes back, nothing holds it",
    { timeout: 180_000 },
    async ({ mode, forced, unsandboxed }) => {
      const name = `${mode}-${forced}-${unsandboxed}`;
      const fx = fixture(dir, name, [], net);
      if (unsandboxed)
        writeFileSync(
          join(fx.keelHome, "config.json"),
          JSON.stringify({ sandbox: { bypassPermissions: "none" } }),
        );
      const server = await startMockServer({
        turns: [
          {
            toolCalls: ATTEMPTS.map((command, i) => ({
              id: `toolu_t${i}`,
              name: "Bash",
              arguments: { command },
            })),
          },
          { text: "done" },
        ],
      });
      const env: NodeJS.ProcessEnv = { ...process.env, ...fx.env };
      for (const key of ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"]) delete env[key];
      Object.assign(env, {
        ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
        ANTHROPIC_API_KEY: "test",
        NO_PROXY: "127.0.0.1,localhost",
        GITHUB_TOKEN: TOKEN,
        ...(forced ? { KEEL_TEST_FORCE_PARSER_ALLOW: "1" } : {}),
      });
      const child = spawn(
        process.execPath,
        [BIN, "-p", "--model", MODEL, "--permission-mode", mode, "--output-format", "stream-json", "go"],
        { cwd: fx.ws, env, stdio: ["ignore", "pipe", "pipe"] },
      );
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => {
        stdout += d.toString();
      });
      child.stderr.on("data", (d: Buffer) => {
        stderr += d.toString();
      });
      const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
      await server.close();
      expect(code, stderr).toBe(0);
      // Every attempt came back; with the parser forced to allow, every one of them ran.
      const ended = lines(stdout).filter((l) => l.type === "tool_end");
      expect(ended).toHaveLength(ATTEMPTS.length);
      if (forced || unsandboxed)
        expect(
          ended.filter((l) =>
            /^(plan mode|dontAsk mode|Bash needs the user's approval)/.test(String(l.text)),
          ),
        ).toEqual([]);
      if (unsandboxed) expect(stdout).toContain("GITHUB_TOKEN=[redacted]");

      expect(leaks(stdout), "a stream-json line holds the token").toBe(false);
      expect(leaks(stderr), "stderr holds the token").toBe(false);
      for (const request of server.requests)
        expect(leaks(request.raw), `request ${request.index}`).toBe(false);
      for (const file of filesUnder(fx.keelHome))
        expect(leaks(readFileSync(file, "latin1")), `${file} holds the token`).toBe(false);
    },
  );
});
