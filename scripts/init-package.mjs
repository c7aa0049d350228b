// Writes the standard files of a new workspace package (package.json as scripts/manifests.mjs
// requires it, LICENSE, tsconfigs, vitest config) for `pnpm new-extension`.
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

export function initPackage({
  root,
  dir,
  name,
  description,
  keywords = [],
  dependencies = {},
  peerDependencies = {},
  devDependencies = {},
}) {
  const abs = join(root, dir);
  mkdirSync(join(abs, "src"), { recursive: true });
  mkdirSync(join(abs, "test"), { recursive: true });
  const up = relative(abs, root) || ".";
  const rootManifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const repo = rootManifest.repository?.url?.replace(/^git\+/, "").replace(/\.git$/, "");
  const pkg = {
    name,
    version: "0.1.0",
    description,
    license: "MIT",
    keywords: ["keel", ...keywords],
    ...(repo
      ? {
          homepage: `${repo}/tree/main/${dir}#readme`,
          bugs: { url: `${repo}/issues` },
          repository: { type: "git", url: rootManifest.repository.url, directory: dir },
        }
      : {}),
    type: "module",
    engines: rootManifest.engines ?? { node: ">=22.12" },
    main: "./dist/index.js",
    types: "./dist/index.d.ts",
    exports: {
      ".": { types: "./dist/index.d.ts", import: "./dist/index.js", default: "./dist/index.js" },
      "./package.json": "./package.json",
    },
    // Maps point at src/, which is not published.
    files: ["dist", "!dist/**/*.map", "README.md", "CHANGELOG.md"],
    publishConfig: { access: "public" },
    scripts: {
      build: "tsc -p tsconfig.build.json",
      typecheck: "tsc -p tsconfig.json --noEmit",
      test: "vitest run",
      lint: "biome check src test",
    },
    dependencies,
    ...(Object.keys(peerDependencies).length > 0 ? { peerDependencies } : {}),
    devDependencies,
  };
  // "wx": the package is new, so an existing file is a bug to hear about, not one to keep quietly.
  const write = (file, content) => writeFileSync(join(abs, file), content, { flag: "wx" });
  write("package.json", JSON.stringify(pkg, null, 2) + "\n");
  if (existsSync(join(root, "LICENSE"))) copyFileSync(join(root, "LICENSE"), join(abs, "LICENSE"));
  write(
    "tsconfig.json",
    JSON.stringify({ extends: `${up}/tsconfig.base.json`, include: ["src", "test"] }, null, 2) + "\n",
  );
  write(
    "tsconfig.build.json",
    JSON.stringify(
      {
        extends: `${up}/tsconfig.base.json`,
        compilerOptions: { rootDir: "src", outDir: "dist" },
        include: ["src"],
      },
      null,
      2,
    ) + "\n",
  );
  write("vitest.config.ts", `import shared from "${up}/vitest.shared.ts";\n\nexport default shared;\n`);
  return abs;
}
