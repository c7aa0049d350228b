#!/usr/bin/env node
// keel-mock-server: serves a scenario file (or stdin) on 127.0.0.1 until SIGTERM/SIGINT,
// announcing itself as one JSON line on stdout for shells and other packages' e2e tests.
import { readFileSync } from "node:fs";
import { startMockServer } from "./server.js";
import { checkScenario } from "./validate.js";

const USAGE = `usage: keel-mock-server [scenario.json | -] [--port N]
Reads the scenario from the file, or from stdin when the argument is "-" or absent and stdin is
not a terminal. Prints {"port":N,"url":"http://127.0.0.1:N",...} and serves until SIGTERM/SIGINT.
Control routes: GET /__keel/requests (recorded requests), POST /__keel/scenario (replace it).`;

function fail(message: string, code = 2): never {
  process.stderr.write(`keel-mock-server: ${message}\n`);
  process.exit(code);
}

function parseArgs(argv: string[]): { file: string | undefined; port: number } {
  let file: string | undefined;
  let port = 0;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "-h" || arg === "--help") {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    }
    const portText = arg === "--port" ? argv[++i] : arg.startsWith("--port=") ? arg.slice(7) : undefined;
    if (portText !== undefined) {
      port = Number(portText);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        fail(`--port needs a number 0-65535, got ${portText}`);
    } else if (arg.startsWith("-") && arg !== "-") {
      fail(`unknown option ${arg}\n${USAGE}`);
    } else if (file === undefined) {
      file = arg;
    } else {
      fail(`one scenario file only, got ${file} and ${arg}`);
    }
  }
  return { file, port };
}

function readScenarioText(file: string | undefined): string {
  if (file !== undefined && file !== "-") {
    try {
      return readFileSync(file, "utf8");
    } catch (error) {
      return fail(`cannot read ${file}: ${String(error)}`);
    }
  }
  if (file === undefined && process.stdin.isTTY) return '{"turns":[]}';
  return readFileSync(0, "utf8");
}

const { file, port } = parseArgs(process.argv.slice(2));
const text = readScenarioText(file).trim() || '{"turns":[]}';
let parsed: unknown;
try {
  parsed = JSON.parse(text);
} catch (error) {
  fail(`the scenario is not JSON: ${String(error)}`);
}
const check = checkScenario(parsed);
if (!check.ok) fail(check.error.message);

const server = await startMockServer(check.scenario, { port }).catch((error: unknown) =>
  fail(`cannot listen on 127.0.0.1:${port}: ${String(error)}`, 1),
);
process.stdout.write(
  `${JSON.stringify({
    port: server.port,
    url: server.url,
    anthropicBaseUrl: server.anthropicBaseUrl,
    openaiBaseUrl: server.openaiBaseUrl,
  })}\n`,
);

const stop = () => {
  server.close().then(
    () => process.exit(0),
    () => process.exit(0),
  );
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
