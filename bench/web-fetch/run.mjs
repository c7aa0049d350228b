// WebFetch's own cost, against a local server (no network): a cold import of the package, HTML
// pages of growing size to Markdown (wall time, MB/s of HTML, peak RSS), and a 20 MB text page:
// time to the first window at the 10 MB download cap, then reading on from the session cache.
// Run after `pnpm build`: node --expose-gc bench/web-fetch/run.mjs [--runs 3]
import { execFileSync } from "node:child_process";
import { createServer } from "node:http";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const pkgUrl = pathToFileURL(join(root, "packages/extensions/web-search/dist/index.js")).href;
const sdkTesting = pathToFileURL(join(root, "packages/extension-sdk/dist/testing.js")).href;
const runs = process.argv.includes("--runs") ? Number(process.argv[process.argv.indexOf("--runs") + 1]) : 3;

// 1. Import cost in a fresh process (what a `keel` start pays for the extension), and that the
//    Tavily SDK is not among what it loads.
const importProbe = `
  const t0 = performance.now();
  await import(${JSON.stringify(pkgUrl)});
  const ms = performance.now() - t0;
  const { createRequire } = await import("node:module");
  const loaded = Object.keys(createRequire(import.meta.url).cache).some((p) => p.includes("tavily") || p.includes("tiktoken"));
  console.log(JSON.stringify({ ms, tavilyLoaded: loaded }));`;
const imports = [];
for (let i = 0; i < runs; i++)
  imports.push(
    JSON.parse(
      execFileSync(process.execPath, ["--input-type=module", "-e", importProbe], { encoding: "utf8" }),
    ),
  );
imports.sort((a, b) => a.ms - b.ms);

const { createWebSearchExtension } = await import(pkgUrl);
const { testRuntime, testToolContext } = await import(sdkTesting);

const article = (i) => `<article><header><h2>Section ${i}</h2></header>
<p>Paragraph ${i} with <a href="/docs/${i}">a link</a>, <strong>bold</strong> and <code>code()</code> in it, long enough to be a
real paragraph of documentation text that goes on for a while before it ends.</p>
<ul><li>first item ${i}</li><li>second item with <em>emphasis</em></li></ul>
<pre><code class="language-js">const x${i} = compute(${i});\nconsole.log(x${i});</code></pre>
<table><tr><th>k</th><th>v</th></tr><tr><td>${i}</td><td>${i * 2}</td></tr></table></article>`;
function page(bytes) {
  const head =
    "<!doctype html><html><head><title>Bench</title><script>var a=1;</script></head><body><nav><a href='/'>Home</a></nav><main>";
  const parts = [head];
  let size = head.length;
  for (let i = 0; size < bytes; i++) {
    const a = article(i);
    parts.push(a);
    size += a.length;
  }
  parts.push("</main><footer>footer</footer></body></html>");
  return parts.join("");
}

const pages = new Map([
  ["/100k", page(100_000)],
  ["/1m", page(1_000_000)],
  ["/3m", page(3_000_000)],
]);
const lineOf = (i) => `${String(i).padStart(8, "0")} ${"lorem ipsum ".repeat(7)}\n`;
const server = createServer((req, res) => {
  if (req.url === "/20m.txt") {
    res.writeHead(200, { "content-type": "text/plain" });
    let i = 0;
    const total = 20 * 1024 * 1024;
    const pump = () => {
      while (i * 93 < total) {
        if (!res.write(Array.from({ length: 500 }, () => lineOf(i++)).join("")))
          return void res.once("drain", pump);
      }
      res.end();
    };
    res.on("error", () => {});
    return pump();
  }
  res.setHeader("content-type", "text/html; charset=utf-8");
  res.end(pages.get(req.url) ?? "");
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${server.address().port}`;

async function webFetch() {
  const extension = createWebSearchExtension({ env: {}, network: { env: {} } });
  const config = {
    ...extension.configuration.default,
    fetch: { ...extension.configuration.default.fetch, allow: ["127.0.0.1"], cacheTtlMs: 60_000 },
  };
  const runtime = testRuntime(extension, { config });
  runtime.report = () => {};
  runtime.instance = await extension.lifecycle.activate({ ...runtime, signal: new AbortController().signal });
  const tool = extension.tools((t) => t, runtime).find((t) => t.name === "WebFetch");
  return (args) => tool.execute(args, testToolContext(), runtime);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [];
for (const [path, html] of pages) {
  const times = [];
  let rss = 0;
  for (let i = 0; i < runs; i++) {
    const run = await webFetch(); // a fresh session each time: no cache
    global.gc?.();
    const before = process.memoryUsage().rss;
    const t0 = performance.now();
    const result = await run({ url: `${base}${path}` });
    times.push(performance.now() - t0);
    rss = Math.max(rss, process.memoryUsage().rss - before);
    if (result.isError) throw new Error(result.content[0].text);
  }
  const ms = median(times);
  rows.push({
    page: `${path} (${(html.length / 1e6).toFixed(2)} MB HTML)`,
    medianMs: ms.toFixed(1),
    mbPerS: (html.length / 1e6 / (ms / 1000)).toFixed(1),
    rssGrowthMB: (rss / 1e6).toFixed(1),
  });
}

const big = [];
for (let i = 0; i < runs; i++) {
  const run = await webFetch();
  const t0 = performance.now();
  const first = await run({ url: `${base}/20m.txt` });
  const t1 = performance.now();
  await run({ url: `${base}/20m.txt`, offset: first.details.end });
  const t2 = performance.now();
  big.push([t1 - t0, t2 - t1]);
}
server.closeAllConnections();
server.close();

console.log(
  `import @keel/ext-web-search (fresh process, best/median of ${runs}): ${imports[0].ms.toFixed(1)} / ${imports[Math.floor(runs / 2)].ms.toFixed(1)} ms; @tavily/core loaded at import: ${imports.some((r) => r.tavilyLoaded)}`,
);
console.log(`HTML to Markdown through WebFetch (median of ${runs}, fresh session each):`);
console.table(rows);
console.log(
  `20 MB text page at the 10 MB cap: first window ${median(big.map((b) => b[0])).toFixed(1)} ms, reading on from the cache ${median(big.map((b) => b[1])).toFixed(2)} ms (medians of ${runs})`,
);
