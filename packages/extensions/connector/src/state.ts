// The extension's session state: the latest approval decision. Each decision is one app_state
// entry in the journal, so the journal is the audit trail (it follows branches like any state).
import { type Static, Type } from "@keel/extension-sdk";

const Rule = Type.Union([Type.Literal("allow"), Type.Literal("ask"), Type.Literal("deny")]);

export const DecisionSchema = Type.Object({
  toolCallId: Type.String(),
  action: Type.String(),
  effect: Type.Union([
    Type.Literal("read"),
    Type.Literal("create"),
    Type.Literal("update"),
    Type.Literal("destructive"),
  ]),
  rule: Rule,
  source: Type.String(),
  outcome: Type.Union([Type.Literal("allowed"), Type.Literal("denied")]),
  by: Type.Union([
    Type.Literal("policy"),
    Type.Literal("user"),
    Type.Literal("exact_grant"),
    Type.Literal("no_one_to_ask"),
    Type.Literal("cancelled"),
  ]),
  scope: Type.Optional(Type.Union([Type.Literal("once"), Type.Literal("always"), Type.Literal("exact")])),
  reason: Type.Optional(Type.String()),
  args: Type.Record(Type.String(), Type.Unknown()),
  argsHash: Type.String(),
  agent: Type.Optional(Type.String()),
});

export const ConnectorStateSchema = Type.Object({ decision: Type.Optional(DecisionSchema) });

export type ConnectorState = Static<typeof ConnectorStateSchema>;
