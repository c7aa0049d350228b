// The kernel's events and diagnostics: who listens, and what happens when a listener throws.
// Every part emits through here; `observe` sees each event before the listeners do.
import type { Diagnostic } from "@keel/extension-sdk";
import { errnoMessage } from "../../fs/errno.js";
import type { CodingAgentEvent } from "../types.js";

export class KernelEvents {
  private readonly listeners = new Set<(event: CodingAgentEvent) => void>();
  private readonly diagnostics_: Diagnostic[];
  private listenerFailed = false;

  constructor(
    diagnostics: readonly Diagnostic[],
    private readonly observe: (event: CodingAgentEvent) => void,
  ) {
    this.diagnostics_ = [...diagnostics];
  }

  emit(event: CodingAgentEvent): void {
    this.observe(event);
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (error) {
        // A UI listener failing must not stop the run, nor pass unnoticed. Not a diagnostic:
        // that is an event too, and would go back to the listener that just threw. Once per
        // agent, as a listener that throws on one event usually throws on all.
        if (this.listenerFailed) continue;
        this.listenerFailed = true;
        process.emitWarning(
          `@keel/coding-agent: an event listener threw on ${event.type} (later throws are not reported): ${errnoMessage(error)}`,
        );
      }
    }
  }

  report(level: Diagnostic["level"], message: string, extensionId = "kernel"): void {
    const diagnostic = { extensionId, level, message };
    this.diagnostics_.push(diagnostic);
    this.emit({ type: "diagnostic", diagnostic });
  }

  subscribe(listener: (event: CodingAgentEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  diagnostics(): Diagnostic[] {
    return [...this.diagnostics_];
  }
}
