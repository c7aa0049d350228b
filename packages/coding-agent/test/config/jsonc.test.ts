// Keel's JSON config files as JSONC (comments, trailing commas) with errors that still name the
// file, line and field; writes that keep the user's comments; settings by dotted key, validated
// as loading validates them.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import {
  getSetting,
  listSettings,
  parseSettingValue,
  setSetting,
  unsetSetting,
} from "../../src/config/settings.js";
import { updateConfigFile } from "../../src/config/write.js";

let root: string;
let keelHome: string;
let project: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "keel-jsonc-")));
  keelHome = join(root, "home");
  project = join(root, "project");
  mkdirSync(keelHome, { recursive: true });
  mkdirSync(join(project, ".git"), { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const userFile = () => join(keelHome, "config.json");
const load = () => loadConfig({ cwd: project, home: keelHome, trusted: true, userHome: "/nowhere" });
const where = () => ({ keelHome, projectRoot: project });

const COMMENTED = `{
  // The model for every project.
  "model": "anthropic/claude-sonnet-4-6",
  /* Retries: the proxy here is flaky. */
  "stream": { "maxRetries": 6, },
  "permissions": {
    "allow": ["Bash(npm test:*)",], // trailing commas are fine
  },
}
`;

describe("JSONC config files", () => {
  it("load with line and block comments and trailing commas", () => {
    writeFileSync(userFile(), COMMENTED);
    const loaded = load()._unsafeUnwrap();
    expect(loaded.config.model).toBe("anthropic/claude-sonnet-4-6");
    expect(loaded.config.stream?.maxRetries).toBe(6);
    expect(loaded.rules).toEqual([{ rule: "Bash(npm test:*)", behavior: "allow", source: "user" }]);
  });

  it("a schema error names the file, the line of the field and the field", () => {
    writeFileSync(
      userFile(),
      `{\n  // note\n  "stream": {\n    // too many\n    "maxRetries": "lots"\n  }\n}\n`,
    );
    const error = load()._unsafeUnwrapErr();
    expect(error).toMatchObject({
      type: "config_invalid",
      errors: [{ path: "/stream/maxRetries", line: 5 }],
    });
    expect(error.message).toBe(`${userFile()}:5: /stream/maxRetries must be an integer`);
  });

  it("a syntax error still names the line and column", () => {
    writeFileSync(userFile(), `{\n  // fine\n  "model": "a/b" "stream": {}\n}\n`);
    const error = load()._unsafeUnwrapErr();
    expect(error).toMatchObject({ type: "config_invalid_json", line: 3, column: 18 });
    expect(error.message).toContain(`${userFile()}:3:18: invalid JSON (CommaExpected`);
  });

  it("a write changes only what changed and keeps every comment", () => {
    writeFileSync(userFile(), COMMENTED);
    updateConfigFile(userFile(), (c) => ({ ...c, agents: { maxConcurrent: 2 } }))._unsafeUnwrap();
    const text = readFileSync(userFile(), "utf8");
    expect(text).toContain("// The model for every project.");
    expect(text).toContain("/* Retries: the proxy here is flaky. */");
    expect(text).toContain("// trailing commas are fine");
    expect(load()._unsafeUnwrap().config.agents).toEqual({ maxConcurrent: 2 });
    expect(text.startsWith(COMMENTED.slice(0, COMMENTED.indexOf('"stream"')))).toBe(true);
  });
});

describe("settings by dotted key", () => {
  it("set, get, list and unset in the user file, keeping its comments", () => {
    writeFileSync(userFile(), COMMENTED);
    expect(setSetting("stream.maxRetries", 3, "user", where())._unsafeUnwrap()).toBe(userFile());
    expect(setSetting("extensions.todo.enabled", false, "user", where()).isOk()).toBe(true);
    expect(getSetting("stream.maxRetries", "user", where())._unsafeUnwrap()).toBe(3);
    expect(getSetting("agents.maxConcurrent", "user", where())._unsafeUnwrap()).toBeUndefined();
    expect(listSettings("user", where())._unsafeUnwrap()).toEqual([
      ["model", "anthropic/claude-sonnet-4-6"],
      ["stream.maxRetries", 3],
      ["permissions.allow", ["Bash(npm test:*)"]],
      ["extensions.todo.enabled", false],
    ]);
    expect(unsetSetting("permissions.allow", "user", where())).toMatchObject({ value: userFile() });
    const text = readFileSync(userFile(), "utf8");
    expect(text).toContain("// The model for every project.");
    expect(text).toContain("/* Retries: the proxy here is flaky. */");
    expect(text).not.toContain("npm test");
    expect(load()._unsafeUnwrap().config.extensions).toEqual({ todo: { enabled: false } });
  });

  it("refuses what loading would refuse, and leaves the file as it was", () => {
    writeFileSync(userFile(), COMMENTED);
    const bad = setSetting("stream.maxRetries", "lots", "user", where())._unsafeUnwrapErr();
    expect(bad).toMatchObject({ type: "config_invalid", errors: [{ path: "/stream/maxRetries" }] });
    expect(bad.message).toContain(`${userFile()}: /stream/maxRetries must be an integer`);
    expect(setSetting("permissions.mode", "yolo", "user", where())._unsafeUnwrapErr().message).toContain(
      'must be one of "default", "acceptEdits"',
    );
    expect(readFileSync(userFile(), "utf8")).toBe(COMMENTED);
  });

  it("refuses an unknown key with the close match, and a key inside a value that is not an object", () => {
    expect(setSetting("strem.maxRetries", 1, "user", where())._unsafeUnwrapErr().message).toMatch(
      /^unknown key "strem"; did you mean stream\? Known keys: model, /,
    );
    expect(setSetting("stream.maxRetrie", 1, "user", where())._unsafeUnwrapErr().message).toMatch(
      /^unknown key "stream.maxRetrie"; did you mean stream.maxRetries\?/,
    );
    expect(setSetting("stream..x", 1, "user", where()).isErr()).toBe(true);
    setSetting("model", "anthropic/claude-sonnet-4-6", "user", where())._unsafeUnwrap();
    expect(setSetting("model.id", "x", "user", where())._unsafeUnwrapErr().message).toContain(
      'model holds "anthropic/claude-sonnet-4-6", not an object',
    );
  });

  it("writes the project's .keel/config.json for the project scope", () => {
    setSetting("permissions.deny", ["Bash(git push:*)"], "project", where())._unsafeUnwrap();
    expect(JSON.parse(readFileSync(join(project, ".keel", "config.json"), "utf8"))).toEqual({
      permissions: { deny: ["Bash(git push:*)"] },
    });
  });

  it("reads a command-line value as JSON when it parses, else as text", () => {
    expect(parseSettingValue("10")).toBe(10);
    expect(parseSettingValue("true")).toBe(true);
    expect(parseSettingValue('["a"]')).toEqual(["a"]);
    expect(parseSettingValue("anthropic/claude-sonnet-4-6")).toBe("anthropic/claude-sonnet-4-6");
    expect(parseSettingValue('"10"')).toBe("10");
  });
});
