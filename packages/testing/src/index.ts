// Public API of @keel/testing: the mock model server, the in-process faux fetch, and the
// scenario types both are driven by.

export * from "./cache.js";
export { CLAUDE_RULES, type ClaudeRules } from "./dialects/claude-rules.js";
export { createFauxFetch, type FauxFetch } from "./faux-fetch.js";
export { FAUX_ORIGIN, type FauxModel, fauxModel } from "./faux-model.js";
export { seededRandom } from "./prng.js";
export type * from "./scenario.js";
export { type MockServer, type MockServerOptions, startMockServer } from "./server.js";
