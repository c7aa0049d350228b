// Opens a URL in the user's browser: `$BROWSER` when set (a command, or a colon-separated list of
// them, as xdg-open reads it), else the platform's opener. Answers false when there is no way to
// (no display on Linux, the opener missing): the caller then prints the URL instead.
import { spawn } from "node:child_process";

export type BrowserOpener = (url: URL) => Promise<boolean>;

function launch(command: string, args: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    try {
      const child = spawn(command, args, { stdio: "ignore", detached: true });
      child.once("error", () => resolve(false));
      child.once("spawn", () => {
        child.unref();
        resolve(true);
      });
    } catch {
      resolve(false);
    }
  });
}

export function browserOpener(
  env: Readonly<Record<string, string | undefined>> = process.env,
): BrowserOpener {
  return (url) => {
    const target = url.href;
    const chosen = env.BROWSER?.split(":").find((c) => c.trim() !== "");
    if (chosen) {
      const [command, ...args] = chosen.trim().split(/\s+/);
      return launch(command!, [...args, target]);
    }
    if (process.platform === "darwin") return launch("open", [target]);
    if (process.platform === "win32") return launch("cmd", ["/c", "start", '""', target.replace(/&/g, "^&")]);
    if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return Promise.resolve(false);
    return launch("xdg-open", [target]);
  };
}

export const openInBrowser: BrowserOpener = (url) => browserOpener()(url);
