// The extension's configuration (user scope: ~/.keel/config.json, extensions.subagent.config).
// How many children run at once is the kernel's `agents.maxConcurrent`, not a key here.
import { type Static, Type } from "@keel/extension-sdk";

export const SubagentConfig = Type.Object({
  /** Turn limit of a child whose definition sets none. */
  maxTurns: Type.Integer({ minimum: 1 }),
  /** Per child, over its whole run; absent: no limit. */
  budget: Type.Object({
    maxTokens: Type.Optional(Type.Integer({ minimum: 1 })),
    maxCostUsd: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
  }),
  /** Tools no child gets (names, catalog toolRefs or groups). */
  childExcludedTools: Type.Array(Type.String({ minLength: 1 })),
  /** The most of a child's final text a SpawnAgent or GetAgentResult result carries. */
  resultChars: Type.Integer({ minimum: 500 }),
  /** The most a background child's completion notice carries. */
  noticeChars: Type.Integer({ minimum: 300 }),
});

export type SubagentConfig = Static<typeof SubagentConfig>;

export const DEFAULT_CONFIG: SubagentConfig = {
  maxTurns: 50,
  budget: {},
  childExcludedTools: ["SpawnAgent", "GetAgentResult", "UpdateTodos"],
  resultChars: 20_000,
  noticeChars: 2_000,
};
