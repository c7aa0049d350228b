// The install a contributor does from a checkout, as the README says it: its pack-and-install line
// run verbatim by bash (npm's global prefix and the temp folder the work folder's), then
// `keel` run from a directory that has nothing of Keel's, against the mock model server: the
// version, and a print-mode run whose Bash call (the shell parser's WASM grammar) and WebSearch
// call (the bundled @tavily/core, against a local fake of Tavily) both use what the install shipped.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

function keel(bin, args, { cwd, env }) {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** A local stand-in for Tavily's search endpoint that records what it was asked. */
async function fakeTavily() {
  const asked = [];
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      asked.push(JSON.parse(raw));
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({
          query: "keel",
          images: [],
          results: [
            {
              title: "Keel ships",
              url: "https://keel.example/news",
              content: "Keel 1.0 is out.",
              score: 0.9,
            },
          ],
          response_time: 0.1,
        }),
      );
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${server.address().port}`, asked, close: () => server.close() };
}

/**
 * The commands of the README's "install from a checkout" block, in order: the build (already done
 * by the time the check runs), the pack-and-install line, and `keel --version`.
 */
function readmeInstall(root) {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const marker = readme.indexOf("<!-- install-from-checkout");
  const block = marker < 0 ? undefined : /```sh\n([\s\S]*?)```/.exec(readme.slice(marker));
  if (!block) throw new Error("README.md has no install-from-checkout block");
  const lines = block[1]
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const [build, install, version] = lines;
  if (
    lines.length !== 3 ||
    build !== "pnpm install && pnpm build" ||
    !install?.includes("mktemp -d") ||
    !/pnpm (--filter \S+ )*--filter @keel\/cli (--filter \S+ )*pack /.test(install) ||
    !install.includes("npm i -g ") ||
    version !== "keel --version"
  )
    throw new Error(
      `README.md's install-from-checkout block is not the one this check runs:\n${lines.join("\n")}`,
    );
  return install;
}

export async function checkGlobalInstall({ root, work }) {
  // The README's line as written; npm's global prefix (npm_config_prefix) and the folder mktemp
  // makes are temporary ones, as a user's would be their own.
  const prefix = join(work, "global");
  execFileSync("bash", ["-c", readmeInstall(root)], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, npm_config_prefix: prefix, TMPDIR: work, npm_config_loglevel: "error" },
  });
  const bin = join(prefix, "bin", "keel");
  const modules = join(prefix, "lib", "node_modules");
  for (const absent of ["@keel/coding-agent", "@keel/ai", "@tavily/core", "tree-sitter-bash", "ink"])
    if (existsSync(join(modules, "@keel/cli/node_modules", absent)) || existsSync(join(modules, absent)))
      throw new Error(`npm i -g @keel/cli installed ${absent}, which its bundles carry`);

  const elsewhere = join(work, "elsewhere");
  const home = join(work, "keel-home");
  mkdirSync(elsewhere);
  mkdirSync(home);
  const { version } = JSON.parse(readFileSync(join(root, "apps/cli/package.json"), "utf8"));
  const env = { PATH: process.env.PATH, HOME: home, KEEL_HOME: home, NO_PROXY: "127.0.0.1,localhost" };
  const v = await keel(bin, ["--version"], { cwd: elsewhere, env });
  if (v.code !== 0 || v.stdout !== `keel ${version}\n`)
    throw new Error(`keel --version from a global install: ${JSON.stringify(v)}`);

  const { startMockServer } = await import(pathToFileURL(join(root, "packages/testing/dist/index.js")).href);
  const tavily = await fakeTavily();
  const server = await startMockServer({
    turns: [
      { toolCalls: [{ name: "Bash", arguments: { command: "echo shell-parsed" } }] },
      { toolCalls: [{ name: "WebSearch", arguments: { query: "keel" } }] },
      { text: "all done" },
    ],
  });
  try {
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({
        permissions: { allow: ["Bash(echo:*)"] },
        extensions: {
          "web-search": { config: { search: { endpoint: tavily.url, apiKeyEnv: "KEEL_CHECK_TAVILY" } } },
          // The MCP client (and its SDK) load on demand from the bundle the CLI ships.
          mcp: {
            config: {
              servers: {
                notes: {
                  command: process.execPath,
                  args: [join(root, "apps/cli/test/mcp-fixtures/marker-server.mjs")],
                  env: { RESOURCES: "1" },
                },
              },
            },
          },
        },
      }),
    );
    const listed = await keel(bin, ["mcp", "list"], { cwd: elsewhere, env });
    if (
      listed.code !== 0 ||
      !listed.stdout.includes("notes (user, stdio:") ||
      !listed.stdout.includes("connected, 1 tools")
    )
      throw new Error(`keel mcp list from a global install: ${JSON.stringify(listed)}`);
    const r = await keel(
      bin,
      ["-p", "go, see @notes:notes://team/runbook", "--model", "anthropic/claude-sonnet-4-6", "--no-session"],
      {
        cwd: elsewhere,
        env: {
          ...env,
          ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
          ANTHROPIC_API_KEY: "test",
          KEEL_CHECK_TAVILY: "tvly-check",
        },
      },
    );
    const sent = server.requests.map((q) => q.raw).join("\n");
    const results = server.requests
      .flatMap((q) => q.body.messages)
      .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .filter((b) => b.type === "tool_result");
    const ran = results.some((b) => !b.is_error && JSON.stringify(b.content).includes("shell-parsed"));
    const problems = [
      r.code !== 0 && `exit ${r.code}`,
      r.stdout !== "all done\n" && `stdout ${JSON.stringify(r.stdout)}`,
      !ran && "the Bash result did not reach the model",
      !sent.includes("Restart with make bounce.") && "the MCP resource mentioned was not attached",
      tavily.asked[0]?.query !== "keel" && "the search did not reach the Tavily endpoint",
      !sent.includes("Keel ships") &&
        `the search result did not reach the model: ${JSON.stringify(results.at(-1))}`,
    ].filter(Boolean);
    if (problems.length > 0)
      throw new Error(`keel -p from a global install: ${problems.join("; ")}\nstderr: ${r.stderr}`);
  } finally {
    await server.close();
    tavily.close();
  }
  console.log(
    "global install: keel --version, keel mcp list and keel -p (Bash, WebSearch, an @server:uri resource) work from another directory",
  );
}
