// What a command word names: its base name for rules, and whether it is the system's program of
// that name (bare, or from a system bin directory) or a file of the workspace's.
import type { ShellWord } from "./parser.js";

export const SHELLS: ReadonlySet<string> = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash"]);
export const INTERPRETERS: ReadonlySet<string> = new Set([
  ...SHELLS,
  "fish",
  "python",
  "python3",
  "node",
  "perl",
  "ruby",
  "php",
  "deno",
  "bun",
]);

/** Where system programs live: a command named by a path elsewhere is a file of the workspace's. */
const SYSTEM_BIN = /^\/(usr\/(local\/)?)?s?bin\/[^/]+$|^\/opt\/homebrew\/bin\/[^/]+$/;

/** The command's base name (`/usr/bin/env` → env), what deny rules and wrapper detection use. */
export function commandName(word: ShellWord | undefined): string | undefined {
  if (!word?.static || word.glob !== undefined) return undefined;
  const slash = word.value.lastIndexOf("/");
  return slash === -1 ? word.value : word.value.slice(slash + 1);
}

/** The name when the word runs the system's program of that name (bare, or from a system bin dir). */
export function systemName(word: ShellWord | undefined): string | undefined {
  const name = commandName(word);
  if (name === undefined) return undefined;
  return !word!.value.includes("/") || SYSTEM_BIN.test(word!.value) ? name : undefined;
}
