// What validating plain JSON Schema tool arguments costs and keeps, when catalogs are rediscovered
// (each list_changed brings fresh schema objects): heap retained after N fresh schemas, and the
// time per validation of a fresh and of an already-seen schema.
// Run after `pnpm --filter @keel/ai build`: node --expose-gc bench/json-schema/run.mjs [--schemas 5000]
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const { validateToolArguments } = await import(pathToFileURL(join(root, "packages/ai/dist/index.js")).href);

const flag = (name, fallback) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);
const SCHEMAS = flag("schemas", 5000);
if (!global.gc) throw new Error("run with node --expose-gc");

/** An MCP-style inputSchema, a new object each time as a rediscovery delivers it. */
const schema = () => ({
  type: "object",
  properties: {
    owner: { type: "string" },
    limit: { anyOf: [{ type: "integer", minimum: 1 }, { type: "null" }] },
    labels: { type: "array", items: { $ref: "#/$defs/label" } },
  },
  required: ["owner"],
  $defs: { label: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } },
});
const args = { owner: "acme", limit: "5", labels: [{ name: "bug" }] };
const validate = (parameters) => validateToolArguments({ name: "t", parameters }, args);

global.gc();
const heapBefore = process.memoryUsage().heapUsed;
let started = performance.now();
for (let i = 0; i < SCHEMAS; i++) if (validate(schema()).isErr()) throw new Error("should validate");
const freshMs = (performance.now() - started) / SCHEMAS;
global.gc();
const retainedMb = (process.memoryUsage().heapUsed - heapBefore) / 1e6;

const seen = schema();
validate(seen);
started = performance.now();
for (let i = 0; i < SCHEMAS; i++) validate(seen);
const seenMs = (performance.now() - started) / SCHEMAS;

console.log(`${SCHEMAS} fresh schemas: ${freshMs.toFixed(2)} ms per validation (compile included)`);
console.log(`heap retained after them: ${retainedMb.toFixed(1)} MB`);
console.log(`an already-seen schema: ${(seenMs * 1000).toFixed(1)} µs per validation`);
