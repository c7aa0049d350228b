// A temp git workspace and a temp Keel home for kernel and CLI tests, removed afterwards: the
// kernel's test fixture (`@keel/coding-agent/testing`), its Keel home as `home`.
import { kernelFixture } from "@keel/coding-agent/testing";

export interface Sandbox {
  workspace: string;
  home: string;
  cleanup(): void;
}

export function sandbox(): Sandbox {
  const fixture = kernelFixture({ name: "web" });
  return { workspace: fixture.workspace, home: fixture.keelHome, cleanup: fixture.cleanup };
}
