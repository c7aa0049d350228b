// Installed-size budgets: what `npm i <package>` may put on disk (the package and all it installs,
// hardlinked files once, package-sizes.mjs's STRAY shown apart). check-packages.mjs holds every
// package to its budget from tarballs; registry-check.mjs the same from a registry, plus the
// installs a user makes of several packages at once.
import { isExtension } from "./workspace.mjs";

export const MB = 1e6;

/** Provider SDKs: optional peers of @keel/ai; no package installs one unasked. */
export const PROVIDER_SDKS = ["@anthropic-ai/sdk", "openai"];

/**
 * A package's budget in MB, and whether its install must stay free of provider SDKs (all must:
 * the SDKs are optional peers, installed by whoever embeds the kernel).
 * - every extension (keel-extension keyword, so a new one is covered unasked), the SDK and the
 *   create package: 5 MB. What they carry is TypeBox (~2 MB of its own build formats), neverthrow
 *   and their own few dependencies. ext-mcp ships the MCP SDK's client half bundled (~0.7 MB) and
 *   installs none of the SDK's server dependencies.
 * - ai and agent: 6 MB: TypeBox, ajv (tool-argument validation) and the model catalog, without
 *   the provider SDK its user adds.
 * - session: 5 MB. protocol: 4 MB, TypeBox (~2.8 MB) and its schemas; testing: 4 MB, the same (it
 *   names the protocol's types in its declarations and has no other dependency).
 * - coding-agent: 10 MB, the kernel without a provider SDK (EMBED_BUDGETS: with one):
 *   the packages above and the shell parser's WASM runtime and grammar (~1.7 MB, copied into dist).
 * - the CLI: 24 MB (20.8 measured). Its bundles (~19 MB with their source maps) inline the
 *   kernel, both provider SDKs and the official extensions (one bundle each); it installs besides
 *   only the SDK it shares with installed extensions (with TypeBox, ~2 MB). TypeScript extensions
 *   need no compiler: Node strips their types (tsx and esbuild's ~12 MB binary were 32.3 MB).
 */
export function budgetOf(manifest) {
  if (isExtension(manifest)) return 5;
  const byName = {
    "@keel/extension-sdk": 5,
    "@keel/create-extension": 5,
    "@keel/session": 5,
    "@keel/testing": 4,
    "@keel/protocol": 4,
    "@keel/ai": 6,
    "@keel/agent": 6,
    "@keel/coding-agent": 10,
    "@keel/cli": 24,
  };
  const budget = byName[manifest.name];
  if (budget === undefined)
    throw new Error(`${manifest.name}: no installed-size budget; add one to scripts/budgets.mjs`);
  return budget;
}

/**
 * The kernel embedded with one provider SDK (`npm i @keel/coding-agent @keel/extension-sdk <sdk>`):
 * 25 MB with openai (12.5 MB; 21.5 in all). The Anthropic SDK alone is 21.0 MB as of 1.16 (it
 * ships its TypeScript sources and two builds of its types, and now installs @opentelemetry/api
 * and json-schema-to-ts with @babel/runtime), so with it the same 9.1 MB of Keel comes to 30.1:
 * it gets 31, the SDK's weight and a margin, not Keel's.
 */
export const EMBED_BUDGETS = { openai: 25, "@anthropic-ai/sdk": 31 };
