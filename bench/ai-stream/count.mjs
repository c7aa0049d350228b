// Passes of one side of the ai-stream bench, for instruction counts that do not drift with
// machine load. The steady cost of a pass is the difference between --passes 4 and --passes 2
// (which leaves out start-up and JIT warm-up), halved. --single-threaded keeps V8's compiler
// and GC on the main thread, so runs repeat; the replay server (a child) is not counted:
//   valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.%p \
//     node --single-threaded bench/ai-stream/count.mjs --side keel --mb 1 --passes 4
import { parseArgs } from "node:util";
import { FIXTURE_OPTIONS, setupFromArgs } from "./fixture.mjs";

const { values: args } = parseArgs({
  options: {
    ...FIXTURE_OPTIONS,
    side: { type: "string", default: "keel" },
    mb: { type: "string", default: "1" },
    passes: { type: "string", default: "1" },
  },
});
const fixture = await setupFromArgs(args);
if (args.side === "bare" || args.side === "keel") {
  for (let pass = 0; pass < Number(args.passes); pass++) {
    const { count } = fixture.check(await fixture[args.side]());
    console.log(`${args.side}: ${count} events`);
  }
} else if (args.side !== "none") {
  throw new Error(`--side must be bare, keel or none, not ${args.side}`);
}
fixture.close();
