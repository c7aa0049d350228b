// Kernel crash torture at bench size: the test's driver over dist, printing what the kills hit
// (classification counts, acknowledged steps, recovery checks) and the time it took.
// Usage: node bench/crash/run.mjs [--trials 200] [--seed 1] [--concurrency 2]
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { builtKernel } from "../../packages/coding-agent/test/crash/fixtures/built.mjs";
import { runCrashTorture } from "../../packages/coding-agent/test/crash/fixtures/torture.mjs";

const { values } = parseArgs({
  options: {
    trials: { type: "string", default: "200" },
    seed: { type: "string", default: "1" },
    concurrency: { type: "string", default: "4" },
  },
});

const moduleUrl = builtKernel((line) => console.log(line));
const session = await import("../../packages/session/dist/index.js");
const { startMockServer } = await import("../../packages/testing/dist/index.js");

/** CPU seconds of this process and of its reaped children (Linux /proc; null elsewhere). */
function cpuSeconds() {
  try {
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
    // After the command name: state is field 3, utime..cstime are fields 14..17 (clock ticks).
    const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number);
    return { self: (utime + stime) / 100, children: (cutime + cstime) / 100 };
  } catch {
    return null;
  }
}

const cpuBefore = cpuSeconds();
const figures = await runCrashTorture({
  session,
  startMockServer,
  moduleUrl,
  trials: Number(values.trials),
  seed: Number(values.seed),
  concurrency: Number(values.concurrency),
});
const cpuAfter = cpuSeconds();

const row = (label, value) => console.log(`${label.padEnd(34)} ${value}`);
console.log(
  `kernel crash torture: ${figures.trials} trials, seed ${values.seed}, concurrency ${values.concurrency}`,
);
row("kills after BOOT/READY/1st reply/1st turn", Object.values(figures.killedAt).join(" / "));
row("acked tool ends (op_end + file)", figures.acked.tools);
row("acked tool results", figures.acked.results);
row("acked assistant messages", figures.acked.assistants);
row("acked turn ends", figures.acked.turns);
row("never_ran (no file)", figures.neverRan);
row("unknown_outcome (with file)", `${figures.unknownOutcome} (${figures.unknownWritten})`);
row("result_missing", figures.resultMissing);
row("interrupted replies kept / lost", `${figures.keptReplies} / ${figures.lostReplies}`);
row("restart requests checked", figures.recoveryRequestsChecked);
row("recovery results checked", figures.recoveryToolResultsChecked);
row("verify runs (no recovery left)", figures.verifyRuns);
row("torn tails seen", figures.tornTails);
row("Write temp files left by kills", figures.tempFilesLeft);
row("model requests", figures.requests);
row(
  "elapsed",
  `${(figures.elapsedMs / 1000).toFixed(1)} s (${(figures.elapsedMs / figures.trials).toFixed(0)} ms/trial)`,
);
if (cpuBefore && cpuAfter) {
  const self = cpuAfter.self - cpuBefore.self;
  const children = cpuAfter.children - cpuBefore.children;
  row("cpu parent + children", `${self.toFixed(1)} s + ${children.toFixed(1)} s`);
}
if (figures.lostReplies > 0) {
  console.log(`FAIL: ${figures.lostReplyExample}`);
  process.exitCode = 1;
}
