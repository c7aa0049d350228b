// The system prompt: built once when a session starts and never changed mid-session, so the
// model's KV-cache prefix stays valid. Everything dynamic reaches the model by appending.
import type { ContextFile } from "./context-files.js";

export interface SystemPromptInput {
  cwd: string;
  /** ISO date (YYYY-MM-DD) fixed at session start. */
  date: string;
  platform: string;
  toolNames: string[];
  contextFiles: ContextFile[];
  /** Fixed text from extensions (registerContext / systemPrompt). */
  extensionText: string[];
  append?: string;
  /** Replaces Keel's own opening instructions (`--system-prompt`); the rest stays. */
  base?: string;
  /** A child agent's own instructions (its definition's body), after everything else. */
  instructions?: string;
}

const BASE = `You are Keel, a coding agent working in the user's repository through tools.

- Read before you change: look at the relevant code with Read, Grep and Glob first.
- Make the smallest change that does the job; follow the code base's existing style.
- Edit files with Edit (exact replacements) and create them with Write; never print a whole file instead.
- Run commands with Bash; prefer the project's own scripts for builds and tests, and check their output.
- When a tool call fails, read the error and fix the cause instead of repeating the call.
- Be brief in prose. When done, say what you changed and how you verified it.`;

export function buildSystemPrompt(input: SystemPromptInput): string {
  const parts = [input.base?.trim() || BASE];
  if (input.toolNames.length > 0) parts.push(`Tools available: ${input.toolNames.join(", ")}.`);
  for (const text of input.extensionText) if (text.trim()) parts.push(text.trim());
  // Rules scoped to some files reach the model by notice when one is touched (kernel/scoped-rules.ts).
  for (const file of input.contextFiles) {
    if (file.scope) continue;
    parts.push(`<project-instructions path="${file.path}">\n${file.content.trim()}\n</project-instructions>`);
  }
  parts.push(`Working directory: ${input.cwd}\nPlatform: ${input.platform}\nDate: ${input.date}`);
  if (input.append?.trim()) parts.push(input.append.trim());
  if (input.instructions?.trim()) parts.push(input.instructions.trim());
  return parts.join("\n\n");
}
