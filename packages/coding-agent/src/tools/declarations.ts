// The kernel's reading of tool declarations (access, argument roles, summary, preview): what is
// journaled, what front ends are told of a call, what an approval previews. Never a tool's name.
import type { AgentTool } from "@keel/agent";
import {
  summarizeToolCall,
  TOOL_ACCESSES,
  type ToolAccess,
  type ToolDeclaration,
  type ToolPreview,
  type ToolPreviewContext,
} from "@keel/extension-sdk";
import type { ToolCallInfo } from "../kernel/types.js";

/** A tool as the kernel holds it: the loop's tool with its declaration (built-in or extension). */
export type DeclaredTool = AgentTool & ToolDeclaration;

/** The declaration fields of a tool or catalog entry, checked: an unknown access is no access. */
export function declarationOf(
  tool: (ToolDeclaration & { sideEffects?: boolean }) | undefined,
): (ToolDeclaration & { sideEffects?: boolean }) | undefined {
  if (!tool) return undefined;
  const access = TOOL_ACCESSES.includes(tool.access as ToolAccess) ? tool.access : undefined;
  return {
    ...(access ? { access } : {}),
    ...(tool.args ? { args: tool.args } : {}),
    // A catalog entry's `summary` is its notice line (a string), not a call summary.
    ...(typeof tool.summary === "function" ? { summary: tool.summary.bind(tool) } : {}),
    ...(typeof tool.preview === "function" ? { preview: tool.preview.bind(tool) } : {}),
    ...(typeof tool.precondition === "function" ? { precondition: tool.precondition.bind(tool) } : {}),
    ...(tool.sideEffects === true ? { sideEffects: true } : {}),
  };
}

/**
 * Whether calls are journaled (T1 before, T2 after): write, exec, network and undeclared tools
 * are; none and read are not. A third-party tool's deprecated `sideEffects: true` adds a tool,
 * never takes one away.
 */
export function isJournaled(declaration: (ToolDeclaration & { sideEffects?: boolean }) | undefined): boolean {
  const access = declaration?.access;
  if (access === undefined || access === "write" || access === "exec" || access === "network") return true;
  return declaration?.sideEffects === true;
}

export function callInfo(
  declaration: ToolDeclaration | undefined,
  args: Record<string, unknown>,
): ToolCallInfo {
  return {
    summary: summarizeToolCall(declaration, args),
    ...(declaration?.access ? { access: declaration.access } : {}),
  };
}

/** An approval's preview: the tool's own, or none (the dialog shows the arguments). One that throws shows none. */
export async function previewOf(
  declaration: ToolDeclaration | undefined,
  args: unknown,
  context: ToolPreviewContext,
): Promise<ToolPreview | undefined> {
  if (!declaration?.preview || typeof args !== "object" || args === null) return undefined;
  try {
    const preview = await declaration.preview(args as Record<string, unknown>, context);
    return preview && typeof preview.text === "string" ? preview : undefined;
  } catch {
    return undefined;
  }
}

/** Why a call cannot succeed, from its declaration, before anyone is asked; one that throws says nothing. */
export async function unmetPrecondition(
  declaration: ToolDeclaration | undefined,
  args: Record<string, unknown>,
): Promise<string | undefined> {
  if (!declaration?.precondition) return undefined;
  try {
    const unmet = await declaration.precondition(args);
    return typeof unmet === "string" && unmet !== "" ? unmet : undefined;
  } catch {
    // A broken check must not block a call execute would judge for itself.
    return undefined;
  }
}

/** The string arguments a declared role names, in the order declared (absent or non-strings skipped). */
export function roleValues(args: unknown, keys: readonly string[] | undefined): string[] {
  if (typeof args !== "object" || args === null || !keys) return [];
  return keys.flatMap((key) => {
    const value = (args as Record<string, unknown>)[key];
    return typeof value === "string" && value !== "" ? [value] : [];
  });
}
