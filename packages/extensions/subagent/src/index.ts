// @keel/ext-subagent: sub-agents for Keel — SpawnAgent (parallel, background), GetAgentResult,
// custom agent definitions (Keel's and Claude Code's markdown), budgets, a widget and /agents.
import { subagentExtension } from "./extension.js";

export { AgentFiles, type AgentFolder, type AgentSet, agentFolders } from "./agent-files.js";
export { DEFAULT_CONFIG, SubagentConfig } from "./config.js";
export {
  type AgentDefinition,
  BUILTIN_AGENTS,
  DEFAULT_AGENT,
  type DefinitionSource,
  type InvalidDefinition,
  parseDefinition,
} from "./definitions.js";
export { type ChildEntry, NOTICE_KEY, owedNotices, SubagentState } from "./delivery.js";
export { subagentExtension } from "./extension.js";
export { MAX_WAIT_MS } from "./get-result.js";
export { chooseModel, type ModelChoice, type UnknownModel } from "./models.js";
export { noticeText, resultText } from "./report.js";
export default subagentExtension;
