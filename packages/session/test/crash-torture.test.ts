// Crash torture: a child drives a session whose tools write real files and is SIGKILLed at
// random instants; every reopen must fold cleanly, keep every acknowledged entry and classify
// each interrupted tool call consistently with the file it did or did not write.
import { existsSync, readdirSync, statSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import * as api from "../src/index.js";
import { runTorture } from "./fixtures/torture.mjs";

const src = fileURLToPath(new URL("../src/", import.meta.url));
const dist = fileURLToPath(new URL("../dist/", import.meta.url));

/**
 * The children run the current source: from dist when it is up to date (plain node starts
 * several times faster), otherwise through tsx, so a stale build can never be what is tested.
 */
function childModule(): { moduleUrl: string; nodeArgs: string[] } {
  const fresh = readdirSync(src)
    .filter((f) => f.endsWith(".ts"))
    .every((f) => {
      const built = `${dist}${f.replace(/\.ts$/, ".js")}`;
      return existsSync(built) && statSync(built).mtimeMs >= statSync(`${src}${f}`).mtimeMs;
    });
  return fresh
    ? { moduleUrl: pathToFileURL(`${dist}index.js`).href, nodeArgs: [] }
    : { moduleUrl: pathToFileURL(`${src}index.ts`).href, nodeArgs: ["--import", "tsx"] };
}

describe("crash torture", () => {
  // The bound is generous: on a busy 2-core machine (CI runs every package at once) 50 child
  // starts alone can take minutes; the property is what is tested, not the speed.
  it("survives 50 random SIGKILLs", { timeout: 600_000 }, async () => {
    const figures = await runTorture({ api, ...childModule(), trials: 50, seed: 7 });
    expect(figures.trials).toBe(50);
    expect(figures.acked).toBeGreaterThan(50);
    // Over 50 kills the journal must have been caught mid-operation at least once.
    expect(
      figures.neverRan + figures.unknownOutcome + figures.resultMissing + figures.interrupted,
    ).toBeGreaterThan(0);
  });
});
