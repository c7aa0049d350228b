// Writes the standard files of a workspace package (package.json, tsconfigs, vitest config).
// Used by the repo's own setup and by `pnpm new-extension`.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

export function initPackage({ root, dir, name, description, dependencies = {}, devDependencies = {}, bin }) {
  const abs = join(root, dir);
  mkdirSync(join(abs, "src"), { recursive: true });
  mkdirSync(join(abs, "test"), { recursive: true });
  const up = relative(abs, root) || ".";
  const pkg = {
    name,
    version: "0.1.0",
    description,
    license: "MIT",
    type: "module",
    engines: { node: ">=20.19" },
    main: "./dist/index.js",
    types: "./dist/index.d.ts",
    exports: {
      ".": { types: "./dist/index.d.ts", import: "./dist/index.js" },
      "./package.json": "./package.json",
    },
    files: ["dist", "README.md"],
    ...(bin ? { bin } : {}),
    publishConfig: { access: "public" },
    scripts: {
      build: "tsc -p tsconfig.build.json",
      typecheck: "tsc -p tsconfig.json --noEmit",
      test: "vitest run",
      lint: "biome check src test",
    },
    dependencies,
    devDependencies,
  };
  const write = (file, content) => {
    if (!existsSync(join(abs, file))) writeFileSync(join(abs, file), content);
  };
  write("package.json", JSON.stringify(pkg, null, 2) + "\n");
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
