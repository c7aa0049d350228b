// A one-file extension for the e2e: counts finished runs on the status line.
import type { KeelAPI } from "@keel/extension-sdk";

export default function runCounter(keel: KeelAPI): void {
  let runs = 0;
  keel.on("runEnd", () => {
    runs++;
    keel.setStatus(`runs: ${runs}`);
  });
}
