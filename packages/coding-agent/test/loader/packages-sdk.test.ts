// keel install with the real npm (offline: local tarballs only): an extension's peer on the SDK is
// met by a link to the host's own copy, never a second SDK; one made for another SDK is refused
// in Keel's words. keel update, with npm replaced by a recording stand-in: registry packages move
// to the newest their spec allows, the new version is recorded, tarballs are left alone.
import { execFileSync } from "node:child_process";
import { chmodSync, lstatSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { hostSdk, installPackage, recordedPackages, updatePackages } from "../../src/index.js";
import { type Sandbox, sandbox } from "../kernel/helpers.js";

let box: Sandbox;
const env = { ...process.env };
afterEach(() => {
  process.env = { ...env };
  box?.cleanup();
});

/** A packed extension package whose module imports the SDK, with the given peer range on it. */
function extensionTarball(dir: string, name: string, peer: string): string {
  const pkg = join(dir, name, "package");
  mkdirSync(pkg, { recursive: true });
  writeFileSync(
    join(pkg, "package.json"),
    JSON.stringify({
      name,
      version: "1.0.0",
      type: "module",
      exports: "./index.js",
      keywords: ["keel-extension"],
      peerDependencies: { "@keel/extension-sdk": peer },
    }),
  );
  writeFileSync(
    join(pkg, "index.js"),
    'import { textResult } from "@keel/extension-sdk";\nexport default (keel) => keel.registerContext(textResult("hi").content[0].text);\n',
  );
  const tarball = join(dir, `${name}.tgz`);
  execFileSync("tar", ["-czf", tarball, "-C", join(dir, name), "package"]);
  return tarball;
}

describe("keel install and the SDK", () => {
  it("links the host's SDK for the extension's peer instead of installing another", async () => {
    box = sandbox();
    // Nothing may come from a registry: the tarball is local, the SDK a link.
    process.env.npm_config_offline = "true";
    const sdk = hostSdk()!;
    const tarball = extensionTarball(box.workspace, "keel-ext-hello", `^${sdk.version}`);
    const where = { keelHome: box.home, projectRoot: box.workspace };
    const installed = (await installPackage(tarball, { ...where, scope: "user" }))._unsafeUnwrap();
    expect([installed.name, installed.version]).toEqual(["keel-ext-hello", "1.0.0"]);

    const link = join(box.home, "packages/node_modules/@keel/extension-sdk");
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(realpathSync(link)).toBe(realpathSync(sdk.dir));
    // What the extension's own import resolves to is the host's SDK.
    const resolved = createRequire(join(installed.path, "index.js")).resolve(
      "@keel/extension-sdk/package.json",
    );
    expect(realpathSync(resolved)).toBe(realpathSync(join(sdk.dir, "package.json")));
    // The SDK is not recorded as an extension: it would load as one on every start.
    expect(recordedPackages("user", where).map((p) => p.name)).toEqual(["keel-ext-hello"]);
  }, 60_000);

  it("refuses an extension made for another SDK, saying which and why", async () => {
    box = sandbox();
    process.env.npm_config_offline = "true";
    const sdk = hostSdk()!;
    const tarball = extensionTarball(box.workspace, "keel-ext-future", "^99.0.0");
    const where = { keelHome: box.home, projectRoot: box.workspace };
    const done = await installPackage(tarball, { ...where, scope: "user" });
    expect(done._unsafeUnwrapErr().message).toBe(
      `keel-ext-future@1.0.0 needs @keel/extension-sdk ^99.0.0, and this Keel provides ${sdk.version}: install a version of the extension made for this Keel, or update Keel.`,
    );
    expect(recordedPackages("user", where)).toEqual([]);
  }, 60_000);

  it("refuses to install the SDK itself as an extension", async () => {
    box = sandbox();
    const done = await installPackage("@keel/extension-sdk@0.1.0", {
      keelHome: box.home,
      projectRoot: box.workspace,
      scope: "user",
    });
    expect(done._unsafeUnwrapErr().message).toContain("is not an extension");
  });
});

/** An `npm` that records its arguments and "installs" `name[@version]`, `latest` being 2.0.0. */
function fakeNpm(dir: string): string {
  const log = join(dir, "npm.log");
  mkdirSync(dir, { recursive: true });
  const script = join(dir, "npm");
  writeFileSync(
    script,
    `#!/usr/bin/env node
const fs = require("fs"), path = require("path");
const args = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify(args) + "\\n");
const prefix = args[args.indexOf("--prefix") + 1];
const spec = args[args.length - 1];
const at = spec.lastIndexOf("@");
const name = at > 0 ? spec.slice(0, at) : spec;
const asked = at > 0 ? spec.slice(at + 1) : "1.0.0";
const version = asked === "latest" ? "2.0.0" : asked.replace(/^\\^/, "");
fs.mkdirSync(path.join(prefix, "node_modules", name), { recursive: true });
fs.writeFileSync(path.join(prefix, "node_modules", name, "package.json"), JSON.stringify({ name, version }));
const manifest = JSON.parse(fs.readFileSync(path.join(prefix, "package.json"), "utf8"));
manifest.dependencies = { ...manifest.dependencies, [name]: "^" + version };
fs.writeFileSync(path.join(prefix, "package.json"), JSON.stringify(manifest));
`,
  );
  chmodSync(script, 0o755);
  return log;
}

describe("keel update", () => {
  it("installs each registry package at the newest its spec allows and records the version", async () => {
    box = sandbox();
    const bin = join(box.home, "..", "bin");
    const log = fakeNpm(bin);
    process.env.PATH = `${bin}:${env.PATH}`;
    const where = { keelHome: box.home, projectRoot: box.workspace, scope: "user" as const };
    (await installPackage("keel-ext-shout", where))._unsafeUnwrap();
    (await installPackage("keel-ext-pinned@^1.4.0", where))._unsafeUnwrap();
    const tarball = join(box.workspace, "keel-ext-local-1.0.0.tgz");
    // The stand-in "installs" a tarball under its file name; update must not touch it.
    writeFileSync(
      join(box.home, "config.json"),
      JSON.stringify({
        packages: [
          ...recordedPackages("user", where).map(({ name, version, spec }) => ({ name, version, spec })),
          { name: "keel-ext-local", version: "1.0.0", spec: tarball },
        ],
      }),
    );

    const { updated, skipped } = (await updatePackages(where))._unsafeUnwrap();
    expect(updated.map((p) => [p.name, p.from, p.version, p.spec])).toEqual([
      ["keel-ext-shout", "1.0.0", "2.0.0", "keel-ext-shout"],
      ["keel-ext-pinned", "1.4.0", "1.4.0", "keel-ext-pinned@^1.4.0"],
    ]);
    expect(skipped.map((p) => p.name)).toEqual(["keel-ext-local"]);
    const asked = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((l) => (JSON.parse(l) as string[]).at(-1));
    expect(asked).toEqual([
      "keel-ext-shout",
      "keel-ext-pinned@^1.4.0",
      "keel-ext-shout@latest",
      "keel-ext-pinned@^1.4.0",
    ]);
    expect(recordedPackages("user", where).map((p) => [p.name, p.version, p.spec])).toEqual([
      ["keel-ext-local", "1.0.0", tarball],
      ["keel-ext-shout", "2.0.0", "keel-ext-shout"],
      ["keel-ext-pinned", "1.4.0", "keel-ext-pinned@^1.4.0"],
    ]);
    // Every prefix write links the host's SDK.
    const prefix = JSON.parse(readFileSync(join(box.home, "packages/package.json"), "utf8"));
    expect(prefix.dependencies["@keel/extension-sdk"]).toBe(`file:${hostSdk()!.dir}`);
  });

  it("says when the package named is not installed", async () => {
    box = sandbox();
    const done = await updatePackages({
      keelHome: box.home,
      projectRoot: box.workspace,
      scope: "user",
      name: "keel-ext-none",
    });
    expect(done._unsafeUnwrapErr().message).toBe("keel-ext-none is not installed.");
  });
});
