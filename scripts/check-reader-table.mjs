// Compares the permission checker's reader table (packages/coding-agent/src/permissions/shell/
// readers.ts) with the man pages installed on this machine: options a man page lists that the
// table lacks (those make the command ask), and table options no man page lists (typos, or
// another version). After `pnpm build`: node scripts/check-reader-table.mjs [command…]
// Needs man-db and the packages' man pages (Debian: apt-get install man-db manpages coreutils …).
import { spawnSync } from "node:child_process";
import { READERS } from "../packages/coding-agent/dist/permissions/shell/readers.js";

const only = process.argv.slice(2);
/** Builtins and commands whose man page is another's. */
const PAGE = {
  egrep: "grep",
  fgrep: "grep",
  mawk: "mawk",
  gawk: "gawk",
  awk: "gawk",
  type: null,
  echo: null,
  pwd: null,
  true: null,
  false: null,
  test: null,
  "[": null,
};

function manOptions(page) {
  const out = spawnSync("man", ["-P", "cat", page], {
    encoding: "utf8",
    env: { ...process.env, MANWIDTH: "200" },
  });
  if (out.status !== 0 || !out.stdout) return undefined;
  const text = out.stdout.replace(/.\x08/g, "");
  const found = new Set();
  for (const line of text.split("\n")) {
    // Option lines: indented, starting with a dash; the names come before the description.
    const m = /^\s{3,12}(-[^\s].*)$/.exec(line);
    if (!m) continue;
    const head = m[1].split(/\s{2,}|\t/)[0];
    for (const name of head.matchAll(/(?:^|[\s,])(--?[A-Za-z0-9?.][\w-]*)/g)) found.add(name[1]);
  }
  return found;
}

let missing = 0;
let stale = 0;
for (const [name, spec] of READERS) {
  if (only.length > 0 && !only.includes(name)) continue;
  const page = name in PAGE ? PAGE[name] : name;
  if (page === null) continue;
  const documented = manOptions(page);
  if (!documented) {
    console.log(`${name}: no man page here (the row cites ${spec.source})`);
    continue;
  }
  const table = new Set([
    ...[...spec.options.short.keys()].map((k) => `-${k}`),
    ...[...spec.options.long.keys()].map((k) => `--${k}`),
  ]);
  const notInTable = [...documented].filter((o) => !table.has(o) && !/^-\d$/.test(o));
  const notInMan = [...table].filter((o) => !documented.has(o));
  missing += notInTable.length;
  stale += notInMan.length;
  const parts = [];
  if (notInTable.length > 0) parts.push(`man page only (these make it ask): ${notInTable.join(" ")}`);
  if (notInMan.length > 0) parts.push(`table only: ${notInMan.join(" ")}`);
  console.log(`${name} (${spec.source}): ${parts.length === 0 ? "matches its man page" : parts.join("; ")}`);
}
console.log(
  `\n${missing} documented option(s) missing from the table, ${stale} table option(s) not in a man page here.`,
);
