// Example extension: a desktop notification when a run took longer than a threshold, so you can
// look away from long tasks.
//
// Use:   keel -e examples/extensions/notify.ts
// Tune:  KEEL_NOTIFY_AFTER_MS=10000 keel -e examples/extensions/notify.ts   (default 30000; 0 = always)
//
// It writes OSC 777 and OSC 9 (understood by many terminals: iTerm2, WezTerm, kitty, foot, …) when
// stdout is a terminal, and runs `notify-send` (Linux) or `osascript` (macOS) when present.
// A missing notifier is skipped silently: a notification is never worth a failed run.
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import type { KeelAPI, RunEndEvent } from "@keel/extension-sdk";

const DEFAULT_AFTER_MS = 30_000;
/** The hook has a deadline; a notifier that hangs must not hold the run's end past this. */
const NOTIFIER_WAIT_MS = 2_000;

export default function notify(keel: KeelAPI): void {
  let warned = false;
  keel.on("runEnd", async (event, runtime) => {
    const after = thresholdMs();
    if (after === undefined && !warned) {
      warned = true;
      runtime.report("warning", "KEEL_NOTIFY_AFTER_MS is not a number of milliseconds; using 30000");
    }
    if (event.durationMs < (after ?? DEFAULT_AFTER_MS)) return;
    const text = describe(event);
    if (process.stdout.isTTY) process.stdout.write(terminalNotification(text));
    await desktopNotification(text);
  });
}

function thresholdMs(): number | undefined {
  // biome-ignore lint/suspicious/noUndeclaredEnvVars: read by the running agent, not by a build task
  const raw = process.env.KEEL_NOTIFY_AFTER_MS;
  if (raw === undefined || raw.trim() === "") return DEFAULT_AFTER_MS;
  const value = Number(raw);
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

function describe(event: RunEndEvent): string {
  const took = `${Math.round(event.durationMs / 1000)}s`;
  if (event.stopReason === "error") return `Failed after ${took}: ${event.error?.message ?? "error"}`;
  if (event.stopReason === "aborted") return `Stopped after ${took}`;
  return `Done in ${took} (${event.turns} turn${event.turns === 1 ? "" : "s"})`;
}

/** OSC 777 (title + body) and OSC 9 (body); control characters would end the sequence early. */
function terminalNotification(text: string): string {
  const clean = text.replace(/[\x00-\x1f\x7f]/g, " ");
  return `\x1b]777;notify;Keel;${clean}\x07\x1b]9;${clean}\x07`;
}

function onPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

function desktopNotification(text: string): Promise<void> {
  let command: string | undefined;
  let args: string[] = [];
  if (process.platform === "linux") {
    command = onPath("notify-send");
    args = ["Keel", text];
  } else if (process.platform === "darwin") {
    command = onPath("osascript");
    const quoted = (s: string) => `"${s.replace(/[\\"]/g, "\\$&")}"`;
    args = ["-e", `display notification ${quoted(text)} with title "Keel"`];
  }
  if (!command) return Promise.resolve();
  const found = command;
  return new Promise((resolve) => {
    const child = spawn(found, args, { stdio: "ignore" });
    const timer = setTimeout(() => {
      child.unref();
      resolve();
    }, NOTIFIER_WAIT_MS);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    child.once("error", done);
    child.once("exit", done);
  });
}
