// What the vendor SDKs print goes to the caller's log (StreamOptions.onLog), never to the
// terminal: their loggers are replaced, and the few lines they write to the console directly
// (a deprecated model's warning) are caught around the synchronous call that writes them.
import { format } from "node:util";
import type { ProviderLogLine, StreamOptions } from "../types.js";

type Level = ProviderLogLine["level"];
type LogFn = (message: string, ...rest: unknown[]) => void;

export interface SdkLogger {
  error: LogFn;
  warn: LogFn;
  info: LogFn;
  debug: LogFn;
}

const LEVELS = new Set(["off", "error", "warn", "info", "debug"]);

/** The `logger` and `logLevel` client options both SDKs take; the level follows their own variable. */
export function sdkLogging(
  source: string,
  envLevel: string | undefined,
  onLog: StreamOptions["onLog"],
): { logger: SdkLogger; logLevel: "off" | "error" | "warn" | "info" | "debug" } {
  const line =
    (level: Level): LogFn =>
    (message, ...rest) =>
      onLog?.({ level, source, message: format(message, ...rest) });
  const wanted = envLevel?.trim().toLowerCase();
  return {
    logger: { error: line("error"), warn: line("warn"), info: line("info"), debug: line("debug") },
    logLevel: wanted && LEVELS.has(wanted) ? (wanted as "warn") : "warn",
  };
}

const CONSOLE: readonly ((keyof Console & Level) | "log")[] = ["log", "info", "warn", "error", "debug"];

/**
 * Runs `call` with the console's writers pointed at `onLog`. Only for synchronous code: nothing
 * else runs while it does, so no other caller's console output can be caught by mistake.
 */
export function consoleToLog<T>(source: string, onLog: StreamOptions["onLog"], call: () => T): T {
  const saved = CONSOLE.map((name) => [name, console[name]] as const);
  for (const name of CONSOLE) {
    const level: Level = name === "log" ? "info" : name;
    console[name] = (message?: unknown, ...rest: unknown[]) =>
      onLog?.({ level, source, message: format(message, ...rest) });
  }
  try {
    return call();
  } finally {
    for (const [name, fn] of saved) console[name] = fn as never;
  }
}
