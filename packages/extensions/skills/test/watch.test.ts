// The chokidar watch on skill roots: add / change / unlink of SKILL.md become one debounced
// callback, other files in a skill folder are not watched, a root created later (or removed and
// made again) is seen, and
// close releases everything.
import { spawn } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type SkillWatcher, watchSkillRoots } from "../src/watch.js";
import { skillMd, type Tree, tree, writeSkill } from "./fixtures.js";

let t: Tree;
let watcher: SkillWatcher | undefined;
beforeEach(() => {
  t = tree();
});
afterEach(async () => {
  await watcher?.close();
  watcher = undefined;
  t.cleanup();
});

function counter() {
  let n = 0;
  return { inc: () => void n++, get: () => n };
}

describe("watchSkillRoots", () => {
  it("turns add, change and unlink into one callback per burst", async () => {
    const root = join(t.keelHome, "skills");
    mkdirSync(root, { recursive: true });
    const calls = counter();
    watcher = watchSkillRoots([root], calls.inc, { debounceMs: 50 });
    await watcher.ready;

    const dir = writeSkill(root, "a", skillMd({ name: "a", description: "A." }));
    writeSkill(root, "b", skillMd({ name: "b", description: "B." }));
    await vi.waitFor(() => expect(calls.get()).toBe(1), { timeout: 5000 });

    writeFileSync(join(dir, "SKILL.md"), skillMd({ name: "a", description: "A, edited." }));
    await vi.waitFor(() => expect(calls.get()).toBe(2), { timeout: 5000 });

    rmSync(join(root, "b"), { recursive: true });
    await vi.waitFor(() => expect(calls.get()).toBe(3), { timeout: 5000 });
  });

  it("ignores files other than SKILL.md inside a skill", async () => {
    const root = join(t.keelHome, "skills");
    const dir = writeSkill(root, "a", skillMd({ name: "a", description: "A." }));
    mkdirSync(join(dir, "references"));
    const calls = counter();
    watcher = watchSkillRoots([root], calls.inc, { debounceMs: 20 });
    await watcher.ready;
    writeFileSync(join(dir, "references", "notes.md"), "x");
    writeFileSync(join(dir, "notes.md"), "x");
    // Then a relevant change: its callback must be the only one.
    writeFileSync(join(dir, "SKILL.md"), skillMd({ name: "a", description: "A2." }));
    await vi.waitFor(() => expect(calls.get()).toBe(1), { timeout: 5000 });
    await new Promise((r) => setTimeout(r, 200));
    expect(calls.get()).toBe(1);
  });

  it("sees a root that is created after the watch started", async () => {
    const root = join(t.home, ".agents", "skills");
    const calls = counter();
    watcher = watchSkillRoots([root], calls.inc, { debounceMs: 20 });
    await watcher.ready;
    writeSkill(root, "late", skillMd({ name: "late", description: "Late." }));
    await vi.waitFor(() => expect(calls.get()).toBeGreaterThanOrEqual(1), { timeout: 5000 });
  });

  it("still sees a root that is removed and made again", async () => {
    const root = join(t.keelHome, "skills");
    writeSkill(root, "a", skillMd({ name: "a", description: "A." }));
    const calls = counter();
    watcher = watchSkillRoots([root], calls.inc, { debounceMs: 20 });
    await watcher.ready;
    rmSync(root, { recursive: true });
    await vi.waitFor(() => expect(calls.get()).toBe(1), { timeout: 5000 });
    writeSkill(root, "b", skillMd({ name: "b", description: "B." }));
    await vi.waitFor(() => expect(calls.get()).toBe(2), { timeout: 5000 });
    // chokidar watches the new folders once it has scanned them, and an edit made while it scans
    // is folded into the scan (on a loaded machine the scan took over 500 ms in CI). What must hold
    // is that edits to the re-made root are seen: edit until one is, each a real change.
    let edits = 0;
    await vi.waitFor(
      () => {
        edits++;
        writeFileSync(join(root, "b", "SKILL.md"), skillMd({ name: "b", description: `B, edit ${edits}.` }));
        expect(calls.get()).toBeGreaterThanOrEqual(3);
      },
      { timeout: 10_000, interval: 400 },
    );
  });

  it("calls nothing after close", async () => {
    const root = join(t.keelHome, "skills");
    mkdirSync(root, { recursive: true });
    const calls = counter();
    watcher = watchSkillRoots([root], calls.inc, { debounceMs: 20 });
    await watcher.ready;
    writeSkill(root, "a", skillMd({ name: "a", description: "A." }));
    await watcher.close();
    await new Promise((r) => setTimeout(r, 150));
    expect(calls.get()).toBe(0);
  });

  it("keeps no process alive", async () => {
    const root = join(t.keelHome, "skills");
    writeSkill(root, "a", skillMd({ name: "a", description: "A." }));
    const script = [
      `import { watchSkillRoots } from ${JSON.stringify(join(import.meta.dirname, "..", "src", "watch.ts"))};`,
      `const w = watchSkillRoots([${JSON.stringify(root)}, ${JSON.stringify(join(t.home, "missing", "skills"))}], () => {});`,
      "await w.ready;",
      'console.log("armed");',
    ].join("\n");
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: join(import.meta.dirname, ".."),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => {
      out += String(d);
    });
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => {
        child.kill();
        resolve(-1);
      }, 10_000);
      child.on("close", (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    expect(out.trim()).toBe("armed");
    expect(code).toBe(0);
  });
});
