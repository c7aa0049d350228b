// The 10-turn scenario's floor: what a Node program pays to do the same work with none of Keel.
// For each of the scenario's turns (run.mjs's CODING, given as JSON) it sends one streamed request
// to the same mock server, then does that turn's tool call itself: Read, LS, Edit and Write on the
// files, Bash through the bash grammar Keel judges commands with (web-tree-sitter, kept on V8's
// baseline compiler as Keel keeps it) and bubblewrap. bench/cli/run.mjs runs it under GNU time
// beside keel: Keel's own memory is its peak RSS less this one.
//   node scenario-floor.mjs <repo dir> <a package.json that resolves web-tree-sitter> <mock server URL> <turns JSON>
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { createRequire } from "node:module";
import { setFlagsFromString } from "node:v8";

const [repo, resolveFrom, base, turnsJson] = process.argv.slice(2);
if (!repo || !resolveFrom || !base || !turnsJson)
  throw new Error("usage: node scenario-floor.mjs <repo> <package.json> <mock server URL> <turns JSON>");

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

/** What Keel's tool of that name does, without Keel. */
async function act({ name, arguments: args }) {
  const path = (p) => `${repo}/${p}`;
  if (name === "Read") readFileSync(path(args.path), "utf8");
  else if (name === "LS") readdirSync(path(args.path));
  else if (name === "Write") writeFileSync(path(args.path), args.content);
  else if (name === "Edit")
    writeFileSync(
      path(args.path),
      readFileSync(path(args.path), "utf8").replace(args.old_string, args.new_string),
    );
  else if (name === "Bash") {
    await parse(args.command);
    await sandboxed(args.command);
  } else throw new Error(`scenario-floor: no stand-in for the ${name} tool`);
}

const messages = [{ role: "user", content: "fix the answer" }];
for (const turn of JSON.parse(turnsJson)) {
  const reply = await post({ model: "claude-sonnet-4-6", max_tokens: 1024, stream: true, messages });
  messages.push({ role: "assistant", content: reply.slice(0, 4000) }, { role: "user", content: "ok" });
  for (const call of turn.toolCalls ?? []) await act(call);
}
