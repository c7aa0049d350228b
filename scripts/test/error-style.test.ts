// One error style per layer (CONTRIBUTING.md, "Errors"), held by the code: the kernel, the agent
// loop, ai, session, the extensions and the CLI return neverthrow Results for expected failures;
// an `{ ok }` union appears there only as a value the extension SDK declares (a file that builds
// one names the SDK type it implements). The SDK's unions share one shape, but for the three older
// ones kept until its next major version; the two packages without neverthrow use that shape.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { root, workspacePackages } from "../workspace.mjs";

const OK_UNION = /\bok: (true|false)\b/;
/** The SDK's unions in the older `{ ok: false, message }` shape (CONTRIBUTING.md names them). */
const OLDER_SHAPE = new Set(["Registration", "ConfigUpdate", "MentionResolution"]);
/** Packages with no neverthrow: plain unions, in the SDK's shape. */
const DEPENDENCY_FREE = new Set(["@keel/extension-sdk", "@keel/testing", "@keel/create-extension"]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !e.name.endsWith(".d.ts"))
    .map((e) => join(e.parentPath, e.name));
}

/** Each exported SDK type whose declaration is an `{ ok }` union, with its declaration text. */
function sdkUnions(): Map<string, string> {
  const unions = new Map<string, string>();
  for (const file of sourceFiles(join(root, "packages/extension-sdk/src"))) {
    const text = readFileSync(file, "utf8");
    // A declaration runs to the blank line after it.
    for (const m of text.matchAll(/^export type (\w+)(?:<[^=]*>)? =([\s\S]*?)(?:\n\n|$(?![\s\S]))/gm))
      if (OK_UNION.test(m[2]!)) unions.set(m[1]!, m[2]!);
  }
  return unions;
}

const packages = workspacePackages()
  .filter(({ dir }) => existsSync(join(dir, "src")))
  .map(({ dir, manifest }) => ({ dir, name: manifest.name as string }));

describe("one error style per layer", () => {
  const unions = sdkUnions();

  it("finds the SDK's unions (the list the rest of this file holds code to)", () => {
    expect([...unions.keys()]).toEqual(
      expect.arrayContaining(["Registration", "ConfigUpdate", "RunAgentOutcome", "ExecOutcome"]),
    );
  });

  it("the SDK's unions share one failure shape, { ok: false, error: { type, message } }, but the three older ones", () => {
    const off = [...unions]
      .filter(([name]) => !OLDER_SHAPE.has(name))
      .filter(([, text]) => /ok: false(?![^}]*\berror\b)/.test(text))
      .map(([name]) => name);
    expect(off).toEqual([]);
  });

  it("outside the dependency-free packages, an { ok } union is built only where an SDK type is implemented", () => {
    const names = [...unions.keys()];
    const offenders: string[] = [];
    for (const { dir, name } of packages) {
      if (DEPENDENCY_FREE.has(name)) continue;
      for (const file of sourceFiles(join(dir, "src"))) {
        const text = readFileSync(file, "utf8");
        if (!OK_UNION.test(text)) continue;
        if (!names.some((n) => new RegExp(`\\b${n}\\b`).test(text))) offenders.push(relative(root, file));
      }
    }
    expect(
      offenders,
      "return a neverthrow Result with a tagged { type, message } error (CONTRIBUTING.md, Errors)",
    ).toEqual([]);
  });

  it("the dependency-free packages' own failures carry an error object, as the SDK's do", () => {
    const offenders: string[] = [];
    for (const { dir, name } of packages) {
      if (!DEPENDENCY_FREE.has(name) || name === "@keel/extension-sdk") continue;
      for (const file of sourceFiles(join(dir, "src")))
        for (const line of readFileSync(file, "utf8").split("\n"))
          if (/\bok: false\b/.test(line) && !/\berror\b/.test(line) && !/\bok: false,?\s*$/.test(line))
            offenders.push(`${relative(root, file)}: ${line.trim()}`);
    }
    expect(offenders).toEqual([]);
  });

  it("would catch a kernel file that hand-rolls a union", () => {
    const text = "export function f(): { ok: true } | { ok: false; why: string } { return { ok: true }; }";
    expect(OK_UNION.test(text) && ![...unions.keys()].some((n) => new RegExp(`\\b${n}\\b`).test(text))).toBe(
      true,
    );
  });
});
