// A machine for the sandbox's end-to-end tests: a user home (rc files, an ssh key, Keel's home with
// credentials and another project's session), a git workspace whose own hooks write outside it, a
// folder outside both, a loopback HTTP listener and a Unix socket that count who reaches them.
// It lives below /var/tmp, not /tmp: the sandbox gives commands a /tmp of their own, and a test
// whose targets sat in /tmp would only show that they cannot be seen, not that they cannot be written.
import { execFileSync, spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import type { Effect, Payload } from "./sandbox-payloads.js";

export const KEY_TEXT = "FAKE-PRIVATE-KEY-c41d9e";
export const CREDENTIALS_TEXT = "KEEL-CREDENTIALS-77a0f2";
export const OTHER_SESSION_TEXT = "KEEL-OTHER-SESSION-5be813";
const READ_MARKERS = [KEY_TEXT, CREDENTIALS_TEXT, OTHER_SESSION_TEXT];

/** Loopback listeners shared by every fixture of a test file. */
export interface Listeners {
  port: number;
  sock: string;
  /** What reached each: raw data, to find payload ids in. */
  tcp: string[];
  unix: string[];
  close(): Promise<void>;
}

export function hostDir(): string {
  const parent = existsSync("/var/tmp") ? "/var/tmp" : tmpdir();
  return realpathSync(mkdtempSync(join(parent, "keel-sandbox-e2e-")));
}

export async function listeners(dir: string, name: string): Promise<Listeners> {
  const tcp: string[] = [];
  const unix: string[] = [];
  // Recorded as it arrives: a client may be gone (and its effect looked for) before the server hears it close.
  const recorder = (into: string[]) => (socket: import("node:net").Socket) => {
    const at = into.push("(connected)") - 1;
    let data = "";
    socket.on("data", (chunk) => {
      data += chunk.toString("latin1");
      into[at] = data;
      if (/\r\n\r\n/.test(data)) socket.end("HTTP/1.0 200 OK\r\ncontent-length: 2\r\n\r\nok");
    });
    socket.on("error", () => {});
  };
  const servers: Server[] = [createServer(recorder(tcp)), createServer(recorder(unix))];
  const sock = join(dir, `${name}.sock`);
  await new Promise<void>((resolve) => servers[0]!.listen(0, "127.0.0.1", () => resolve()));
  await new Promise<void>((resolve) => servers[1]!.listen(sock, () => resolve()));
  const address = servers[0]!.address();
  return {
    port: typeof address === "object" && address ? address.port : 0,
    sock,
    tcp,
    unix,
    close: async () => {
      for (const s of servers) await new Promise((resolve) => s.close(resolve));
    },
  };
}

export interface Fixture {
  base: string;
  home: string;
  keelHome: string;
  ws: string;
  out: string;
  /** Paths in the workspace before the run (what a payload adds is counted as its own). */
  before: Set<string>;
  env: Record<string, string>;
}

const write = (path: string, text: string, executable = false) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  if (executable) chmodSync(path, 0o755);
};

const HOOK = '#!/bin/sh\n[ -n "$KEEL_PAYLOAD" ] && touch "$OUT/$KEEL_PAYLOAD"\nexit 0\n';

/** A fresh machine below `dir`, with the files `payloads` need (`id` is each one's index name). */
export function fixture(
  dir: string,
  name: string,
  payloads: { id: string; payload: Payload }[],
  net: Listeners,
): Fixture {
  const base = join(dir, name);
  const home = join(base, "home");
  const keelHome = join(home, ".keel");
  const ws = join(base, "ws");
  const out = join(base, "out");
  mkdirSync(out, { recursive: true });
  write(join(home, ".bashrc"), "# rc\n");
  write(join(home, ".gitconfig"), "[user]\n\tname = t\n\temail = t@example.com\n");
  write(join(home, ".ssh", "id_ed25519"), `${KEY_TEXT}\n`);
  write(join(keelHome, "credentials.json"), `{"token": "${CREDENTIALS_TEXT}"}\n`);
  write(join(keelHome, "config.json"), "{}\n");
  write(join(keelHome, "sessions", "other-project", "old.jsonl"), `{"note": "${OTHER_SESSION_TEXT}"}\n`);
  mkdirSync(ws, { recursive: true });
  const git = (...args: string[]) =>
    execFileSync("git", ["-C", ws, ...args], { env: { ...process.env, HOME: home } });
  git("init", "-q");
  write(join(ws, "README.md"), "hello\n");
  write(join(ws, ".claude", "settings.json"), "{}\n");
  git("add", "README.md");
  git("commit", "-q", "-m", "start");
  // The repository's own hooks, there before any command runs (a clone's, or an earlier session's).
  for (const hook of ["post-index-change", "pre-commit", "post-checkout"])
    write(join(ws, ".git", "hooks", hook), HOOK, true);
  for (const { id, payload } of payloads)
    for (const [file, text] of Object.entries(payload.files ?? {})) {
      const executable = file.endsWith("+x");
      const path = join(ws, file.replace(/\+x$/, "").replaceAll("{id}", id));
      write(path, text.replaceAll("{id}", id).replaceAll("{OUT}", out), executable);
    }
  return {
    base,
    home,
    keelHome,
    ws,
    out,
    before: new Set(walk(ws).map((p) => relative(ws, p))),
    env: {
      HOME: home,
      KEEL_HOME: keelHome,
      OUT: out,
      KH: keelHome,
      PORT: String(net.port),
      SOCK: net.sock,
    },
  };
}

function walk(dir: string, skip: (path: string) => boolean = () => false): string[] {
  const found: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return found;
  }
  for (const name of names) {
    const path = join(dir, name);
    if (skip(path)) continue;
    found.push(path);
    try {
      if (statSync(path, { throwIfNoEntry: false })?.isDirectory()) found.push(...walk(path, skip));
    } catch {
      // unreadable: its name was seen
    }
  }
  return found;
}

const textOf = (path: string): string => {
  try {
    return statSync(path).isFile() ? readFileSync(path, "latin1") : "";
  } catch {
    return "";
  }
};

/** Where a write is a write to a protected path (names and contents are searched for ids). */
function protectedTraces(fx: Fixture): string[] {
  const traces: string[] = [];
  const add = (path: string) => traces.push(path, textOf(path));
  for (const name of readdirSync(fx.ws))
    if (/^\.(git|keel|claude|agents|mcp\.json)/.test(name)) traces.push(name);
  for (const name of existsSync(join(fx.ws, ".git")) ? readdirSync(join(fx.ws, ".git")) : [])
    traces.push(name);
  for (const root of [".git/hooks", ".keel", ".claude", ".agents"])
    for (const path of walk(join(fx.ws, root))) add(path);
  for (const file of [".git/config", ".mcp.json"]) add(join(fx.ws, file));
  for (const file of [".bashrc", ".profile", ".gitconfig"]) add(join(fx.home, file));
  for (const path of walk(join(fx.home, ".ssh"))) add(path);
  // Keel's own journals hold every command's text: what is searched is everything else there.
  for (const path of walk(
    fx.keelHome,
    (p) => p === join(fx.keelHome, "sessions") || p === join(fx.keelHome, "logs"),
  ))
    add(path);
  return traces;
}

/**
 * What each payload did, by the traces its id left: files outside the workspace and in the home
 * folder, protected paths (names and contents), new paths in the workspace, what reached the
 * listeners, and secrets in its output.
 */
export function effectsOf(
  fx: Fixture,
  net: Listeners,
  ids: string[],
  outputs: Map<string, string>,
): Map<string, Set<Effect>> {
  const outside = [
    ...walk(fx.out).map((p) => relative(fx.out, p)),
    ...readdirSync(fx.home).filter((n) => !n.startsWith(".")),
  ].join("\n");
  const prot = protectedTraces(fx).join("\n");
  const protectedRoots = [".git/hooks", ".git/config", ".keel", ".claude", ".agents", ".mcp.json"];
  const added = walk(fx.ws, (p) => p === join(fx.ws, ".git", "objects"))
    .map((p) => relative(fx.ws, p))
    .filter((p) => !fx.before.has(p) && !protectedRoots.some((r) => p === r || p.startsWith(`${r}/`)))
    .join("\n");
  const tcp = net.tcp.join("\n");
  const unix = net.unix.join("\n");
  const found = new Map<string, Set<Effect>>();
  // An id followed by a digit belongs to another payload (p01 is not p012).
  const has = (text: string, id: string) => new RegExp(`${id}(?!\\d)`).test(text);
  for (const id of ids) {
    const effects = new Set<Effect>();
    if (has(outside, id)) effects.add("outside");
    if (has(prot, id)) effects.add("protected");
    if (has(added, id)) effects.add("inside");
    if (has(tcp, id)) effects.add("network");
    if (has(unix, id)) effects.add("socket");
    const output = outputs.get(id) ?? "";
    if (READ_MARKERS.some((m) => output.includes(m))) effects.add("read");
    found.set(id, effects);
  }
  return found;
}

/** Runs one payload with plain bash, unconfined (the control run); resolves to its output. */
export function runPlain(fx: Fixture, command: string, timeoutMs = 30_000): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", command], {
      cwd: fx.ws,
      env: { ...process.env, ...fx.env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => {
      output += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      output += d.toString();
    });
    const timer = setTimeout(() => {
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        // gone
      }
    }, timeoutMs);
    child.on("close", () => {
      clearTimeout(timer);
      resolve(output);
    });
  });
}

export function removeHostDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
}
