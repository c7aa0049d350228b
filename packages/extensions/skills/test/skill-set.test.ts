// The live skill set: it rescans only after an invalidation, a change during a scan is not lost,
// listeners hear every invalidation, and a diagnostic is reported once while it stays true.
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { SkillSet } from "../src/index.js";
import type { SkillDiagnostic } from "../src/types.js";
import { skillMd, type Tree, tree, writeSkill } from "./fixtures.js";

let t: Tree;
beforeEach(() => {
  t = tree();
});
afterEach(() => t.cleanup());

const input = () => ({
  cwd: t.project,
  projectRoot: t.project,
  trusted: false,
  keelHome: t.keelHome,
  home: t.home,
});
const root = () => join(t.keelHome, "skills");

describe("SkillSet", () => {
  it("serves the last discovery until invalidated", async () => {
    writeSkill(root(), "a", skillMd({ name: "a", description: "A." }));
    const set = new SkillSet(input());
    expect((await set.get()).skills.map((s) => s.name)).toEqual(["a"]);
    writeSkill(root(), "b", skillMd({ name: "b", description: "B." }));
    expect((await set.get()).skills.map((s) => s.name)).toEqual(["a"]);
    let heard = 0;
    set.subscribe(() => void heard++);
    set.invalidate();
    expect(heard).toBe(1);
    expect((await set.get()).skills.map((s) => s.name)).toEqual(["a", "b"]);
    expect(set.find("b")?.description).toBe("B.");
  });

  it("rescans again when invalidated while a scan was running", async () => {
    writeSkill(root(), "a", skillMd({ name: "a", description: "A." }));
    const set = new SkillSet(input());
    const first = set.get();
    writeSkill(root(), "b", skillMd({ name: "b", description: "B." }));
    set.invalidate();
    await first;
    expect((await set.get()).skills.map((s) => s.name)).toEqual(["a", "b"]);
  });

  it("reports a diagnostic once while it holds, and again if it comes back", async () => {
    const reported: SkillDiagnostic[] = [];
    const dir = writeSkill(root(), "bad", skillMd({ name: "bad" }));
    const set = new SkillSet(input(), { report: (d) => reported.push(d) });
    await set.get();
    set.invalidate();
    await set.get();
    expect(reported).toHaveLength(1);
    writeSkill(root(), "bad", skillMd({ name: "bad", description: "Fixed." }));
    set.invalidate();
    await set.get();
    writeSkill(root(), "bad", skillMd({ name: "bad" }));
    set.invalidate();
    await set.get();
    expect(reported.map((d) => d.file)).toEqual([join(dir, "SKILL.md"), join(dir, "SKILL.md")]);
  });

  // The watcher module (chokidar) loads with the first watch, after the first request: the
  // returned watcher must behave as one created in place.
  it("sees an edit made once the watch it armed is ready", async () => {
    writeSkill(root(), "a", skillMd({ name: "a", description: "A." }));
    const set = new SkillSet(input(), { debounceMs: 20 });
    expect((await set.get()).skills.map((s) => s.name)).toEqual(["a"]);
    let heard = 0;
    set.subscribe(() => void heard++);
    await set.watch().ready;
    const before = heard;
    writeSkill(root(), "b", skillMd({ name: "b", description: "B." }));
    await vi.waitFor(() => expect(heard).toBeGreaterThan(before), { timeout: 5000 });
    expect((await set.get()).skills.map((s) => s.name)).toEqual(["a", "b"]);
    await set.close();
  });

  it("releases a watch stopped before its watcher had loaded, and hears nothing after", async () => {
    writeSkill(root(), "a", skillMd({ name: "a", description: "A." }));
    const set = new SkillSet(input(), { debounceMs: 20 });
    await set.get();
    set.watch();
    // Resolves once the watcher loaded and was closed (its ready never comes, as for any watch
    // closed before its first scan).
    await set.stopWatching();
    let heard = 0;
    set.subscribe(() => void heard++);
    writeSkill(root(), "b", skillMd({ name: "b", description: "B." }));
    await new Promise((r) => setTimeout(r, 300));
    expect(heard).toBe(0);
  });
});
