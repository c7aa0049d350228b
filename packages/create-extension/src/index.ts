// @keel/create-extension: `npm create @keel/extension <name>` writes a Keel extension package of
// its own (see templates.ts); the repository's `pnpm new-extension` reuses its source and test.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { EXTENSION_NAME, MAX_NAME, packageFiles } from "./templates.js";

export type { ExtensionNames } from "./templates.js";
export {
  EXTENSION_NAME,
  extensionFiles,
  MAX_NAME,
  packageFiles,
  TOOL_VERSIONS,
  tarballName,
} from "./templates.js";

export type CreateError = { type: "invalid_name"; message: string } | { type: "exists"; message: string };

/** The SDK's one failure shape, `{ ok: false, error: { type, message } }` (this package has no neverthrow). */
export type CreateResult =
  | { ok: true; dir: string; pkg: string; id: string; sdkVersion: string; files: string[] }
  | { ok: false; error: CreateError };

/**
 * The version of @keel/extension-sdk installed with this package: a new extension's peer range
 * starts at it, so what `npm create` makes installs in a Keel of the same release.
 */
export function sdkVersion(): string {
  const manifest = createRequire(import.meta.url).resolve("@keel/extension-sdk/package.json");
  return (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
}

/**
 * Writes the package `pkg` (`name` or `@scope/name`) into `dir` (default: `<cwd>/<name>`). An
 * existing folder is never written into.
 */
export function createExtension(options: {
  pkg: string;
  cwd: string;
  dir?: string;
  sdkVersion?: string;
}): CreateResult {
  const { pkg } = options;
  const id = pkg.replace(/^@[a-z0-9][a-z0-9._-]*\//, "");
  if (
    !EXTENSION_NAME.test(id) ||
    id.length > MAX_NAME ||
    (pkg !== id && !/^@[a-z0-9][a-z0-9._-]*\/[^/]+$/.test(pkg))
  )
    return {
      ok: false,
      error: {
        type: "invalid_name",
        message:
          `"${pkg}" is not a valid extension package name: use lowercase letters, digits and single dashes, ` +
          `starting with a letter, at most ${MAX_NAME} characters, optionally under an npm scope (e.g. "keel-git-notes" or "@me/git-notes")`,
      },
    };
  const dir = resolve(options.cwd, options.dir ?? id);
  if (existsSync(dir))
    return {
      ok: false,
      error: {
        type: "exists",
        message: `${dir} already exists; nothing was written. Pick another name or folder.`,
      },
    };
  const version = options.sdkVersion ?? sdkVersion();
  const files = packageFiles({ id, pkg }, version);
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), content, { flag: "wx" });
  }
  return { ok: true, dir, pkg, id, sdkVersion: version, files: Object.keys(files).sort() };
}
