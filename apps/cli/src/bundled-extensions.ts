// The official extensions as the keel bin ships them: each a bundle of its own beside the core
// (dist/ext-<id>.cjs, built by scripts/build.mjs), read and compiled through the V8 code cache
// only when a session activates that extension (one config turns off costs nothing at start),
// with the packages the core lends them (shared-modules.ts).
import { fileURLToPath } from "node:url";
import type { ExtensionModule } from "@keel/coding-agent";
import type { ExtensionDefinition } from "@keel/extension-sdk";
import { codeCacheDir, requireWithCodeCache } from "./code-cache.js";
import { OFFICIAL_EXTENSIONS } from "./official.js";
import { SHARED_MODULES } from "./shared-modules.js";

/** The bundle of extension `id`, beside the core's own file. */
export const bundleFile = (id: string) => new URL(`./ext-${id}.cjs`, import.meta.url);

export function bundledExtensions(): ExtensionModule[] {
  const cache = process.env.KEEL_CODE_CACHE === "0" ? undefined : codeCacheDir();
  return OFFICIAL_EXTENSIONS.map(({ id }) => ({
    id,
    load: async () => {
      const { exports } = requireWithCodeCache(fileURLToPath(bundleFile(id)), cache, SHARED_MODULES);
      return (exports as { extension: ExtensionDefinition }).extension;
    },
  }));
}
