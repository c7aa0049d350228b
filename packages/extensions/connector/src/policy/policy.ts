// The approval policy, pure: which rule (allow / ask / deny) holds for an action, where it comes
// from, and what a question may offer. The user's config decides; a trusted project's layer can
// only make a rule stricter. No I/O, no clock.
import type { SideEffectClass } from "../sdk/connector.js";

export type PolicyRule = "allow" | "ask" | "deny";

/** `extensions.connector.config.policy`: most specific wins (action, then connector, then class). */
export interface PolicyConfig {
  /** Rules per side-effect class, over the defaults. */
  classes?: Partial<Record<SideEffectClass, PolicyRule>>;
  /** One rule for every action of a connector, by connector id (`github`). */
  connectors?: Record<string, PolicyRule>;
  /** Rules per action, by the name the model sees (`github__create_issue`). */
  actions?: Record<string, PolicyRule>;
}

/** Reads are allowed, anything that changes the service asks. */
export const DEFAULT_RULES: Readonly<Record<SideEffectClass, PolicyRule>> = {
  read: "allow",
  create: "ask",
  update: "ask",
  destructive: "ask",
};

export interface ActionIdentity {
  connectorId: string;
  /** `github__create_issue` */
  entry: string;
  effect: SideEffectClass;
}

export interface RuleInEffect {
  rule: PolicyRule;
  /** Where the rule comes from, as a config path or "default for <class>". */
  source: string;
  /** True when a project layer made it stricter than the user's rule. */
  narrowedByProject: boolean;
}

const STRICTNESS: Record<PolicyRule, number> = { allow: 0, ask: 1, deny: 2 };

export function stricter(a: PolicyRule, b: PolicyRule): PolicyRule {
  return STRICTNESS[b] > STRICTNESS[a] ? b : a;
}

/** The most specific rule the layer sets for the action, if any. */
function layerRule(
  layer: PolicyConfig | undefined,
  action: ActionIdentity,
): { rule: PolicyRule; source: string } | undefined {
  const byAction = layer?.actions?.[action.entry];
  if (byAction) return { rule: byAction, source: `policy.actions.${action.entry}` };
  const byConnector = layer?.connectors?.[action.connectorId];
  if (byConnector) return { rule: byConnector, source: `policy.connectors.${action.connectorId}` };
  const byClass = layer?.classes?.[action.effect];
  if (byClass) return { rule: byClass, source: `policy.classes.${action.effect}` };
  return undefined;
}

/** The rule in effect: the user's (or the class default), made stricter by the project if it says so. */
export function ruleFor(
  action: ActionIdentity,
  user: PolicyConfig | undefined,
  project?: PolicyConfig,
): RuleInEffect {
  const own = layerRule(user, action) ?? {
    rule: DEFAULT_RULES[action.effect],
    source: `default for ${action.effect}`,
  };
  const fromProject = layerRule(project, action);
  if (fromProject && STRICTNESS[fromProject.rule] > STRICTNESS[own.rule])
    return { rule: fromProject.rule, source: `project ${fromProject.source}`, narrowedByProject: true };
  return { ...own, narrowedByProject: false };
}

export type Verdict =
  | { kind: "allow"; rule: RuleInEffect }
  | { kind: "deny"; rule: RuleInEffect }
  | {
      kind: "ask";
      rule: RuleInEffect;
      /**
       * "Always" is never offered for destructive actions, nor where a project's rule is what
       * asks (an "always" saved to the user's config would not stop the question).
       */
      offerAlways: boolean;
    };

export function verdictFor(action: ActionIdentity, rule: RuleInEffect): Verdict {
  if (rule.rule === "allow") return { kind: "allow", rule };
  if (rule.rule === "deny") return { kind: "deny", rule };
  return { kind: "ask", rule, offerAlways: action.effect !== "destructive" && !rule.narrowedByProject };
}

/** The user's policy with one action allowed from now on (what answering "always" saves). */
export function withAlwaysAllowed(policy: PolicyConfig | undefined, entry: string): PolicyConfig {
  return { ...policy, actions: { ...policy?.actions, [entry]: "allow" } };
}

/** Keys in a policy that name no known connector or action (typos would otherwise do nothing). */
export function unknownPolicyKeys(
  policy: PolicyConfig | undefined,
  known: { connectors: ReadonlySet<string>; entries: ReadonlySet<string> },
): string[] {
  const unknown: string[] = [];
  for (const id of Object.keys(policy?.connectors ?? {}))
    if (!known.connectors.has(id)) unknown.push(`policy.connectors.${id}`);
  for (const entry of Object.keys(policy?.actions ?? {}))
    if (!known.entries.has(entry)) unknown.push(`policy.actions.${entry}`);
  return unknown;
}
