// Kernel crash torture: real CodingAgent children whose Write and Bash tools create files are
// SIGKILLed at seeded random instants; every reopen must fold, keep every acknowledged step, and
// classify every interrupted call against the disk, and every restart must tell the model.
import * as session from "@keel/session";
import { startMockServer } from "@keel/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { builtKernel } from "./fixtures/built.mjs";
import { runCrashTorture } from "./fixtures/torture.mjs";

const TRIALS = Number(process.env.KEEL_CRASH_TRIALS ?? 50);
let moduleUrl = "";

describe("kernel crash torture", () => {
  beforeAll(() => {
    moduleUrl = builtKernel();
  }, 300_000);

  it(`survives ${TRIALS} random SIGKILLs`, { timeout: 600_000 }, async () => {
    const figures = await runCrashTorture({ session, startMockServer, moduleUrl, trials: TRIALS, seed: 11 });
    expect(figures.trials).toBe(TRIALS);
    // The kills landed while work was going on, not only at start-up.
    expect(figures.acked.tools).toBeGreaterThan(TRIALS / 2);
    expect(figures.neverRan + figures.unknownOutcome + figures.resultMissing).toBeGreaterThan(0);
    expect(figures.recoveryRequestsChecked).toBeGreaterThan(0);
    expect(figures.verifyRuns).toBeGreaterThan(0);
    // Text a user saw stream before the kill is still in the conversation after the restart.
    expect(figures.lostReplies, figures.lostReplyExample).toBe(0);
  });
});
