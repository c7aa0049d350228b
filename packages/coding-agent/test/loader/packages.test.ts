// keel install for a trusted project's declared packages: each is installed at the version the
// project recorded (a teammate gets what was trusted, not whatever is newest), and the record the
// project keeps in its config is left as it was written. npm is replaced by a recording stand-in.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { installDeclared, trustProject } from "../../src/index.js";
import { type Sandbox, sandbox } from "../kernel/helpers.js";

let box: Sandbox;
const path = process.env.PATH;
afterEach(() => {
  process.env.PATH = path;
  box?.cleanup();
});

/** An `npm` that records its arguments and "installs" `name[@version]` as that package. */
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
const version = at > 0 ? spec.slice(at + 1) : "9.9.9";
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

describe("installDeclared", () => {
  it("installs each registry package at its recorded version and keeps the project's record as written", async () => {
    box = sandbox();
    const log = fakeNpm(join(box.home, "..", "bin"));
    process.env.PATH = `${join(box.home, "..", "bin")}:${path}`;
    const configFile = join(box.workspace, ".keel", "config.json");
    mkdirSync(join(box.workspace, ".keel"), { recursive: true });
    const record = { packages: [{ name: "keel-ext-shout", version: "1.2.3", spec: "keel-ext-shout" }] };
    writeFileSync(configFile, JSON.stringify(record));
    trustProject(box.workspace, { home: box.home })._unsafeUnwrap();

    const done = await installDeclared({ keelHome: box.home, projectRoot: box.workspace });
    const installed = done._unsafeUnwrap();
    const calls = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as string[]);
    expect(calls.map((args) => args.at(-1))).toEqual(["keel-ext-shout@1.2.3"]);
    expect(installed.map((p) => [p.name, p.version, p.spec])).toEqual([
      ["keel-ext-shout", "1.2.3", "keel-ext-shout"],
    ]);
    expect(JSON.parse(readFileSync(configFile, "utf8")).packages).toEqual(record.packages);
  });
});
