// kill -9 while a Bash call runs, then `keel -c -p continue`: the journal's T1 without T2 turns
// into a tool result telling the model that call was interrupted with an unknown outcome.
import { type MockServer, startMockServer } from "@keel/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  lines,
  MODEL,
  readText,
  runKeel,
  sessionFiles,
  startKeel,
  until,
  type Workspace,
  workspace,
} from "./helpers.js";

let server: MockServer;
let ws: Workspace;
beforeAll(async () => {
  server = await startMockServer({ turns: [] });
  ws = workspace();
});
afterAll(async () => {
  await server.close();
  ws.dispose();
});

interface AnthropicBlock {
  type: string;
  tool_use_id?: string;
  is_error?: boolean;
  content?: unknown;
}

it("tells the model which call a kill -9 interrupted", async () => {
  server.setScenario({
    turns: [
      {
        toolCalls: [
          { id: "toolu_sleep1", name: "Bash", arguments: { command: "sleep 5; echo done > marker" } },
        ],
      },
      { text: "I will check the marker first." },
    ],
  });
  const args = ["--permission-mode", "bypassPermissions", "--model", MODEL, "--cwd", ws.repo];
  const first = startKeel(["-p", "make a marker", "--output-format", "stream-json", ...args], { server, ws });
  await first.waitForLine((l) => l.includes('"tool_start"') && l.includes("toolu_sleep1"));
  // T1 is durable before the tool runs; wait until it is on disk, then crash hard.
  await until(() => sessionFiles(ws.home).some((f) => readText(f).includes('"op_begin"')), "the T1 entry");
  first.child.kill("SIGKILL");
  const killed = await first.done;
  expect(killed.signal).toBe("SIGKILL");
  expect(lines(killed.stdout).some((l) => l.type === "result")).toBe(false);

  const resumed = await runKeel(["-c", "-p", "continue", "--output-format", "json", ...args], { server, ws });
  expect(resumed.code).toBe(0);
  expect(lines(resumed.stdout)[0]).toMatchObject({ type: "result", text: "I will check the marker first." });

  const request = server.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] };
  const results = request.messages
    .flatMap((m) => (Array.isArray(m.content) ? (m.content as AnthropicBlock[]) : []))
    .filter((b) => b.type === "tool_result" && b.tool_use_id === "toolu_sleep1");
  expect(results).toHaveLength(1);
  expect(results[0]!.is_error).toBe(true);
  expect(JSON.stringify(results[0]!.content)).toMatch(/outcome is unknown/);
  expect(JSON.stringify(request.messages.at(-1)!.content)).toContain("continue");
});
