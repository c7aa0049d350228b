// While the TUI owns the terminal, console output from libraries and extensions becomes a dim
// notice in the transcript, each distinct message once (SDK warnings repeat on every request).
import { format } from "node:util";
import type { NoticeLevel } from "./transcript.js";

const METHODS = ["log", "info", "warn", "error", "debug"] as const;

export function captureConsole(show: (level: NoticeLevel, text: string) => void): () => void {
  const seen = new Set<string>();
  const saved = METHODS.map((m) => [m, console[m]] as const);
  for (const method of METHODS) {
    console[method] = (...args: unknown[]) => {
      const text = format(...args).replace(/\s+$/, "");
      if (!text || seen.has(text)) return;
      seen.add(text);
      show(method === "error" ? "error" : method === "warn" ? "warning" : "dim", text);
    };
  }
  return () => {
    for (const [method, fn] of saved) console[method] = fn;
  };
}
