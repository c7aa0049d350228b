// Proves every publishable package installs on its own from npm-style tarballs: packs each one,
// installs the tarballs into an empty temp project with npm, imports every entry point and
// type-checks a consumer file against the published .d.ts files.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const groups = ["packages", "packages/extensions", "apps"];
const packages = groups
  .flatMap((g) => (existsSync(join(root, g)) ? readdirSync(join(root, g)).map((d) => join(root, g, d)) : []))
  .filter((dir) => existsSync(join(dir, "package.json")))
  .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) }))
  .filter(({ manifest }) => !manifest.private);

const work = mkdtempSync(join(tmpdir(), "keel-pack-"));
const run = (cmd, args, cwd) =>
  execFileSync(cmd, args, { cwd, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });

try {
  const tarballs = [];
  for (const { dir, manifest } of packages) {
    if (!existsSync(join(dir, "dist"))) throw new Error(`${manifest.name}: no dist/ — run pnpm build first`);
    const out = run("pnpm", ["pack", "--pack-destination", work], dir).trim().split("\n").pop();
    tarballs.push(out.startsWith("/") ? out : join(work, out));
  }
  const consumer = join(work, "consumer");
  run("mkdir", ["-p", consumer], work);
  writeFileSync(
    join(consumer, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module" }),
  );
  // A consumer of a Node library has Node's types, as any TypeScript project on Node does.
  run(
    "npm",
    ["install", "--no-audit", "--no-fund", "--loglevel=error", "@types/node@20", ...tarballs],
    consumer,
  );

  const names = packages.map((p) => p.manifest.name);
  const imports = names.map((n, i) => `import * as m${i} from "${n}";`).join("\n");
  writeFileSync(
    join(consumer, "check.mjs"),
    `${imports}\nconst mods = [${names.map((_, i) => `m${i}`).join(", ")}];\n` +
      `for (const [i, m] of mods.entries()) if (Object.keys(m).length === 0 && ${JSON.stringify(names)}[i] !== "@keel/cli") throw new Error("empty module " + i);\nconsole.log("imported " + mods.length + " packages");\n`,
  );
  process.stdout.write(run("node", ["check.mjs"], consumer));

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
  writeFileSync(
    join(consumer, "tsconfig.json"),
    JSON.stringify({
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
    }),
  );
  const tsc = join(root, "node_modules/typescript/bin/tsc");
  run("node", [tsc, "-p", "tsconfig.json"], consumer);
  console.log(`type-checked a consumer against ${typed.length} packages' published .d.ts`);
  console.log(`package check: all ${packages.length} packages install, import and type-check on their own`);
} catch (e) {
  console.error(e.stdout ?? "", e.stderr ?? "", e.message);
  console.log("package check: FAILED");
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
