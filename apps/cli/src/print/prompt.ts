// Where print mode's prompt comes from: the command line, else stdin when it is not a terminal.
import { err, ok, type Result } from "neverthrow";
import type { UsageError } from "../args.js";

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(typeof part === "string" ? Buffer.from(part) : part);
  return Buffer.concat(parts).toString("utf8");
}

export async function printPrompt(
  fromArgs: string | undefined,
  stdin: NodeJS.ReadStream = process.stdin,
): Promise<Result<string, UsageError>> {
  // Arguments win, and stdin is then left alone: a caller's open pipe must not make keel wait.
  if (fromArgs !== undefined && fromArgs.trim() !== "") return ok(fromArgs);
  if (stdin.isTTY)
    return err({ type: "usage", message: 'Print mode needs a prompt: keel -p "…", or pipe it on stdin.' });
  const text = (await readAll(stdin)).trim();
  return text === "" ? err({ type: "usage", message: "Print mode got an empty prompt on stdin." }) : ok(text);
}
