// The keel-mock-server bin as a shell or another package's e2e test would run it.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import OpenAI from "openai";
import { afterAll, afterEach, describe, expect, it } from "vitest";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const dir = mkdtempSync(join(tmpdir(), "keel-mock-bin-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

function run(args: string[]): ChildProcess {
  const child = spawn(process.execPath, ["--import", "tsx", "src/bin.ts", ...args], {
    cwd: packageDir,
    stdio: ["pipe", "pipe", "pipe"],
  });
  children.push(child);
  return child;
}

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stderr?.on("data", (part: Buffer) => {
      err += part.toString();
    });
    child.stdout?.on("data", (part: Buffer) => {
      out += part.toString();
      const end = out.indexOf("\n");
      if (end >= 0) resolve(out.slice(0, end));
    });
    child.once("exit", (code) => reject(new Error(`exited with ${code} before announcing: ${err}`)));
  });
}

function exitOf(child: ChildProcess): Promise<{ code: number | null; stderr: string }> {
  let stderr = "";
  child.stderr?.on("data", (part: Buffer) => {
    stderr += part.toString();
  });
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, stderr })));
}

describe("keel-mock-server", () => {
  it("serves a scenario file, exposes the control routes and stops cleanly on SIGTERM", async () => {
    const file = join(dir, "scenario.json");
    writeFileSync(file, JSON.stringify({ turns: [{ text: "from the file" }] }));
    const child = run([file]);
    const announced = JSON.parse(await firstLine(child)) as { port: number; url: string };
    expect(announced.url).toBe(`http://127.0.0.1:${announced.port}`);

    const openai = new OpenAI({ apiKey: "k", baseURL: `${announced.url}/v1`, maxRetries: 0 });
    const first = await openai.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(first.choices[0]?.message.content).toBe("from the file");

    const recorded = (await (await fetch(`${announced.url}/__keel/requests`)).json()) as { path: string }[];
    expect(recorded.map((r) => r.path)).toEqual(["/v1/chat/completions"]);

    const swap = await fetch(`${announced.url}/__keel/scenario`, {
      method: "POST",
      body: JSON.stringify({ turns: [{ text: "swapped" }] }),
    });
    expect(swap.status).toBe(200);
    const second = await openai.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(second.choices[0]?.message.content).toBe("swapped");

    const bad = await fetch(`${announced.url}/__keel/scenario`, {
      method: "POST",
      body: '{"turns":[{"kind":"nope"}]}',
    });
    expect(bad.status).toBe(400);

    const exited = exitOf(child);
    child.kill("SIGTERM");
    expect((await exited).code).toBe(0);
  });

  it("reads the scenario from stdin and honours --port", async () => {
    const child = run(["-", "--port", "0"]);
    child.stdin?.end(JSON.stringify({ turns: [{ text: "from stdin" }] }));
    const { url } = JSON.parse(await firstLine(child)) as { url: string };
    const response = await fetch(`${url}/v1/messages`, { method: "POST", body: '{"model":"m"}' });
    expect(((await response.json()) as { content: unknown }).content).toEqual([
      { type: "text", text: "from stdin" },
    ]);
    const exited = exitOf(child);
    child.kill("SIGINT");
    expect((await exited).code).toBe(0);
  });

  it("refuses an invalid scenario with exit code 2 and a message naming the problem", async () => {
    const child = run(["-"]);
    const exited = exitOf(child);
    child.stdin?.end('{"turns":[{"kind":"error"}]}');
    const { code, stderr } = await exited;
    expect(code).toBe(2);
    expect(stderr).toContain('turns[0] is an error turn and needs a numeric "status"');
  });
});
