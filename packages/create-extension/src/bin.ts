#!/usr/bin/env node
// `npm create @keel/extension <name> [--dir <folder>]` (npm runs this package's bin).
import { relative } from "node:path";
import { parseArgs } from "node:util";
import { createExtension, tarballName } from "./index.js";

const USAGE = "usage: npm create @keel/extension <name> [-- --dir <folder>]\n";

function main(): number {
  let parsed: ReturnType<
    typeof parseArgs<{
      options: { dir: { type: "string" }; help: { type: "boolean"; short: "h" } };
      allowPositionals: true;
    }>
  >;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: { dir: { type: "string" }, help: { type: "boolean", short: "h" } },
    });
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  if (parsed.values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const [pkg, ...extra] = parsed.positionals;
  if (!pkg || extra.length > 0) {
    process.stderr.write(
      `${pkg ? `one name only; got ${parsed.positionals.join(" ")}` : "missing the extension's package name"}\n${USAGE}`,
    );
    return 2;
  }
  const made = createExtension({
    pkg,
    cwd: process.cwd(),
    ...(parsed.values.dir ? { dir: parsed.values.dir } : {}),
  });
  if (!made.ok) {
    process.stderr.write(`${made.error.message}\n`);
    return made.error.type === "invalid_name" ? 2 : 1;
  }
  const where = relative(process.cwd(), made.dir) || ".";
  process.stdout.write(`Created ${where} (${made.pkg}, for @keel/extension-sdk ^${made.sdkVersion}).

Next:
  cd ${where}
  npm install && npm test
  npm pack && keel install ./${tarballName(made.pkg)}   # try it in keel
  npm publish                                  # then: keel install ${made.pkg}
`);
  return 0;
}

process.exitCode = main();
