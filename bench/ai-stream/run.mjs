// Streaming overhead of Keel's stream() over a bare @anthropic-ai/sdk loop, on one ~5 MB
// scripted text reply (fixture.mjs says what each side does). Run after `pnpm build`:
//   node bench/ai-stream/run.mjs [--mb 5] [--chunk 16] [--runs 9] [--server child|local]
//     [--transport same|default] [--dist dir]
// The replay server runs in a child process by default, so both sides' figures are client
// work only; `--server local` serves from this process as earlier versions of this bench did.
// Wall time is noisy on a shared machine: the rounds interleave the sides (alternating which
// goes first) and the report gives the median and the best of each, for wall and CPU time.
// For figures that do not drift with load, count instructions with count.mjs.
import { parseArgs } from "node:util";
import { FIXTURE_OPTIONS, setupFromArgs } from "./fixture.mjs";

const { values: args } = parseArgs({
  options: {
    ...FIXTURE_OPTIONS,
    mb: { type: "string", default: "5" },
    runs: { type: "string", default: "9" },
  },
});
const RUNS = Number(args.runs);
const fixture = await setupFromArgs(args);

async function measure(fn) {
  const start = process.hrtime.bigint();
  const cpuStart = process.cpuUsage();
  const result = await fn();
  const cpu = process.cpuUsage(cpuStart);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  fixture.check(result);
  return { seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, count: result.count };
}

// One warm-up pass each, so both are measured with their code optimized.
await fixture.bare();
await fixture.keel();
const results = { bare: [], keel: [] };
for (let i = 0; i < RUNS; i++) {
  const order = i % 2 === 0 ? ["bare", "keel"] : ["keel", "bare"];
  for (const side of order) results[side].push(await measure(fixture[side]));
}
fixture.close();

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const stats = (list) => ({
  count: list[0].count,
  wall: { median: median(list.map((r) => r.seconds)), best: Math.min(...list.map((r) => r.seconds)) },
  cpu: { median: median(list.map((r) => r.cpuSeconds)), best: Math.min(...list.map((r) => r.cpuSeconds)) },
});
const b = stats(results.bare);
const k = stats(results.keel);
const mb = fixture.text.length / (1024 * 1024);
const ms = (s) => `${(s * 1000).toFixed(0)} ms`;
const report = (name, r) =>
  console.log(
    `${name.padEnd(22)} ${(r.count / r.wall.median).toFixed(0).padStart(7)} events/s median, ` +
      `${(r.count / r.wall.best).toFixed(0).padStart(7)} best  ` +
      `(${r.count} events; wall ${ms(r.wall.median)} median, ${ms(r.wall.best)} best; ` +
      `CPU ${ms(r.cpu.median)} median, ${ms(r.cpu.best)} best)`,
  );
console.log(
  `ai-stream: ${mb.toFixed(1)} MB of text in ${args.chunk}-char deltas, ` +
    `${(fixture.captured.length / 1048576).toFixed(1)} MB of SSE, ${RUNS} interleaved runs, ${args.server} server, ${args.transport} transport`,
);
report("bare @anthropic-ai/sdk", b);
report("keel stream()", k);
const pct = (x, y) => `${(((x - y) / y) * 100).toFixed(1)}%`;
console.log(
  `keel overhead: wall ${pct(k.wall.median, b.wall.median)} median, ${pct(k.wall.best, b.wall.best)} best; ` +
    `CPU ${pct(k.cpu.median, b.cpu.median)} median, ${pct(k.cpu.best, b.cpu.best)} best (goal <= 10%)`,
);
