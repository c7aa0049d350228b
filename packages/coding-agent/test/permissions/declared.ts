// decide() and the gate as the kernel's seams call them: each call with its tool's declaration.
// A call naming one of the kernel's built-in tools gets that tool's own (from its file), unless
// the case gives one; any other name stays undeclared unless the case declares it.
import { tmpdir } from "node:os";
import type { ToolDeclaration } from "@keel/extension-sdk";
import { decide as decideDeclared } from "../../src/permissions/decide.js";
import {
  createPermissionGate as createGate,
  type PermissionGate,
  type PermissionGateOptions,
  type ToolCallToCheck,
} from "../../src/permissions/gate.js";
import type { PermissionDecision, PermissionRequest } from "../../src/permissions/types.js";
import { createBuiltinTools } from "../../src/tools/builtin.js";
import { declarationOf } from "../../src/tools/declarations.js";

const builtins = new Map(createBuiltinTools({ cwd: tmpdir() }).map((t) => [t.name, declarationOf(t)]));

/** The declaration a built-in tool of this name makes in its own file. */
export function builtinDeclaration(name: string): ToolDeclaration | undefined {
  return builtins.get(name);
}

function withDeclaration<T extends { tool: string; declaration?: ToolDeclaration }>(call: T): T {
  if (call.declaration) return call;
  const declaration = builtinDeclaration(call.tool);
  return declaration ? { ...call, declaration } : call;
}

export function decide(request: PermissionRequest): Promise<PermissionDecision> {
  return decideDeclared(withDeclaration(request));
}

export function createPermissionGate(options: PermissionGateOptions): PermissionGate {
  const gate = createGate(options);
  const declared = ((call: ToolCallToCheck) => gate(withDeclaration(call))) as PermissionGate;
  Object.defineProperty(declared, "mode", { get: () => gate.mode, enumerable: true });
  declared.setMode = gate.setMode;
  declared.rules = gate.rules;
  declared.addSessionRules = gate.addSessionRules;
  declared.setRule = gate.setRule;
  return declared;
}
