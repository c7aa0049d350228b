// @keel/extension-sdk/node: Node-only helpers an extension (and the kernel) share instead of
// writing their own — atomic writes, bounded reads, front matter, the process table, an abortable
// sleep. No kernel state.
export {
  type AtomicWriteError,
  type AtomicWriteOptions,
  type AtomicWriteOutcome,
  writeFileAtomic,
} from "./atomic-write.js";
export {
  type FrontMatter,
  type FrontMatterError,
  type FrontMatterOptions,
  parseFrontMatter,
} from "./front-matter.js";
export {
  descendants,
  type ProcessEntry,
  type ProcessTableOptions,
  processEntry,
  processTable,
  signalProcesses,
  stillRunning,
} from "./processes.js";
export { type BoundedRead, type BoundedReadError, readFileBounded } from "./read-bounded.js";
export { sleep } from "./sleep.js";
