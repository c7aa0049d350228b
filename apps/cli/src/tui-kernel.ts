// The kernel functions the TUI calls, handed to it by the CLI core that has them loaded already:
// the TUI is a separate ESM bundle (ink and react are ESM only) and must not carry a second copy
// of the kernel next to the core's.
import { modelRef } from "@keel/ai";
import {
  createCodingAgent,
  defaultSessionDir,
  formatTrustPreview,
  killAllCommandTrees,
  parseCommandLine,
  promptParts,
  resolveKeelHome,
  shellNoticeParts,
  sniffImageMimeType,
} from "@keel/coding-agent";
import { listSessions } from "@keel/session";

export const tuiKernel = {
  createCodingAgent,
  defaultSessionDir,
  resolveKeelHome,
  listSessions,
  modelRef,
  killAllCommandTrees,
  promptParts,
  shellNoticeParts,
  sniffImageMimeType,
  formatTrustPreview,
  parseCommandLine,
};

export type TuiKernel = typeof tuiKernel;
