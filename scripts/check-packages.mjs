// Proves every publishable package (found from pnpm-workspace.yaml) installs from npm-style
// tarballs: packs each one, installs the tarballs into an empty temp project with npm, imports
// every entry point, type-checks a consumer file against the published .d.ts files, holds each
// package's installed size to its budget (budgets.mjs), and installs the CLI globally from the
// checkout as the README says, to run `keel` from elsewhere. registry-check.mjs does the same
// through a registry.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { budgetOf, MB, PROVIDER_SDKS } from "./budgets.mjs";
import { checkGlobalInstall } from "./check-global-install.mjs";
import { installClosure, megabytes, STRAY } from "./package-sizes.mjs";
import { publicPackages, root } from "./workspace.mjs";

const packages = publicPackages().map(({ rel, dir, manifest }) => ({ group: rel, dir, manifest }));

const work = mkdtempSync(join(tmpdir(), "keel-pack-"));
const run = (cmd, args, cwd) =>
  execFileSync(cmd, args, { cwd, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });

try {
  const tarballs = new Map();
  for (const { dir, manifest } of packages) {
    if (!existsSync(join(dir, "dist"))) throw new Error(`${manifest.name}: no dist/ — run pnpm build first`);
    const out = run("pnpm", ["pack", "--pack-destination", work], dir).trim().split("\n").pop();
    tarballs.set(manifest.name, out.startsWith("/") ? out : join(work, out));
  }
  const consumer = join(work, "consumer");
  mkdirSync(consumer);
  writeFileSync(
    join(consumer, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module" }),
  );
  // A consumer of a Node library has Node's types, as any TypeScript project on Node does; one
  // that uses every entry point also installs the optional peers they name (service SDKs).
  const optionalPeers = packages.flatMap(({ manifest }) =>
    Object.entries(manifest.peerDependencies ?? {})
      .filter(([name]) => !name.startsWith("@keel/") && manifest.peerDependenciesMeta?.[name]?.optional)
      .map(([name, range]) => `${name}@${range}`),
  );
  run(
    "npm",
    [
      "install",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      "@types/node@20",
      ...new Set(optionalPeers),
      ...tarballs.values(),
    ],
    consumer,
  );

  const names = packages.map((p) => p.manifest.name);
  const imports = names.map((n, i) => `import * as m${i} from "${n}";`).join("\n");
  writeFileSync(
    join(consumer, "check.mjs"),
    `${imports}\nconst mods = [${names.map((_, i) => `m${i}`).join(", ")}];\n` +
      `for (const [i, m] of mods.entries()) if (Object.keys(m).length === 0) throw new Error("empty module " + ${JSON.stringify(names)}[i]);\nconsole.log("imported " + mods.length + " packages");\n`,
  );
  process.stdout.write(run("node", ["check.mjs"], consumer));
  // The print-mode schema, imported as the CLI README shows.
  writeFileSync(
    join(consumer, "schema.mjs"),
    'import schema from "@keel/cli/print.v1.schema.json" with { type: "json" };\n' +
      'if (schema.$id !== "urn:keel:cli:print:1" || !schema.definitions.StreamLine || !schema.definitions.JsonOutput) throw new Error("@keel/cli/print.v1.schema.json: unexpected document");\n' +
      'console.log("@keel/cli/print.v1.schema.json: " + Object.keys(schema.definitions).length + " definitions");\n',
  );
  process.stdout.write(run("node", ["schema.mjs"], consumer));

  // Type-check a consumer against the published declarations only.
  const typed = packages.filter((p) => existsSync(join(p.dir, "dist/index.d.ts")));
  writeFileSync(
    join(consumer, "consumer.ts"),
    typed
      .map((p, i) => `import * as t${i} from "${p.manifest.name}";\nexport type T${i} = typeof t${i};`)
      .join("\n") +
      '\nimport type { Model, Context } from "@keel/ai";\n' +
      'export const context: Context = { messages: [{ role: "user", content: "hi", timestamp: 0 }] };\n' +
      'export type M = Model["api"];\n' +
      'import { Type, defineExtension, textResult } from "@keel/extension-sdk";\n' +
      'import type { CodingAgentOptions } from "@keel/coding-agent";\n' +
      'export const ext = defineExtension({ id: "consumer", sessionState: { schema: Type.Object({ n: Type.Number() }), default: { n: 0 } },\n' +
      '  tools: (tool) => [tool({ name: "Count", description: "c", parameters: Type.Object({ by: Type.Number() }),\n' +
      '    async execute(args, _ctx, rt) { rt.state.set({ n: rt.state.get().n + args.by }); return textResult("ok"); } })] });\n' +
      'export const options: CodingAgentOptions = { cwd: "/tmp", model: "anthropic/claude-sonnet-4-6", extensions: [ext] };\n',
  );
  const tsconfig = {
    compilerOptions: {
      strict: true,
      module: "NodeNext",
      moduleResolution: "NodeNext",
      target: "ES2022",
      noEmit: true,
      types: ["node"],
      skipLibCheck: false,
      lib: ["ES2023", "DOM"],
    },
    files: ["consumer.ts"],
  };
  writeFileSync(join(consumer, "tsconfig.json"), JSON.stringify(tsconfig));
  const tsc = join(root, "node_modules/typescript/bin/tsc");
  run("node", [tsc, "-p", "tsconfig.json"], consumer);
  console.log(`type-checked a consumer against ${typed.length} packages' published .d.ts`);

  // An extension author's project: the SDK (with the protocol whose types it names), an official
  // extension and the connector SDK, nothing else of Keel's and none of the optional peers.
  const author = join(work, "author");
  mkdirSync(author);
  writeFileSync(
    join(author, "package.json"),
    JSON.stringify({ name: "author", private: true, type: "module" }),
  );
  run(
    "npm",
    [
      "install",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      "@types/node@20",
      tarballs.get("@keel/extension-sdk"),
      tarballs.get("@keel/protocol"),
      tarballs.get("@keel/ext-todo"),
      tarballs.get("@keel/ext-connector"),
    ],
    author,
  );
  const installed = readdirSync(join(author, "node_modules", "@keel"));
  if (installed.join(",") !== "ext-connector,ext-todo,extension-sdk,protocol")
    throw new Error(`the extension author's install brought @keel/${installed.join(", @keel/")}`);
  writeFileSync(
    join(author, "extension.ts"),
    'import { defineExtension, type RunEndEvent, Type, textResult } from "@keel/extension-sdk";\n' +
      'import { todoExtension } from "@keel/ext-todo";\n' +
      'export const both = [todoExtension, defineExtension({ id: "mine", tools: (tool) => [tool({ name: "Echo", description: "e",\n' +
      "  parameters: Type.Object({ text: Type.String() }), async execute(args) { return textResult(args.text); } })] })];\n" +
      "export const end = (e: RunEndEvent) => e.usage.cost.total + e.turns;\n" +
      'import { actionsFor, defineConnector, errorTypeForStatus } from "@keel/ext-connector/sdk";\n' +
      "interface JiraClient { get(path: string, signal: AbortSignal): Promise<unknown> }\n" +
      "const action = actionsFor<JiraClient>();\n" +
      'export const jira = defineConnector<JiraClient>({ id: "jira", label: "Jira", defaultBaseUrl: "https://jira.example",\n' +
      '  auth: { env: "JIRA_TOKEN", tokenName: "API token", help: "Make one." },\n' +
      "  client: async () => ({ get: async (path: string) => path }),\n" +
      "  classifyError: (e) => ({ type: errorTypeForStatus((e as { status: number }).status), message: String(e) }),\n" +
      '  actions: [action({ name: "get_issue", description: "Get one.", effect: "read", sensitivity: "normal",\n' +
      "    parameters: Type.Object({ key: Type.String() }),\n" +
      "    run: (args, { client, attempt, signal }) => attempt(() => client.get(`/issue/${args.key}`, signal)).map((x) => ({ text: String(x) })) })] });\n",
  );
  writeFileSync(join(author, "tsconfig.json"), JSON.stringify({ ...tsconfig, files: ["extension.ts"] }));
  run("node", [tsc, "-p", "tsconfig.json"], author);
  console.log(
    "type-checked an extension and a connector against @keel/extension-sdk, @keel/ext-todo and @keel/ext-connector/sdk installed alone",
  );

  // What each package weighs when installed, against its budget.
  const failures = [];
  console.log("installed size (the package and everything npm installs with it):");
  for (const p of packages) {
    const { name } = p.manifest;
    const budget = { mb: budgetOf(p.manifest) };
    const closure = installClosure(consumer, name);
    const sizeOf = (keep) =>
      [...closure.entries()]
        .filter(([k]) => keep(STRAY.has(k.slice(0, k.lastIndexOf("@")))))
        .reduce((s, [, x]) => s + x.bytes, 0);
    const bytes = sizeOf((stray) => !stray);
    const stray = sizeOf((isStray) => isStray);
    const heavy = [...closure.entries()].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, 3);
    const over = bytes > budget.mb * MB;
    console.log(
      `  ${name.padEnd(22)} ${megabytes(bytes).padStart(6)} MB / ${String(budget.mb).padStart(2)} MB` +
        `${stray > 0 ? ` (+${megabytes(stray)} stray)` : "".padEnd(13)}  ` +
        `${String(closure.size).padStart(3)} packages  largest: ${heavy.map(([n, x]) => `${n} ${megabytes(x.bytes)}`).join(", ")}` +
        (over ? "  OVER BUDGET" : ""),
    );
    if (over) failures.push(`${name} installs ${megabytes(bytes)} MB, over its ${budget.mb} MB budget`);
    const sdks = [...closure.keys()].filter((k) => PROVIDER_SDKS.includes(k.slice(0, k.lastIndexOf("@"))));
    if (sdks.length > 0) failures.push(`${name} installs provider SDKs: ${sdks.join(", ")}`);
  }
  if (failures.length > 0) throw new Error(failures.join("\n"));

  await checkGlobalInstall({ root, work });
  console.log(`package check: all ${packages.length} packages install, import and type-check on their own`);
} catch (e) {
  console.error(e.stdout ?? "", e.stderr ?? "", e.message);
  console.log("package check: FAILED");
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
