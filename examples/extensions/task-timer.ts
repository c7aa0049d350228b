// Example extension: a status-line item timing each run — "running…", then "done in 3.2s",
// "failed after 1.1s" or "stopped after 0.4s".
//
// Use:  keel -e examples/extensions/task-timer.ts
import type { KeelAPI } from "@keel/extension-sdk";

export default function taskTimer(keel: KeelAPI): void {
  let startedAt = 0;
  let failed = false;

  keel.on("runStart", () => {
    startedAt = Date.now();
    failed = false;
    keel.setStatus("running…");
  });
  // runError comes before runEnd; runEnd must keep the failure rather than say "done".
  keel.on("runError", () => {
    failed = true;
    keel.setStatus(`failed after ${seconds(Date.now() - startedAt)}`);
  });
  keel.on("runEnd", (event) => {
    if (failed || event.stopReason === "error") keel.setStatus(`failed after ${seconds(event.durationMs)}`);
    else if (event.stopReason === "aborted") keel.setStatus(`stopped after ${seconds(event.durationMs)}`);
    else keel.setStatus(`done in ${seconds(event.durationMs)}`);
  });
}

function seconds(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, "0")}s`;
}
