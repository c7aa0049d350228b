#!/usr/bin/env node
// keel entry point: parse the command line; --help and --version answer without loading the core.
// Built as dist/bin.cjs; the core (everything else, kernel included) is dist/keel.cjs.
import { createRequire } from "node:module";
import type * as Acp from "./acp/front.js";
import { parseCliArgs } from "./args.js";
import { codeCacheDir, enableModuleCache, moduleCacheDir, requireWithCodeCache } from "./code-cache.js";
import { EXIT } from "./exit-codes.js";
import { exitProcess } from "./exit-process.js";
import { HELP } from "./help.js";
import type * as Core from "./main.js";
import { nodeTooOld } from "./node-version.js";

// dist/bin.cjs and src/bin.ts both sit one level below package.json.
const require = createRequire(import.meta.url);

function version(): string {
  return (require("../package.json") as { version: string }).version;
}

/** KEEL_REPORT_RSS=1: peak resident memory on stderr at exit, for benches without /usr/bin/time. */
function reportRss(): void {
  if (process.env.KEEL_REPORT_RSS === "1")
    process.stderr.write(`keel: maxRSS ${process.resourceUsage().maxRSS} KB\n`);
}

/** The core, from V8's code cache unless KEEL_CODE_CACHE=0. */
function loadCore(): typeof Core {
  const cacheDir = process.env.KEEL_CODE_CACHE === "0" ? undefined : codeCacheDir();
  if (cacheDir !== undefined) enableModuleCache(moduleCacheDir());
  const file = require.resolve("./keel.cjs");
  const loaded = requireWithCodeCache(file, cacheDir);
  // KEEL_REPORT_CODE_CACHE=1: whether this start compiled or reused, for tests and benches.
  if (process.env.KEEL_REPORT_CODE_CACHE === "1") process.stderr.write(`keel: code cache ${loaded.cache}\n`);
  return loaded.exports as typeof Core;
}

/** `keel acp`'s protocol front: a small bundle that answers `initialize` before the core loads. */
function loadAcp(): typeof Acp {
  const file = require.resolve("./acp.cjs");
  return requireWithCodeCache(file, process.env.KEEL_CODE_CACHE === "0" ? undefined : codeCacheDir())
    .exports as typeof Acp;
}

async function run(): Promise<number> {
  const tooOld = nodeTooOld(process.versions.node);
  if (tooOld) {
    process.stderr.write(`${tooOld}\n`);
    return EXIT.usage;
  }
  const parsed = parseCliArgs(process.argv.slice(2));
  if (parsed.isErr()) {
    process.stderr.write(`keel: ${parsed.error.message}\nRun keel --help for the options.\n`);
    return EXIT.usage;
  }
  const command = parsed.value;
  if (command.kind === "help") {
    process.stdout.write(HELP);
    return EXIT.ok;
  }
  if (command.kind === "version") {
    process.stdout.write(`keel ${version()}\n`);
    return EXIT.ok;
  }
  if (command.kind === "models") return loadCore().models(command.flags);
  if (command.kind === "subcommand" && command.name === "acp")
    return loadAcp().runAcp(command.argv, version(), () => loadCore().acpBackend(command.argv));
  if (command.kind === "subcommand") return loadCore().subcommand(command.name, command.argv);
  return loadCore().main(command.flags);
}

// The event loop ran dry before run() settled, and nothing else noticed (the exit guard does
// while a run is on): keel must not end as if it had succeeded.
process.on("beforeExit", () => {
  // A run's exit guard handles it (an extension's own beforeExit listener must not silence this).
  if ((globalThis as Record<symbol, unknown>)[Symbol.for("keel.exitGuarded")] === true) return;
  process.stderr.write(
    "keel: stopped before finishing, with nothing left to wait for (a bug: please report it).\n",
  );
  process.exitCode = EXIT.failed;
});

// Exit explicitly: idle keep-alive sockets of the provider SDKs must not hold the process open.
void run().then((code) => {
  reportRss();
  exitProcess(code);
});
