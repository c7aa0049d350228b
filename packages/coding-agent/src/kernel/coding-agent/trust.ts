// The project's trust as the session sees it: what trusting it would let it do (its own surface
// and what each extension would honour, with what changed since), and trusting it.
import { err, ok, type Result } from "neverthrow";
import { approvalChanges, trustedApprovals, trustProject } from "../../trust/store.js";
import { changeLines } from "../../trust/surface.js";
import { previewTrust, type TrustPreview } from "../trust-preview.js";
import type { CodingAgentError } from "../types.js";
import type { KernelState } from "./state.js";

/**
 * What trusting the project would let it do, read (never run), with what each extension adds,
 * and for a project trusted before, what changed since (its own surface and what extensions
 * would honour).
 */
export async function sessionTrustPreview(state: KernelState): Promise<TrustPreview> {
  const { cwd, projectRoot, home } = state.parts;
  const project = { cwd, projectRoot };
  const preview = previewTrust({ ...project, home });
  const fromExtensions = (await state.ownHost?.trustPreviews(project)) ?? [];
  const approvals = (await state.ownHost?.trustApprovals(project)) ?? {};
  const extensionChanges =
    preview.status === "untrusted" || preview.status === "unknown"
      ? []
      : approvalChanges(trustedApprovals(projectRoot, home), approvals);
  const changes = [...(preview.changes ?? []), ...changeLines(extensionChanges)];
  return {
    ...preview,
    ...(fromExtensions.length > 0 ? { fromExtensions } : {}),
    ...(changes.length > 0 ? { changes } : {}),
  };
}

/** Trusts the folder with what it can run now, and what each extension would honour from it. */
export async function trustSessionProject(
  state: KernelState,
): Promise<Result<{ projectRoot: string }, CodingAgentError>> {
  const { cwd, projectRoot, home } = state.parts;
  const approvals = (await state.ownHost?.trustApprovals({ cwd, projectRoot })) ?? {};
  const trusted = trustProject(projectRoot, { home, approvals });
  if (trusted.isErr()) return err({ type: "config", message: trusted.error.message });
  return ok({ projectRoot });
}
