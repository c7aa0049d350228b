// The first requests of a session with the todo extension on, as they reach the wire: their bytes
// and where the history cache breakpoint sits, and whether the next request still holds that
// block (so history is read back from the cache) while the one-request reminder rides along.
// After `pnpm build`: node bench/cache/run.mjs [--root <checkout>] [--turns 6]
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : process.argv[at + 1];
};
const root = resolve(arg("--root", new URL("../..", import.meta.url).pathname));
const turns = Number(arg("--turns", 6));
const load = (pkg) => import(pathToFileURL(join(root, pkg, "dist/index.js")).href);
const { createCodingAgent } = await load("packages/coding-agent");
const { todoExtension } = await load("packages/extensions/todo");
const { startMockServer, fauxModel } = await load("packages/testing");

const todos = (n) => [
  { id: "1", content: `Step ${n}`, status: "in_progress" },
  { id: "2", content: "Wrap up", status: "pending" },
];
const server = await startMockServer({
  turns: [],
  fallback: (r) =>
    r.index < turns - 1
      ? { toolCalls: [{ name: "UpdateTodos", arguments: { todos: todos(r.index) } }] }
      : { text: "done" },
});
const dir = mkdtempSync(join(tmpdir(), "keel-bench-cache-"));
execFileSync("mkdir", ["-p", join(dir, "repo"), join(dir, "home")]);
try {
  const created = await createCodingAgent({
    cwd: join(dir, "repo"),
    home: join(dir, "home"),
    model: fauxModel("anthropic-messages", { baseUrl: server.anthropicBaseUrl }),
    streamOptions: { apiKey: "bench" },
    permissionMode: "bypassPermissions",
    extensions: [todoExtension],
    discoverExtensions: false,
  });
  if (created.isErr()) throw new Error(created.error.message);
  await created.value.prompt("Plan and work through two steps.");
  await created.value.close();

  const text = (b) => (typeof b?.text === "string" ? b.text : (b?.type ?? ""));
  let readable = 0;
  console.log(`root: ${root}`);
  server.requests.forEach((r, n) => {
    const messages = JSON.parse(r.raw).messages;
    let mark;
    messages.forEach((m, i) => {
      (Array.isArray(m.content) ? m.content : []).forEach((b, j) => {
        if (b.cache_control) mark = { i, j, block: b };
      });
    });
    const onReminder = mark && text(mark.block).startsWith("<system-reminder>");
    const next = server.requests[n + 1];
    let kept = "-";
    if (next && mark) {
      const block = JSON.parse(next.raw).messages[mark.i]?.content?.[mark.j];
      const strip = (v) => JSON.stringify(v, (k, x) => (k === "cache_control" ? undefined : x));
      kept = block && strip(block) === strip(mark.block) ? "yes" : "no";
      if (kept === "yes") readable++;
    }
    console.log(
      `request ${n + 1}: ${r.raw.length} bytes, ${messages.length} messages; history breakpoint on message ${mark?.i} block ${mark?.j} (${mark?.block.type}${onReminder ? ", the reminder" : ""}); next request holds it: ${kept}`,
    );
  });
  console.log(`breakpoints the next request can read back: ${readable} of ${server.requests.length - 1}`);
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
