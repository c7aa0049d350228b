// Shared test helpers: temporary directories and compact message builders.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AssistantMessage,
  emptyUsage,
  type ToolCall,
  type ToolResultMessage,
  type Usage,
  type UserMessage,
} from "@keel/protocol";
import type { Result } from "neverthrow";
import { afterEach } from "vitest";

const dirs: string[] = [];

/** A fresh directory, removed after the test. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "keel-session-"));
  dirs.push(dir);
  return dir;
}

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const usage: Usage = { ...emptyUsage(), input: 1, output: 1, totalTokens: 2 };

export function user(text: string): UserMessage {
  return { role: "user", content: text, timestamp: 1 };
}

export function assistant(
  text: string,
  calls: { id: string; name: string; args?: Record<string, unknown> }[] = [],
): AssistantMessage {
  const toolCalls: ToolCall[] = calls.map((c) => ({
    type: "toolCall",
    id: c.id,
    name: c.name,
    arguments: c.args ?? {},
  }));
  return {
    role: "assistant",
    content: [{ type: "text", text }, ...toolCalls],
    api: "anthropic-messages",
    provider: "anthropic",
    model: "test-model",
    usage,
    stopReason: toolCalls.length > 0 ? "toolUse" : "stop",
    timestamp: 2,
  };
}

export function toolResult(toolCallId: string, toolName: string, text = "ok"): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId,
    toolName,
    content: [{ type: "text", text }],
    isError: false,
    timestamp: 3,
  };
}

/** Unwraps an ok Result or fails the test with the error. */
export function must<T, E>(r: Result<T, E>): T {
  if (r.isErr()) throw new Error(`expected ok, got ${JSON.stringify(r.error)}`);
  return r.value;
}
