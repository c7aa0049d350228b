// Opens a URL in the user's browser with the platform's opener. Answers false when there is no
// way to (no display on Linux, the opener missing): the caller then prints the URL instead.
import { spawn } from "node:child_process";

export type BrowserOpener = (url: URL) => Promise<boolean>;

export const openInBrowser: BrowserOpener = (url) => {
  const target = url.href;
  const [command, args] =
    process.platform === "darwin"
      ? ["open", [target]]
      : process.platform === "win32"
        ? ["cmd", ["/c", "start", '""', target.replace(/&/g, "^&")]]
        : ["xdg-open", [target]];
  if (process.platform === "linux" && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY)
    return Promise.resolve(false);
  return new Promise((resolve) => {
    try {
      const child = spawn(command as string, args as string[], { stdio: "ignore", detached: true });
      child.once("error", () => resolve(false));
      child.once("spawn", () => {
        child.unref();
        resolve(true);
      });
    } catch {
      resolve(false);
    }
  });
};
