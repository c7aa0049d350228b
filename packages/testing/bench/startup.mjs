// Measures keel-mock-server's time from spawn to its announcement line, and the throughput of
// streamed replies over the socket. Run after `pnpm build`: node bench/startup.mjs
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";

async function startup() {
  const started = performance.now();
  const child = spawn(process.execPath, ["dist/bin.js", "-"], { stdio: ["pipe", "pipe", "inherit"] });
  child.stdin.end(JSON.stringify({ turns: [], fallback: { text: "x".repeat(2000), chunkSize: 16 } }));
  const line = await new Promise((resolve) => child.stdout.once("data", (d) => resolve(String(d))));
  return { child, ms: performance.now() - started, url: JSON.parse(line).url };
}

const runs = [];
for (let i = 0; i < 5; i++) {
  const { child, ms } = await startup();
  runs.push(ms);
  child.kill("SIGTERM");
}
runs.sort((a, b) => a - b);
console.log(
  `startup to announcement: median ${runs[2].toFixed(0)} ms (min ${runs[0].toFixed(0)}, max ${runs[4].toFixed(0)})`,
);

const { child, url } = await startup();
const count = 200;
const began = performance.now();
for (let i = 0; i < count; i++) {
  const response = await fetch(`${url}/v1/messages`, { method: "POST", body: '{"model":"m","stream":true}' });
  await response.text();
}
const seconds = (performance.now() - began) / 1000;
console.log(
  `${count} streamed replies of 2000 chars (125 events each): ${(count / seconds).toFixed(0)} replies/s`,
);
child.kill("SIGTERM");
