// The oldest Node.js keel runs on, checked before anything else loads: on an older one the core
// fails somewhere deep instead (require() of ES modules, fs and module APIs Node 20 lacks).
export const MIN_NODE = [22, 12] as const;

/** A message for a Node.js older than MIN_NODE, or undefined when `version` ("22.12.0") will do. */
export function nodeTooOld(version: string): string | undefined {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  if (major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1])) return undefined;
  return (
    `keel needs Node.js ${MIN_NODE.join(".")} or later (24 recommended); this is ${version}. ` +
    "Install a current Node.js (nodejs.org, your package manager, nvm/fnm), or run keel with one: " +
    "npm i --prefix ~/.node24 node@24 && ~/.node24/node_modules/.bin/node $(command -v keel) …"
  );
}
