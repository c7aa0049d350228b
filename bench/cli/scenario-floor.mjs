// The 10-turn scenario's floor: what a Node program pays to do the same work with none of Keel.
// It sends the scenario's ten streamed requests to the same mock server, runs its three shell
// commands in bubblewrap, and loads the bash grammar Keel judges commands with (web-tree-sitter,
// kept on V8's baseline compiler as Keel keeps it) for three parses. bench/cli/run.mjs runs it
// under GNU time beside keel: Keel's own memory is its peak RSS less this one.
//   node scenario-floor.mjs <repo dir> <a package.json that resolves web-tree-sitter> <mock server URL>
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { createRequire } from "node:module";
import { setFlagsFromString } from "node:v8";

const [repo, resolveFrom, base] = process.argv.slice(2);
if (!repo || !resolveFrom || !base)
  throw new Error("usage: node scenario-floor.mjs <repo> <package.json> <mock server URL>");

function post(body) {
  return new Promise((done, fail) => {
    const headers = {
      "content-type": "application/json",
      "x-api-key": "bench",
      "anthropic-version": "2023-06-01",
    };
    const req = request(new URL(`${base}/v1/messages`), { method: "POST", headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (text += d));
      res.on("end", () => done(text));
    });
    req.on("error", fail);
    req.end(JSON.stringify(body));
  });
}

function sandboxed(command) {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--bind", repo, repo];
  args.push("--chdir", repo, "--unshare-net", "--die-with-parent", "bash", "-c", command);
  return new Promise((done) => {
    const child = spawn("bwrap", args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.on("close", () => done(out));
  });
}

const require = createRequire(resolveFrom);
let parser;
async function parse(command) {
  if (!parser) {
    const { Language, Parser } = await import(require.resolve("web-tree-sitter"));
    for (const flag of ["--liftoff-only", "--no-wasm-tier-up", "--no-wasm-dynamic-tiering"])
      setFlagsFromString(flag);
    await Parser.init();
    const language = await Language.load(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"));
    parser = new Parser();
    parser.setLanguage(language);
  }
  parser.parse(command).delete();
}

// The scenario's turns, by index: the file work and the three commands (run.mjs's CODING).
const commands = { 3: "cat a.txt", 7: "git status --short", 8: "wc -l a.txt b.txt" };
const messages = [{ role: "user", content: "fix the answer" }];
for (let turn = 0; turn < 10; turn++) {
  const reply = await post({ model: "claude-sonnet-4-6", max_tokens: 1024, stream: true, messages });
  messages.push({ role: "assistant", content: reply.slice(0, 4000) }, { role: "user", content: "ok" });
  if (turn === 0 || turn === 5) readFileSync(`${repo}/a.txt`, "utf8");
  if (turn === 2) writeFileSync(`${repo}/a.txt`, readFileSync(`${repo}/a.txt`, "utf8").replace("41", "42"));
  if (turn === 4) writeFileSync(`${repo}/b.txt`, "x\n");
  if (commands[turn]) {
    await parse(commands[turn]);
    await sandboxed(commands[turn]);
  }
}
