// @keel/extension-sdk: the one contract every Keel extension is written against.

export { type Static, type TSchema, Type } from "@sinclair/typebox";
export * from "./agents.js";
export * from "./approvals.js";
export * from "./catalogs.js";
export * from "./cli.js";
export * from "./commands.js";
export * from "./extension.js";
export * from "./factory.js";
export * from "./hooks.js";
export * from "./mentions.js";
export * from "./net.js";
export * from "./process.js";
export * from "./runtime.js";
export * from "./secrets.js";
export * from "./tool-rules.js";
export * from "./tools.js";
export * from "./ui.js";
