// `changeset version` on a copy of the repository's manifests and changesets: every changeset is
// consumed into versions and changelogs, 0.x packages stay 0.x (a peer dependency bump must not
// turn an extension into 1.0.0), and `workspace:` ranges stay for pnpm to rewrite at publish.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { root, workspacePackages } from "../workspace.mjs";

type Manifest = { name: string; version: string; private?: boolean } & Record<string, unknown>;
type Pkg = { rel: string; dir: string; manifest: Manifest };
const copy = mkdtempSync(join(tmpdir(), "keel-changesets-"));
afterAll(() => rmSync(copy, { recursive: true, force: true }));

/** The packages each changeset names, and the first line of its summary. */
function changesets(dir: string): { names: string[]; summary: string }[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".md") && f !== "README.md")
    .map((f) => {
      const [, front = "", body = ""] =
        /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(readFileSync(join(dir, f), "utf8")) ?? [];
      const names = [...front.matchAll(/^["']?(@?[\w./-]+)["']?\s*:/gm)].map((m) => m[1]!);
      return { names, summary: body.trim().split("\n")[0]! };
    });
}

describe("changeset version", () => {
  it("turns every changeset into versions and changelogs, 0.x staying 0.x", () => {
    const before = workspacePackages() as Pkg[];
    for (const file of ["package.json", "pnpm-workspace.yaml"]) cpSync(join(root, file), join(copy, file));
    cpSync(join(root, ".changeset"), join(copy, ".changeset"), { recursive: true });
    for (const p of before) {
      mkdirSync(join(copy, p.rel), { recursive: true });
      cpSync(join(p.dir, "package.json"), join(copy, p.rel, "package.json"));
    }
    const pending = changesets(join(copy, ".changeset"));
    expect(pending.length).toBeGreaterThan(10);

    execFileSync(process.execPath, [join(root, "node_modules/@changesets/cli/bin.js"), "version"], {
      cwd: copy,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });

    expect(readdirSync(join(copy, ".changeset")).filter((f) => f.endsWith(".md"))).toEqual(["README.md"]);
    const after = new Map((workspacePackages(copy) as Pkg[]).map((p) => [p.manifest.name, p]));
    const named = new Set(pending.flatMap((c) => c.names));
    for (const p of before) {
      const now = after.get(p.manifest.name)!;
      if (p.manifest.private) {
        expect(now.manifest.version).toBe(p.manifest.version);
        continue;
      }
      if (!named.has(p.manifest.name)) continue;
      expect([p.manifest.name, now.manifest.version]).not.toEqual([p.manifest.name, p.manifest.version]);
      if (p.manifest.version.startsWith("0."))
        expect([p.manifest.name, now.manifest.version]).toEqual([
          p.manifest.name,
          expect.stringMatching(/^0\./),
        ]);
      const changelog = join(copy, p.rel, "CHANGELOG.md");
      expect(existsSync(changelog)).toBe(true);
      const text = readFileSync(changelog, "utf8");
      expect(text).toContain(`## ${now.manifest.version}`);
      const own = pending.filter((c) => c.names.includes(p.manifest.name));
      expect(own.some((c) => text.includes(c.summary))).toBe(true);
      // Internal ranges stay as written; pnpm rewrites them when it packs.
      for (const section of ["dependencies", "peerDependencies", "devDependencies"] as const) {
        const was = (p.manifest[section] ?? {}) as Record<string, string>;
        const is = (now.manifest[section] ?? {}) as Record<string, string>;
        for (const [dep, range] of Object.entries(was))
          if (range.startsWith("workspace:")) expect(is[dep]).toBe(range);
      }
    }
  }, 60_000);
});
