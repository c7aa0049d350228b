// The files of a new extension: its source and test (shared with the repository's own
// `pnpm new-extension`), and, for a package of its own, the manifest, tsconfig, README and
// .gitignore that make it test, pack, publish and install with `keel install`.

/** An extension id, and the unscoped part of its package name: what `keel` shows and config keys. */
export const EXTENSION_NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
export const MAX_NAME = 40;

/**
 * The build and test tools a new package starts with, as this repository uses them (a test keeps
 * them in step with the root package.json).
 */
export const TOOL_VERSIONS = { typescript: "^5.9.3", vitest: "^5.1.2" } as const;

export interface ExtensionNames {
  /** The extension id: the unscoped package name. */
  id: string;
  /** The npm package name, possibly scoped. */
  pkg: string;
}

function identifiers(id: string) {
  const camel = id.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
  const pascal = camel[0]!.toUpperCase() + camel.slice(1);
  return { binding: `${camel}Extension`, toolName: `${pascal}Note` };
}

/** `src/index.ts` and its test: a typed one-tool extension with journaled session state. */
export function extensionFiles({ id, pkg }: ExtensionNames): Record<string, string> {
  const { binding, toolName } = identifiers(id);
  return {
    "src/index.ts": `// ${pkg}: a Keel extension. Say here in a line or two what it adds and why.
import { defineExtension, textResult, Type } from "@keel/extension-sdk";

export const ${binding} = defineExtension({
  id: "${id}",
  description: "Keeps notes for the session.",
  // Session state lives in the journal: it follows rewinds, branches and forks by itself.
  sessionState: {
    schema: Type.Object({ notes: Type.Array(Type.String()) }),
    default: { notes: [] },
  },
  tools: (tool) => [
    tool({
      name: "${toolName}",
      description: "Remember a short note for the rest of the session.",
      parameters: Type.Object({ note: Type.String({ minLength: 1 }) }),
      // What a call may do: "none" touches nothing outside the session, so it runs unasked.
      // Undeclared tools are asked about in every mode; see the SDK README on declaring tools.
      access: "none",
      async execute(args, _ctx, runtime) {
        runtime.state.update((state) => ({ notes: [...state.notes, args.note] }));
        return textResult(\`Noted (\${runtime.state.get().notes.length} so far).\`);
      },
    }),
  ],
});

export default ${binding};
`,
    [`test/${id}.test.ts`]: `// Runs the extension's tool against an in-memory runtime.
import { listTools } from "@keel/extension-sdk";
import { testRuntime, testToolContext } from "@keel/extension-sdk/testing";
import { describe, expect, it } from "vitest";
import ${binding} from "../src/index.js";

describe("${id}", () => {
  it("keeps each note in session state", async () => {
    const tool = listTools(${binding}).find((t) => t.name === "${toolName}")!;
    const runtime = testRuntime<unknown, { notes: string[] }>(${binding});
    const ctx = testToolContext();
    await tool.execute({ note: "first" }, ctx, runtime);
    const result = await tool.execute({ note: "second" }, ctx, runtime);
    expect(result.content).toEqual([{ type: "text", text: "Noted (2 so far)." }]);
    expect(runtime.state.get().notes).toEqual(["first", "second"]);
  });
});
`,
  };
}

/**
 * A package of its own, outside this repository: the extension files plus a manifest that takes
 * the SDK as a peer (the host provides it; `keel install` links the host's copy) within
 * `^sdkVersion`, builds before it packs, and ships only dist/.
 */
export function packageFiles(names: ExtensionNames, sdkVersion: string): Record<string, string> {
  const { id, pkg } = names;
  const { toolName } = identifiers(id);
  const sdk = `^${sdkVersion}`;
  const manifest = {
    name: pkg,
    version: "0.1.0",
    description: `A Keel extension: ${id}`,
    license: "MIT",
    // npm search keywords:keel-extension finds it.
    keywords: ["keel-extension"],
    type: "module",
    engines: { node: ">=22.12" },
    types: "./dist/index.d.ts",
    exports: { ".": { types: "./dist/index.d.ts", default: "./dist/index.js" } },
    files: ["dist"],
    scripts: {
      build: "tsc -p tsconfig.json",
      test: "vitest run",
      prepack: "npm run build",
    },
    peerDependencies: { "@keel/extension-sdk": sdk },
    devDependencies: {
      "@keel/extension-sdk": sdk,
      typescript: TOOL_VERSIONS.typescript,
      vitest: TOOL_VERSIONS.vitest,
    },
  };
  const tsconfig = {
    compilerOptions: {
      target: "ES2023",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      strict: true,
      declaration: true,
      skipLibCheck: true,
      rootDir: "src",
      outDir: "dist",
    },
    include: ["src"],
  };
  return {
    ...extensionFiles(names),
    "package.json": `${JSON.stringify(manifest, null, 2)}\n`,
    "tsconfig.json": `${JSON.stringify(tsconfig, null, 2)}\n`,
    ".gitignore": "node_modules/\ndist/\n*.tgz\n",
    "README.md": `# ${pkg}

A Keel extension. Say what it adds: the tools the model sees (\`${toolName}\`), hooks, commands,
and its configuration keys with an example.

## Install

\`\`\`sh
keel install ${pkg}
\`\`\`

It loads when the next session starts; \`keel update ${pkg}\` upgrades it and
\`keel uninstall ${pkg}\` removes it.

## Develop

\`\`\`sh
npm install
npm test
npm pack                      # builds dist/ and writes ${tarballName(pkg)}
keel install ./${tarballName(pkg)}   # try the packed package in keel
npm publish                   # then anyone can: keel install ${pkg}
\`\`\`

\`@keel/extension-sdk\` is a peer dependency: the Keel that loads the extension provides it, so
the extension runs against the SDK its host was built with. The contract is in that package's
README.
`,
  };
}

/** The file `npm pack` writes for a package at 0.1.0. */
export function tarballName(pkg: string): string {
  return `${pkg.replace(/^@/, "").replace("/", "-")}-0.1.0.tgz`;
}
