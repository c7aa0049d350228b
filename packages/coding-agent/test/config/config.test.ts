// Config loading: validation errors by file and field, JSON errors by line/column, layering, trust.
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

// Spy on every way the loader could open a file, so "never opened" is asserted, not assumed.
const opened: string[] = [];
vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs")>();
  return {
    ...real,
    readFileSync: ((path: Parameters<typeof real.readFileSync>[0], ...rest: unknown[]) => {
      opened.push(String(path));
      return (real.readFileSync as (...a: unknown[]) => unknown)(path, ...rest);
    }) as typeof real.readFileSync,
    openSync: ((path: Parameters<typeof real.openSync>[0], ...rest: unknown[]) => {
      opened.push(String(path));
      return (real.openSync as (...a: unknown[]) => number)(path, ...rest);
    }) as typeof real.openSync,
  };
});

const { loadConfig } = await import("../../src/config/load.js");
const { updateConfigFile, ensureLocalConfigIgnored, addPermissionRule } = await import(
  "../../src/config/write.js"
);
const { resolveKeelHome } = await import("../../src/config/paths.js");

let root: string;
let keelHome: string;
let project: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "keel-config-")));
  keelHome = join(root, "home", ".keel");
  project = join(root, "project");
  mkdirSync(keelHome, { recursive: true });
  mkdirSync(join(project, ".keel"), { recursive: true });
  mkdirSync(join(project, ".git"));
  opened.length = 0;
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const write = (path: string, value: unknown) =>
  writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value, null, 2));
const load = (trusted: boolean, cwd = project) =>
  loadConfig({ cwd, home: keelHome, trusted, userHome: join(root, "home") });

describe("loadConfig", () => {
  it("loads a valid user config", () => {
    write(join(keelHome, "config.json"), {
      model: "anthropic/claude-sonnet-4",
      permissions: { mode: "acceptEdits", allow: ["Bash(npm test:*)"] },
    });
    const result = load(false);
    expect(result.isOk()).toBe(true);
    const loaded = result._unsafeUnwrap();
    expect(loaded.config.model).toBe("anthropic/claude-sonnet-4");
    expect(loaded.config.permissions?.mode).toBe("acceptEdits");
    expect(loaded.rules).toEqual([{ rule: "Bash(npm test:*)", behavior: "allow", source: "user" }]);
    expect(loaded.projectRoot).toBe(project);
  });

  it("reports invalid JSON with file, line and column", () => {
    write(join(keelHome, "config.json"), '{\n  "model": "a/b",\n  "permissions": { "allow": [1,, 2] }\n}');
    const error = load(false)._unsafeUnwrapErr();
    expect(error.type).toBe("config_invalid_json");
    if (error.type !== "config_invalid_json") return;
    expect(error.line).toBe(3);
    expect(error.column).toBe(32);
    expect(error.message).toContain("~/.keel/config.json:3:32");
  });

  it("reports a schema error naming file, line and field", () => {
    write(join(keelHome, "config.json"), { permissions: { allow: ["Read", "Edit", 42] } });
    const error = load(false)._unsafeUnwrapErr();
    expect(error.type).toBe("config_invalid");
    expect(error.message).toBe("~/.keel/config.json:6: /permissions/allow/2 must be a string");
  });

  it("names the allowed values of an enum and the expected model format", () => {
    write(join(keelHome, "config.json"), { model: "no-slash", permissions: { mode: "yolo" } });
    const error = load(false)._unsafeUnwrapErr();
    expect(error.message).toContain('/model must look like "provider/model-id"');
    expect(error.message).toContain('/permissions/mode must be one of "default", "acceptEdits"');
  });

  it("keeps unknown keys and warns once per key", () => {
    write(join(keelHome, "config.json"), { theme: "dark", permissions: { allow: [], colour: 1 } });
    const loaded = load(false)._unsafeUnwrap();
    expect(loaded.config.theme).toBe("dark");
    const warnings = loaded.diagnostics.filter((d) => d.level === "warning").map((d) => d.message);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain("unknown key /theme");
    expect(warnings[1]).toContain("unknown key /permissions/colour");
  });

  it("warns about malformed permission rules", () => {
    write(join(keelHome, "config.json"), { permissions: { allow: ["Bash(npm test:*"] } });
    const loaded = load(false)._unsafeUnwrap();
    expect(loaded.diagnostics.some((d) => d.message.includes("is not a permission rule"))).toBe(true);
  });

  it("layers user < project < project-local, concatenating rules with their source", () => {
    write(join(keelHome, "config.json"), {
      model: "a/user",
      permissions: { mode: "default", allow: ["Read"], deny: ["Read(~/.ssh/**)"] },
      extensions: { todo: { enabled: true, config: { x: 1 } } },
      compaction: { threshold: 0.8 },
    });
    write(join(project, ".keel", "config.json"), {
      model: "a/project",
      permissions: { allow: ["Bash(npm test:*)"] },
      extensions: { todo: { enabled: false } },
    });
    write(join(project, ".keel", "config.local.json"), {
      permissions: { mode: "acceptEdits", allow: ["Edit(src/**)"] },
    });
    const loaded = load(true)._unsafeUnwrap();
    expect(loaded.config.model).toBe("a/project");
    expect(loaded.config.permissions?.mode).toBe("acceptEdits");
    expect(loaded.config.permissions?.allow).toEqual(["Read", "Bash(npm test:*)", "Edit(src/**)"]);
    expect(loaded.config.extensions?.todo).toEqual({ enabled: false, config: { x: 1 } });
    expect(loaded.config.compaction?.threshold).toBe(0.8);
    expect(loaded.rules).toEqual([
      { rule: "Read", behavior: "allow", source: "user" },
      { rule: "Read(~/.ssh/**)", behavior: "deny", source: "user" },
      { rule: "Bash(npm test:*)", behavior: "allow", source: "project" },
      { rule: "Edit(src/**)", behavior: "allow", source: "projectLocal" },
    ]);
    expect(loaded.sources.map((s) => [s.layer, s.status])).toEqual([
      ["user", "loaded"],
      ["project", "loaded"],
      ["projectLocal", "loaded"],
      ["claudeUser", "missing"],
      ["claudeProject", "missing"],
      ["claudeProjectLocal", "missing"],
    ]);
  });

  it("does not open project config at all when the project is untrusted", () => {
    write(join(keelHome, "config.json"), { model: "a/user" });
    write(join(project, ".keel", "config.json"), { hooks: { runStart: [{ command: "touch pwned" }] } });
    write(join(project, ".keel", "config.local.json"), "{ not even json");
    chmodSync(join(project, ".keel", "config.json"), 0o000);
    const result = load(false, join(project));
    const loaded = result._unsafeUnwrap();
    expect(loaded.config.hooks).toBeUndefined();
    expect(loaded.config.model).toBe("a/user");
    expect(opened.filter((p) => p.startsWith(join(project, ".keel")))).toEqual([]);
    expect(opened).toContain(join(keelHome, "config.json"));
    expect(loaded.sources.filter((s) => s.layer !== "user").map((s) => [s.layer, s.status])).toEqual([
      ["project", "not_trusted"],
      ["projectLocal", "not_trusted"],
      ["claudeUser", "missing"],
      ["claudeProject", "not_trusted"],
      ["claudeProjectLocal", "not_trusted"],
    ]);
    const notes = loaded.diagnostics.filter((d) => d.message.includes("not trusted"));
    expect(notes).toHaveLength(1);
  });

  it("a trusted project with a broken local file is an error naming that file", () => {
    write(join(project, ".keel", "config.local.json"), "{ not even json");
    const error = load(true)._unsafeUnwrapErr();
    expect(error.type).toBe("config_invalid_json");
    expect(error.message).toContain("config.local.json:1:3");
  });

  it("finds the project root from a subdirectory", () => {
    mkdirSync(join(project, "src", "deep"), { recursive: true });
    write(join(project, ".keel", "config.json"), { model: "a/project" });
    const loaded = load(true, join(project, "src", "deep"))._unsafeUnwrap();
    expect(loaded.projectRoot).toBe(project);
    expect(loaded.config.model).toBe("a/project");
  });

  it("resolves the Keel home from KEEL_HOME", () => {
    expect(resolveKeelHome({ KEEL_HOME: "/x/keel" }, "/home/u")).toBe("/x/keel");
    expect(resolveKeelHome({}, "/home/u")).toBe("/home/u/.keel");
  });
});

describe("writing config", () => {
  it("updateConfigFile creates, mutates and writes valid JSON atomically", () => {
    const path = join(project, ".keel", "config.local.json");
    const first = updateConfigFile(path, (c) => ({ ...c, model: "a/b" }));
    expect(first.isOk()).toBe(true);
    updateConfigFile(path, (c) => ({ ...c, extra: true }));
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ model: "a/b", extra: true });
  });

  it("refuses to overwrite a file that is not valid JSON", () => {
    const path = join(keelHome, "config.json");
    write(path, "{ broken");
    expect(updateConfigFile(path, () => ({}))._unsafeUnwrapErr().type).toBe("config_invalid_json");
    expect(readFileSync(path, "utf8")).toBe("{ broken");
  });

  it("addPermissionRule appends once and git-ignores the local file", () => {
    const where = { keelHome, projectRoot: project };
    addPermissionRule("Bash(npm test:*)", "allow", "projectLocal", where);
    addPermissionRule("Bash(npm test:*)", "allow", "projectLocal", where);
    const local = JSON.parse(readFileSync(join(project, ".keel", "config.local.json"), "utf8"));
    expect(local).toEqual({ permissions: { allow: ["Bash(npm test:*)"] } });
    expect(readFileSync(join(project, ".keel", ".gitignore"), "utf8")).toBe("config.local.json\n");
  });

  it("ensureLocalConfigIgnored keeps existing lines and does not duplicate", () => {
    write(join(project, ".keel", ".gitignore"), "sessions/");
    ensureLocalConfigIgnored(project);
    ensureLocalConfigIgnored(project);
    expect(readFileSync(join(project, ".keel", ".gitignore"), "utf8")).toBe("sessions/\nconfig.local.json\n");
  });
});
