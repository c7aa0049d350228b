// Print mode's two channels: stdout carries only the chosen format; stderr gets one line per
// diagnostic or note, so stdout stays machine-readable.
import type { Diagnostic } from "@keel/extension-sdk";

export interface Output {
  /** One NDJSON line; a value that does not serialise becomes a stderr note instead. */
  json(value: unknown): void;
  text(text: string): void;
  note(message: string): void;
  diagnostic(diagnostic: Diagnostic): void;
  /** Resolves once everything written so far has been handed to the OS. */
  flush(): Promise<void>;
}

const oneLine = (text: string) => text.replace(/\s*\n\s*/g, " ").trim();

export function createOutput(
  stdout: NodeJS.WritableStream = process.stdout,
  stderr: NodeJS.WritableStream = process.stderr,
): Output {
  // A reader that went away (keel -p … | head) is not keel's failure.
  stdout.on("error", () => {});
  const note = (message: string) => {
    stderr.write(`keel: ${oneLine(message)}\n`);
  };
  return {
    json(value) {
      let line: string;
      try {
        line = JSON.stringify(value);
      } catch (e) {
        note(`could not serialise an event: ${e instanceof Error ? e.message : String(e)}`);
        return;
      }
      stdout.write(`${line}\n`);
    },
    text(text) {
      stdout.write(text.endsWith("\n") ? text : `${text}\n`);
    },
    note,
    diagnostic(d) {
      const source = d.extensionId === "kernel" ? "" : `${d.extensionId}: `;
      note(`${d.level}: ${source}${d.message}`);
    },
    flush() {
      return new Promise((resolve) => {
        stdout.write("", () => stderr.write("", () => resolve()));
      });
    },
  };
}
