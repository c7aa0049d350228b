// The release as its users meet it, through a real npm registry: Verdaccio on 127.0.0.1
// (scripts/registry.mjs) receives what `pnpm release` publishes, then from clean folders whose npm
// knows only that registry: `npm i -g @keel/cli` runs `keel --version` and a print-mode run
// against the mock model server; `npm i` of the kernel with one provider SDK runs
// @keel/coding-agent's README script; every other package installs alone and imports; `npm create
// @keel/extension` makes a package that tests, publishes, installs with `keel install`, loads on
// the next start and moves with `keel update`. Prints each install's size against its budget.
// Needs `pnpm build` first; Verdaccio is ended however the check ends.
import { execFileSync, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { budgetOf, EMBED_BUDGETS, MB, PROVIDER_SDKS } from "./budgets.mjs";
import { installClosure, megabytes, STRAY } from "./package-sizes.mjs";
import { startRegistry } from "./registry.mjs";
import { publicPackages, root } from "./workspace.mjs";

const started = Date.now();
const seconds = (since) => `${((Date.now() - since) / 1000).toFixed(1)} s`;
const packages = publicPackages();
const versionOf = (name) => packages.find((p) => p.manifest.name === name).manifest.version;

function run(cmd, args, { cwd, env }) {
  try {
    return execFileSync(cmd, args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (e) {
    throw new Error(`${cmd} ${args.join(" ")} (in ${cwd}) failed:\n${e.stdout ?? ""}${e.stderr ?? ""}`);
  }
}

function spawnCollect(cmd, args, { cwd, env }) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The fenced block after `marker` in a README: its lines, or its whole text. */
function readmeBlock(file, marker, lang) {
  const text = readFileSync(join(root, file), "utf8");
  const at = text.indexOf(marker);
  const block = at < 0 ? undefined : new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(text.slice(at));
  if (!block) throw new Error(`${file} has no \`\`\`${lang} block after ${marker}`);
  return block[1];
}

/** Bytes an install puts on disk for `names` under `project` (shared packages once), STRAY apart. */
function installedSize(project, names) {
  const all = new Map();
  for (const name of names) for (const [k, v] of installClosure(project, name)) all.set(k, v);
  let bytes = 0;
  let stray = 0;
  for (const [key, { bytes: b }] of all)
    if (STRAY.has(key.slice(0, key.lastIndexOf("@")))) stray += b;
    else bytes += b;
  const sdks = [...all.keys()].filter((k) => PROVIDER_SDKS.includes(k.slice(0, k.lastIndexOf("@"))));
  return { bytes, stray, count: all.size, sdks };
}

const work = mkdtempSync(join(tmpdir(), "keel-registry-"));
let registry;
let stopping;
const stop = () => {
  stopping ??= (async () => {
    await registry?.stop();
    rmSync(work, { recursive: true, force: true });
  })();
  return stopping;
};
for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => stop().then(() => process.exit(130)));

const sizes = [];
const failures = [];
try {
  for (const { rel, manifest } of packages)
    if (!existsSync(join(root, rel, "dist")))
      throw new Error(`${manifest.name}: no dist/ — run pnpm build first`);
  const { startMockServer } = await import(pathToFileURL(join(root, "packages/testing/dist/index.js")).href);
  // The npm cache stays the machine's: tarballs are found there by their hash, whichever
  // registry named them, so a run downloads only what the machine never had.
  const cache = execFileSync("npm", ["config", "get", "cache"], { encoding: "utf8" }).trim();

  let t = Date.now();
  registry = await startRegistry(join(work, "registry"));
  console.log(`verdaccio on ${registry.url} (other packages from ${registry.upstream}) in ${seconds(t)}`);

  // A user's machine: a home of its own and an npm that knows only this registry.
  const userEnv = (home, extra = {}) => ({
    PATH: process.env.PATH,
    HOME: home,
    npm_config_userconfig: registry.npmrc,
    npm_config_cache: cache,
    npm_config_update_notifier: "false",
    npm_config_fund: "false",
    npm_config_audit: "false",
    npm_config_loglevel: "error",
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
    ...extra,
  });
  const folder = (name) => {
    const dir = join(work, name);
    mkdirSync(join(dir, "home"), { recursive: true });
    return { dir, home: join(dir, "home") };
  };

  t = Date.now();
  const releaser = folder("release");
  run(
    process.execPath,
    [join(root, "scripts/release.mjs"), "--registry", registry.url, "--no-git-tag", "--skip-build"],
    {
      cwd: root,
      env: { ...process.env, npm_config_userconfig: registry.npmrc, HOME: releaser.home },
    },
  );
  for (const { manifest } of packages) {
    const seen = run("npm", ["view", `${manifest.name}@${manifest.version}`, "version"], {
      cwd: releaser.dir,
      env: userEnv(releaser.home),
    }).trim();
    if (seen !== manifest.version)
      throw new Error(`${manifest.name}@${manifest.version} is not on the registry`);
  }
  console.log(
    `pnpm release --registry ${registry.url}: ${packages.length} packages published in ${seconds(t)}`,
  );

  // npm i -g @keel/cli, then keel from elsewhere.
  t = Date.now();
  const user = folder("user");
  const prefix = join(user.dir, "global");
  const keelHome = join(user.dir, "keel-home");
  mkdirSync(keelHome);
  const keelEnv = (extra = {}) =>
    userEnv(user.home, { npm_config_prefix: prefix, KEEL_HOME: keelHome, ...extra });
  // The README's daily-use lines, run as written, with the prefix's bin on the PATH.
  const daily = readmeBlock("README.md", "<!-- install-for-daily-use", "sh").trim().split("\n");
  if (daily.join("\n") !== "npm i -g @keel/cli\nkeel --version")
    throw new Error(
      `README.md's install-for-daily-use block is not the one this check runs:\n${daily.join("\n")}`,
    );
  const onPath = keelEnv({ PATH: `${join(prefix, "bin")}:${process.env.PATH}` });
  run("bash", ["-c", daily[0]], { cwd: user.dir, env: onPath });
  const keel = join(prefix, "bin", "keel");
  const version = run("bash", ["-c", daily[1]], { cwd: user.dir, env: onPath });
  if (version !== `keel ${versionOf("@keel/cli")}\n`)
    throw new Error(`keel --version: ${JSON.stringify(version)}`);
  const cliSize = installedSize(join(prefix, "lib"), ["@keel/cli"]);
  sizes.push({ what: "npm i -g @keel/cli", budget: budgetOf({ name: "@keel/cli" }), ...cliSize });
  const mock = await startMockServer({ turns: [{ text: "hello from the registry" }] });
  try {
    const printed = await spawnCollect(
      keel,
      ["-p", "say hello", "--model", "anthropic/claude-sonnet-4-6", "--no-session"],
      {
        cwd: user.dir,
        env: keelEnv({ ANTHROPIC_BASE_URL: mock.anthropicBaseUrl, ANTHROPIC_API_KEY: "test" }),
      },
    );
    if (printed.code !== 0 || printed.stdout !== "hello from the registry\n")
      throw new Error(`keel -p from the registry install: ${JSON.stringify(printed)}`);
  } finally {
    await mock.close();
  }
  console.log(
    `npm i -g @keel/cli: keel --version and keel -p against the mock model server, in ${seconds(t)}`,
  );

  // The kernel embedded, as @keel/coding-agent's README says.
  t = Date.now();
  const embed = folder("embed");
  const install = readmeBlock(
    "packages/coding-agent/README.md",
    "<!-- registry-check: install -->",
    "sh",
  ).trim();
  if (!/^npm i( @?[\w./-]+)+$/.test(install))
    throw new Error(`the embedding install line is not one npm i: ${install}`);
  writeFileSync(
    join(embed.dir, "package.json"),
    JSON.stringify({ name: "embed", private: true, type: "module" }),
  );
  run("npm", install.split(" ").slice(1), { cwd: embed.dir, env: userEnv(embed.home) });
  writeFileSync(
    join(embed.dir, "agent.mjs"),
    readmeBlock("packages/coding-agent/README.md", "<!-- registry-check: script -->", "ts"),
  );
  const project = join(embed.dir, "project");
  mkdirSync(project);
  const embedMock = await startMockServer({ turns: [{ text: "All tests pass." }] });
  try {
    const ran = await spawnCollect(process.execPath, ["../agent.mjs"], {
      cwd: project,
      env: userEnv(embed.home, {
        KEEL_HOME: join(embed.dir, "keel-home"),
        ANTHROPIC_BASE_URL: embedMock.anthropicBaseUrl,
        ANTHROPIC_API_KEY: "test",
      }),
    });
    if (
      ran.code !== 0 ||
      !ran.stdout.includes("All tests pass.") ||
      !ran.stdout.includes("stop after 1 turns")
    )
      throw new Error(`the coding-agent README's script: ${JSON.stringify(ran)}`);
  } finally {
    await embedMock.close();
  }
  // Its size with each provider SDK: the README's line, and the same with the other SDK instead.
  const readmeSdk = PROVIDER_SDKS.find((sdk) => install.split(" ").includes(sdk));
  if (!readmeSdk) throw new Error(`the embedding install line names no provider SDK: ${install}`);
  for (const sdk of PROVIDER_SDKS) {
    const line = install.replace(readmeSdk, sdk);
    let dir = embed.dir;
    if (sdk !== readmeSdk) {
      dir = folder(`embed-${sdk.replace("/", "-")}`).dir;
      writeFileSync(
        join(dir, "package.json"),
        JSON.stringify({ name: "embed", private: true, type: "module" }),
      );
      run("npm", line.split(" ").slice(1), { cwd: dir, env: userEnv(join(dir, "home")) });
    }
    const size = installedSize(dir, line.split(" ").slice(2));
    const others = size.sdks.filter((k) => !k.startsWith(`${sdk}@`));
    if (others.length > 0) failures.push(`${line} also installs ${others.join(", ")}`);
    sizes.push({ what: line, budget: EMBED_BUDGETS[sdk], ...size, sdksAllowed: true });
  }
  console.log(`${install}: the README's script ran against the mock model server, in ${seconds(t)}`);

  // Every other package alone: it installs and every entry point imports.
  t = Date.now();
  const alone = packages.filter(({ manifest: m }) => m.name !== "@keel/cli" && !m.bin);
  for (const { manifest } of alone) {
    const one = folder(`alone-${manifest.name.replace("/", "-")}`);
    writeFileSync(
      join(one.dir, "package.json"),
      JSON.stringify({ name: "alone", private: true, type: "module" }),
    );
    run("npm", ["i", manifest.name], { cwd: one.dir, env: userEnv(one.home) });
    const entries = Object.keys(manifest.exports ?? { ".": {} })
      .filter((k) => k !== "./package.json" && !k.endsWith(".json"))
      .map((k) => (k === "." ? manifest.name : `${manifest.name}/${k.slice(2)}`));
    writeFileSync(
      join(one.dir, "check.mjs"),
      `for (const e of ${JSON.stringify(entries)}) { const m = await import(e); if (Object.keys(m).length === 0) throw new Error("empty module " + e); }\n`,
    );
    sizes.push({
      what: `npm i ${manifest.name}`,
      budget: budgetOf(manifest),
      ...installedSize(one.dir, [manifest.name]),
    });
    // An entry for tests (`@keel/coding-agent/testing`) needs the optional peers a test suite
    // installs next to the package; they come after the size is taken, as a user's tests add them.
    const optional = Object.entries(manifest.peerDependenciesMeta ?? {})
      .filter(([name, meta]) => meta.optional && name.startsWith("@keel/"))
      .map(([name]) => name);
    if (optional.length > 0) run("npm", ["i", ...optional], { cwd: one.dir, env: userEnv(one.home) });
    run(process.execPath, ["check.mjs"], { cwd: one.dir, env: userEnv(one.home) });
  }
  console.log(`${alone.length} packages installed alone and imported (every entry point), in ${seconds(t)}`);

  // A third-party extension: npm create, test, publish, keel install, load, keel update.
  t = Date.now();
  const author = folder("author");
  // npm create installs the create package under <cache>/_npx and reuses an install of the same
  // version from an earlier run (every build here is 0.1.0), so it gets a cache of its own.
  run("npm", ["create", "@keel/extension", "keel-hello"], {
    cwd: author.dir,
    env: userEnv(author.home, { npm_config_yes: "true", npm_config_cache: join(author.dir, "npm-cache") }),
  });
  const ext = join(author.dir, "keel-hello");
  run("npm", ["install"], { cwd: ext, env: userEnv(author.home) });
  const tested = run("npm", ["test"], { cwd: ext, env: userEnv(author.home, { CI: "1", NO_COLOR: "1" }) });
  if (!/Tests\s+1 passed/.test(tested)) throw new Error(`the new extension's test:\n${tested}`);
  run("npm", ["publish"], { cwd: ext, env: userEnv(author.home) });
  const installed = await spawnCollect(keel, ["install", "keel-hello"], { cwd: user.dir, env: keelEnv() });
  if (installed.code !== 0 || !installed.stdout.includes("installed keel-hello@0.1.0"))
    throw new Error(`keel install keel-hello: ${JSON.stringify(installed)}`);
  const link = join(keelHome, "packages/node_modules/@keel/extension-sdk");
  const cliSdk = join(prefix, "lib/node_modules/@keel/cli/node_modules/@keel/extension-sdk");
  if (realpathSync(link) !== realpathSync(cliSdk))
    throw new Error(`the installed extension's SDK is ${realpathSync(link)}, not the CLI's ${cliSdk}`);
  const toolMock = await startMockServer({
    turns: [
      { toolCalls: [{ name: "KeelHelloNote", arguments: { note: "from the registry" } }] },
      { text: "noted" },
    ],
  });
  try {
    const used = await spawnCollect(
      keel,
      ["-p", "note it", "--model", "anthropic/claude-sonnet-4-6", "--no-session"],
      {
        cwd: user.dir,
        env: keelEnv({ ANTHROPIC_BASE_URL: toolMock.anthropicBaseUrl, ANTHROPIC_API_KEY: "test" }),
      },
    );
    const sent = toolMock.requests.map((q) => q.raw).join("\n");
    if (used.code !== 0 || used.stdout !== "noted\n" || !sent.includes("Noted (1 so far)."))
      throw new Error(`keel -p with keel-hello installed: ${JSON.stringify(used)}`);
  } finally {
    await toolMock.close();
  }
  run("npm", ["version", "minor", "--no-git-tag-version"], { cwd: ext, env: userEnv(author.home) });
  run("npm", ["publish"], { cwd: ext, env: userEnv(author.home) });
  const updated = await spawnCollect(keel, ["update"], { cwd: user.dir, env: keelEnv() });
  const listed = await spawnCollect(keel, ["list"], { cwd: user.dir, env: keelEnv() });
  if (
    !updated.stdout.includes("updated keel-hello 0.1.0 -> 0.2.0") ||
    !listed.stdout.includes("keel-hello@0.2.0")
  )
    throw new Error(`keel update: ${JSON.stringify(updated)}; keel list: ${JSON.stringify(listed)}`);
  console.log(
    `npm create @keel/extension keel-hello: tested, published, keel install, its tool ran in keel -p, keel update to 0.2.0, in ${seconds(t)}`,
  );

  console.log("installed size (each install's packages, shared ones once) against the budgets:");
  for (const s of sizes) {
    const over = s.bytes > s.budget * MB;
    console.log(
      `  ${s.what.padEnd(64)} ${megabytes(s.bytes).padStart(5)} MB / ${String(s.budget).padStart(2)} MB` +
        `${s.stray > 0 ? ` (+${megabytes(s.stray)} stray)` : ""}  ${s.count} packages${over ? "  OVER BUDGET" : ""}`,
    );
    if (over) failures.push(`${s.what} installs ${megabytes(s.bytes)} MB, over its ${s.budget} MB budget`);
    if (!s.sdksAllowed && s.sdks.length > 0)
      failures.push(`${s.what} installs provider SDKs: ${s.sdks.join(", ")}`);
  }
  if (failures.length > 0) throw new Error(failures.join("\n"));
  console.log(`registry check: ok in ${seconds(started)}`);
} catch (e) {
  console.error(e.message);
  if (registry) console.error(`verdaccio's log:\n${registry.log().slice(-4000)}`);
  console.log(`registry check: FAILED after ${seconds(started)}`);
  process.exitCode = 1;
} finally {
  await stop();
}
