// The macOS back end: a SandboxPolicy as a Seatbelt profile for `sandbox-exec -p`. Same policy
// as bubblewrap's, within what Seatbelt can say: reads allowed except hidden paths, writes only
// below writable roots minus protected paths (`require-not`, so order cannot undo them), network
// only to Keel's proxy on loopback. Generated and unit-tested here; it cannot run on Linux.
import type { SandboxPolicy } from "./policy.js";

/** A string literal in the profile's Scheme-like syntax. */
export function sbString(value: string): string {
  return `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

const subpath = (path: string) => `(subpath ${sbString(path)})`;
const literal = (path: string) => `(literal ${sbString(path)})`;

export interface SeatbeltOptions {
  /** The private temporary folder's path (macOS has no mount namespace to put it at /tmp). */
  tmpDir: string;
  /** Keel's proxy port on 127.0.0.1 when the policy allows the network through it. */
  proxyPort?: number;
}

/**
 * The Mach services a command may look up: logging, user and group lookups, temporary-folder
 * and certificate services. Not launchd's own (`launchctl submit` would start a job outside).
 */
const MACH_SERVICES = [
  "com.apple.logd",
  "com.apple.system.logger",
  "com.apple.system.notification_center",
  "com.apple.system.opendirectoryd.libinfo",
  "com.apple.system.opendirectoryd.membership",
  "com.apple.bsd.dirhelper",
  "com.apple.securityd.xpc",
  "com.apple.trustd.agent",
  "com.apple.lsd.mapdb",
  "com.apple.fonts",
];

export function seatbeltProfile(policy: SandboxPolicy, options: SeatbeltOptions): string {
  const lines = [
    "(version 1)",
    "(deny default)",
    "(allow process-exec)",
    "(allow process-fork)",
    "(allow process-info* (target same-sandbox))",
    "(allow signal (target same-sandbox))",
    "(allow sysctl-read)",
    "(allow user-preference-read)",
    "(allow ipc-posix-shm)",
    "(allow ipc-posix-sem)",
    `(allow mach-lookup ${MACH_SERVICES.map((name) => `(global-name ${sbString(name)})`).join(" ")})`,
    // Seatbelt is last-match-wins: reading is allowed everywhere, then the hidden paths are taken back.
    "(allow file-read*)",
  ];
  if (policy.hidden.length > 0)
    lines.push(
      `(deny file-read* ${policy.hidden.map((h) => (h.kind === "dir" ? subpath(h.path) : literal(h.path))).join(" ")})`,
    );
  const roots = [
    ...policy.writable.map(subpath),
    subpath(options.tmpDir),
    literal("/dev/null"),
    literal("/dev/tty"),
  ];
  // Hidden paths stay unwritable too: moved elsewhere, a hidden folder could be read there.
  const kept = [...policy.readOnly, ...policy.hidden].map((e) =>
    e.kind === "dir" ? subpath(e.path) : literal(e.path),
  );
  lines.push(
    kept.length > 0
      ? `(allow file-write* (require-all (require-any ${roots.join(" ")}) (require-not (require-any ${kept.join(" ")}))))`
      : `(allow file-write* (require-any ${roots.join(" ")}))`,
  );
  if (policy.network === "proxy" && options.proxyPort !== undefined)
    lines.push(`(allow network-outbound (remote ip ${sbString(`localhost:${options.proxyPort}`)}))`);
  return `${lines.join("\n")}\n`;
}
