// The sandbox of one Keel process: turns a command (program, arguments, environment) into what
// to spawn under the policy of the permission mode in force at that moment, with the secrets
// taken out of its environment. Shared by the Bash tool (the session's agent and its children,
// so a child never gets more than its parent), `!cmd`, and the extension process API.
import type { ChildProcess } from "node:child_process";
import {
  chmodSync,
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Duplex, Readable } from "node:stream";
import { type SecretScrubber, secretScrubber } from "@keel/extension-sdk";
import { stillRunning } from "@keel/extension-sdk/node";
import { err, ok, type Result } from "neverthrow";
import { namesIn } from "../fs/paths.js";
import type { PermissionMode, PermissionRuleEntry } from "../permissions/types.js";
import { bwrapArgs, makePlaceholders } from "./bwrap.js";
import { commandEnvironment, MIN_SECRET_LENGTH } from "./env.js";
import { BRIDGE, LINK_FD, PROXY_PORT, serveLink } from "./network-link.js";
import { type SandboxPolicy, sandboxPolicy } from "./policy.js";
import { probeSandbox, type SandboxAvailability, type SandboxRefusal, unavailable } from "./probe.js";
import { type Lookup, type NetworkProxy, startProxy } from "./proxy.js";
import { readDenials } from "./read-denials.js";
import { seatbeltProfile } from "./seatbelt.js";
import { unixSocketFilter } from "./seccomp.js";
import type { SandboxSettings } from "./settings.js";

/** What the permission gate needs to know about the sandbox a command would run in. */
export type SandboxState =
  | { state: "on"; backend: "bwrap" | "seatbelt"; autoAllow: boolean }
  /** The user's choice (sandbox.enabled false, or bypassPermissions with sandbox.bypassPermissions "none"). */
  | { state: "off"; reason: string }
  /** No sandbox can start here: plan and dontAsk refuse commands, other modes ask for each. */
  | { state: "unavailable"; reason: string };

export type StdioEntry = "pipe" | "ignore" | "inherit" | number;

/** A command ready to spawn: `file` and `args` replace the original ones. */
export interface ConfinedSpawn {
  file: string;
  args: string[];
  env: Record<string, string>;
  /** stdio for spawn: the caller's first three, then what the sandbox passes (filter, network link). */
  stdio(first: StdioEntry[]): StdioEntry[];
  backend: "bwrap" | "seatbelt" | "none";
  /**
   * The sandbox's own program by its real path, as /proc shows it (absent: unconfined). Once the
   * command has exited, processes running it are the sandbox tearing itself down, not the command's.
   */
  launcher?: string;
  /** Call once spawned: serves the network link, if any. */
  attach(child: ChildProcess): void;
  /**
   * Call once the command exited. True when the sandbox itself proves that no process of the
   * command is left, so the process table need not be searched: bubblewrap's init in the command's
   * PID namespace has ended (it is killed when bubblewrap exits, `--die-with-parent`), and the
   * kernel ends every other process of a PID namespace before its init can end; nothing the
   * command starts can leave that namespace. False when that is not known within a few
   * milliseconds (unconfined, Seatbelt, an init still tearing down): then search.
   */
  ended(): Promise<boolean>;
  /** Call once the command exited: removes placeholders, closes what was opened for it. */
  release(): void;
}

export type { SandboxRefusal } from "./probe.js";

export interface CommandSandboxOptions {
  workspace: string;
  cwd: string;
  userHome: string;
  keelHome: string;
  settings: SandboxSettings;
  mode(): PermissionMode;
  rules(): readonly PermissionRuleEntry[];
  /** Where `KEEL_BWRAP` and the secrets to scrub are read (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Resolves the proxy's target hosts (tests stub it). */
  lookup?: Lookup;
  report?(message: string): void;
}

/** Read deny rules are expanded at most this often (a glob rule walks the tree). */
const DENIALS_TTL_MS = 2000;

/** Where bubblewrap writes its `--info-fd` JSON (after the filter on 3 and the network link on 4). */
const INFO_FD = 5;
/** How long `ended()` waits for the sandbox's init to finish its namespace, polling its /proc entry. */
const SETTLE_MS = 50;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class CommandSandbox {
  readonly settings: SandboxSettings;
  readonly #o: CommandSandboxOptions;
  #availability: Promise<SandboxAvailability> | undefined;
  readonly #probeStarted = Promise.withResolvers<SandboxAvailability>();
  #runtimeDir: string | undefined;
  #proxy: Promise<NetworkProxy> | undefined;
  readonly #secretNames = new Set<string>();
  readonly #secrets = new Set<string>();
  #scrubber: SecretScrubber | undefined;
  #denials: { key: string; at: number; paths: string[] } | undefined;
  readonly #reported = new Set<string>();
  readonly #launchers = new Map<string, string>();

  constructor(options: CommandSandboxOptions) {
    this.#o = options;
    this.settings = options.settings;
    for (const value of commandEnvironment(options.env ?? process.env).secrets) this.#secrets.add(value);
  }

  /**
   * Whether a sandbox can start here: probed on first need (a command, or the session's start line
   * once the first request is out), so a start sends its request before it spawns anything.
   */
  availability(): Promise<SandboxAvailability> {
    if (!this.#availability) {
      this.#availability = this.settings.enabled
        ? probeSandbox(this.#o.env ?? process.env)
        : Promise.resolve(unavailable("off"));
      this.#probeStarted.resolve(this.#availability);
    }
    return this.#availability;
  }

  /** The probe's answer once something has started it (this does not). */
  probed(): Promise<SandboxAvailability> {
    return this.#probeStarted.promise;
  }

  /** The sandbox a command would get in `mode`. */
  async state(mode: PermissionMode): Promise<SandboxState> {
    if (!this.settings.enabled) return { state: "off", reason: "sandbox.enabled is false in your config" };
    if (mode === "bypassPermissions" && this.settings.bypassPermissions === "none")
      return { state: "off", reason: 'sandbox.bypassPermissions is "none" in your config' };
    const found = await this.availability();
    if (found.isErr()) return { state: "unavailable", reason: found.error.message };
    return { state: "on", backend: found.value.kind, autoAllow: this.settings.autoAllow };
  }

  /**
   * A secret an extension holds: its variable is kept out of commands' environment and its value
   * scrubbed from every tool result.
   */
  protect(secret: { env?: string; value?: string }): void {
    if (secret.env) {
      this.#secretNames.add(secret.env);
      const value = (this.#o.env ?? process.env)[secret.env];
      if (value) this.#addSecret(value);
    }
    if (secret.value) this.#addSecret(secret.value);
  }

  #addSecret(value: string): void {
    if (value.length < 4 || this.#secrets.has(value)) return;
    this.#secrets.add(value);
    this.#scrubber = undefined;
  }

  /** Scrubs every secret known so far (environment, login shell, extensions) from a tool result. */
  scrubber(): SecretScrubber {
    this.#scrubber ??= secretScrubber([...this.#secrets]);
    return this.#scrubber;
  }

  #once(message: string): void {
    if (this.#reported.has(message)) return;
    this.#reported.add(message);
    this.#o.report?.(message);
  }

  #runtime(): string {
    if (this.#runtimeDir) return this.#runtimeDir;
    const uid = typeof process.getuid === "function" ? process.getuid() : "user";
    const base = join(tmpdir(), `keel-sandbox-${uid}`);
    mkdirSync(base, { recursive: true, mode: 0o700 });
    pruneStale(base);
    const dir = mkdtempSync(join(base, `${process.pid}-`));
    mkdirSync(join(dir, "empty"));
    writeFileSync(join(dir, "empty-file"), "");
    mkdirSync(join(dir, "tmp"), { mode: 0o700 });
    const filter = unixSocketFilter();
    if (filter) writeFileSync(join(dir, "seccomp.bpf"), filter);
    chmodSync(join(dir, "empty"), 0o555);
    chmodSync(join(dir, "empty-file"), 0o444);
    this.#runtimeDir = dir;
    return dir;
  }

  #readDenied(): string[] {
    const rules = this.#o.rules();
    const key = JSON.stringify(rules.filter((r) => r.behavior === "deny").map((r) => r.rule));
    if (this.#denials && this.#denials.key === key && Date.now() - this.#denials.at < DENIALS_TTL_MS)
      return this.#denials.paths;
    const found = readDenials(rules, this.#o.workspace, this.#o.userHome);
    for (const rule of found.incomplete)
      this.#once(
        `The sandbox hides what matches ${rule} within the first files it walks; more matches may be readable by commands.`,
      );
    this.#denials = { key, at: Date.now(), paths: found.paths };
    return found.paths;
  }

  /** The policy for `mode` now (for `/sandbox`-style reports and tests). */
  policy(mode: PermissionMode, cwd: string = this.#o.cwd): SandboxPolicy {
    return sandboxPolicy({
      mode,
      workspace: this.#o.workspace,
      cwd,
      userHome: this.#o.userHome,
      keelHome: this.#o.keelHome,
      privateTmp: join(this.#runtime(), "tmp"),
      allowWrite: this.settings.allowWrite,
      readDenied: this.#readDenied(),
      networkAllowed: this.settings.allowedDomains.length > 0,
    });
  }

  #launcher(path: string): string {
    let real = this.#launchers.get(path);
    if (real === undefined) {
      try {
        real = realpathSync(path);
      } catch {
        real = path;
      }
      this.#launchers.set(path, real);
    }
    return real;
  }

  #proxyPort(): Promise<NetworkProxy> {
    this.#proxy ??= startProxy({
      allowedDomains: this.settings.allowedDomains,
      ...(this.#o.lookup ? { lookup: this.#o.lookup } : {}),
    });
    return this.#proxy;
  }

  /**
   * Wraps `command` for the mode in force now. Refused (fail closed) only when no sandbox can
   * start and the mode must not run anything unconfined (plan, dontAsk).
   */
  async confine(command: {
    file: string;
    args: readonly string[];
    cwd: string;
    env: Readonly<Record<string, string | undefined>>;
  }): Promise<Result<ConfinedSpawn, SandboxRefusal>> {
    const mode = this.#o.mode();
    const state = await this.state(mode);
    const cleaned = commandEnvironment(command.env, {
      allow: this.settings.allowEnv,
      extraSecretNames: this.#secretNames,
    });
    for (const value of cleaned.secrets) if (value.length >= MIN_SECRET_LENGTH) this.#addSecret(value);
    const unconfined = (): ConfinedSpawn => ({
      file: command.file,
      args: [...command.args],
      env: cleaned.env,
      stdio: (first) => first,
      backend: "none",
      attach: () => {},
      ended: async () => false,
      release: () => {},
    });
    if (state.state === "off") return ok(unconfined());
    if (state.state === "unavailable") {
      if (mode === "plan" || mode === "dontAsk")
        return err({
          type: "sandbox_unavailable",
          message: `Not run: no OS sandbox can start here (${state.reason}), and ${mode} mode runs no command unconfined.`,
        });
      return ok(unconfined());
    }
    const available = await this.availability();
    if (available.isErr()) return ok(unconfined());
    const backend = available.value;
    const policy = this.policy(mode, command.cwd);
    const proxy = policy.network === "proxy" ? await this.#proxyPort() : undefined;
    const env = { ...cleaned.env, ...(proxy ? proxyEnv() : {}) };
    const runtime = this.#runtime();

    if (backend.kind === "seatbelt") {
      // macOS: no mount namespace, so plan mode's private /tmp is a folder of its own per command.
      const tmp = policy.tmp.kind === "private" ? policy.tmp.dir : mkdtempSync(join(runtime, "plan-"));
      const profile = seatbeltProfile(policy, { tmpDir: tmp, ...(proxy ? { proxyPort: proxy.port } : {}) });
      return ok({
        file: backend.path,
        args: ["-p", profile, command.file, ...command.args],
        env: { ...env, TMPDIR: tmp, ...(proxy ? proxyEnv(proxy.port) : {}) },
        stdio: (first) => first,
        backend: "seatbelt",
        launcher: this.#launcher(backend.path),
        attach: () => {},
        ended: async () => false,
        release: () => {
          if (policy.tmp.kind === "ephemeral") rmSync(tmp, { recursive: true, force: true });
        },
      });
    }

    const filter = backend.seccomp ? openSync(join(runtime, "seccomp.bpf"), "r") : undefined;
    const removePlaceholders = makePlaceholders(policy.readOnly);
    const args = bwrapArgs(
      policy,
      { emptyDir: join(runtime, "empty"), emptyFile: join(runtime, "empty-file") },
      {
        disableUserns: backend.disableUserns,
        ...(filter !== undefined ? { seccompFd: 3 } : {}),
        infoFd: INFO_FD,
      },
    );
    const program = proxy
      ? [process.execPath, "-e", BRIDGE, "--", String(PROXY_PORT), command.file, ...command.args]
      : [command.file, ...command.args];
    let filterOpen = filter !== undefined;
    const closeFilter = () => {
      if (!filterOpen || filter === undefined) return;
      filterOpen = false;
      closeSync(filter);
    };
    let released = false;
    let info: Readable | undefined;
    let sandboxInit: number | undefined;
    return ok({
      file: backend.path,
      args: [...args, "--", ...program],
      env,
      // fd 3: the filter bwrap reads (or nothing), fd 4: the network link (or nothing), fd 5: bwrap's info.
      stdio: (first) => [...first, filter ?? "ignore", proxy ? "pipe" : "ignore", "pipe"],
      backend: "bwrap",
      launcher: this.#launcher(backend.path),
      attach: (child) => {
        // The child has its own copy now.
        closeFilter();
        const link = child.stdio[LINK_FD] as Duplex | null | undefined;
        if (proxy && link) serveLink(link, proxy.port);
        info = ((child.stdio as unknown[])[INFO_FD] as Readable | null | undefined) ?? undefined;
        let text = "";
        info?.setEncoding("utf8");
        info?.on("error", () => {});
        // bubblewrap writes it once, before the command starts; the command never holds this pipe.
        info?.on("data", (chunk: string) => {
          text += chunk;
          const pid = /"child-pid"\s*:\s*(\d+)\s*[,}]/.exec(text);
          if (pid) sandboxInit = Number(pid[1]);
        });
      },
      ended: async () => {
        // Gone, or a zombie: either way it ended, after every other process of its namespace.
        const gone = () => sandboxInit !== undefined && !stillRunning({ pid: sandboxInit });
        for (const started = Date.now(); !gone(); await sleep(1))
          if (Date.now() - started >= SETTLE_MS) return false;
        return true;
      },
      release: () => {
        closeFilter();
        info?.destroy();
        if (released) return;
        released = true;
        removePlaceholders();
      },
    });
  }

  async close(): Promise<void> {
    const proxy = this.#proxy;
    this.#proxy = undefined;
    if (proxy) await (await proxy).close();
    if (this.#runtimeDir) rmSync(this.#runtimeDir, { recursive: true, force: true });
    this.#runtimeDir = undefined;
  }
}

/** Removes the folders of keel processes that are gone (killed before they could clean up). */
function pruneStale(base: string): void {
  for (const name of namesIn(base)) {
    const pid = Number(/^(\d+)-/.exec(name)?.[1]);
    if (!pid || pid === process.pid || processExists(pid)) continue;
    rmSync(join(base, name), { recursive: true, force: true });
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The one line said at start when commands will not run as the sandbox's README promises; undefined otherwise. */
export function sandboxNotice(
  state: SandboxState,
  mode: PermissionMode,
): { level: "info" | "warning"; message: string } | undefined {
  if (state.state === "unavailable")
    return {
      level: "warning",
      message: `No OS sandbox: ${state.reason}. Plan and dontAsk modes refuse commands; default and acceptEdits ask before each one; bypassPermissions runs them unconfined.`,
    };
  if (state.state === "off")
    return mode === "bypassPermissions"
      ? { level: "warning", message: `bypassPermissions: commands run unconfined (${state.reason}).` }
      : {
          level: "info",
          message: `The OS sandbox is off (${state.reason}): commands are judged by parsing their text alone.`,
        };
  return undefined;
}

/** What points commands' HTTP clients at the proxy (curl, git, npm, pip; Node's fetch with NODE_USE_ENV_PROXY). */
function proxyEnv(port: number = PROXY_PORT): Record<string, string> {
  const url = `http://127.0.0.1:${port}`;
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    ALL_PROXY: url,
    all_proxy: url,
    NO_PROXY: "",
    no_proxy: "",
    NODE_USE_ENV_PROXY: "1",
  };
}
