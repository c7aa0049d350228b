// The kernel's built-in commands, in the order /help lists them. Each is its own module; adding
// one is a file and a line here.
import type { CommandSpec } from "@keel/extension-sdk";
import type { CodingAgent } from "../../kernel/types.js";
import { compactCommand } from "./compact.js";
import { costCommand } from "./cost.js";
import { forkCommand } from "./fork.js";
import { helpCommand } from "./help.js";
import { initCommand } from "./init.js";
import { modelCommand } from "./model.js";
import { permissionsCommand } from "./permissions.js";
import { rewindCommand } from "./rewind.js";
import { sessionCommand } from "./session.js";
import type { BuiltinCommand } from "./spec.js";
import { thinkingCommand } from "./thinking.js";
import { treeCommand } from "./tree.js";
import { trustCommand } from "./trust.js";

const BUILTINS: readonly BuiltinCommand[] = [
  helpCommand,
  modelCommand,
  thinkingCommand,
  permissionsCommand,
  treeCommand,
  rewindCommand,
  forkCommand,
  compactCommand,
  costCommand,
  initCommand,
  sessionCommand,
  trustCommand,
];

export function builtinCommands(agent: CodingAgent): CommandSpec[] {
  return BUILTINS.map((make) => ({ ...make(agent), source: { kind: "builtin" } }));
}
