// Read deny rules as paths the sandbox hides: a rule naming a path hides it; a glob rule hides what
// matches it now, found by a bounded walk below the rule's literal part (what a command creates
// later is its own, not a secret that was there).
import { join, normalize, resolve, sep } from "node:path";
import { namesIn } from "../fs/paths.js";
import {
  compilePathPattern,
  expandHome,
  hasGlob,
  patternMatches,
  realpathLoose,
} from "../permissions/paths.js";
import { rulesFor } from "../permissions/rules.js";
import type { PermissionRuleEntry } from "../permissions/types.js";

export const WALK_LIMIT = 20_000;

export interface ReadDenials {
  paths: string[];
  /** Rules whose matches could not all be found within the walk's bound. */
  incomplete: string[];
}

export function readDenials(
  rules: readonly PermissionRuleEntry[],
  workspace: string,
  home: string,
): ReadDenials {
  const paths = new Set<string>();
  const incomplete: string[] = [];
  // `Read(…)` rules, which judge every read: a rule naming one tool is that tool's alone.
  for (const { entry, specifier } of rulesFor(rules, "deny", "read")) {
    // A bare `Read` denies every read: nothing narrower to hide, the gate alone answers it.
    if (!specifier) continue;
    const spec = specifier.startsWith("//") ? specifier.slice(1) : specifier;
    const absolute = normalize(resolve(workspace, expandHome(spec, home)));
    const segments = absolute.split(sep);
    const firstGlob = segments.findIndex(hasGlob);
    if (firstGlob === -1) {
      paths.add(realpathLoose(absolute));
      continue;
    }
    const literal = segments.slice(0, firstGlob).join(sep) || sep;
    const pattern = compilePathPattern(specifier, workspace, home);
    let seen = 0;
    const walk = (dir: string): void => {
      for (const name of namesIn(dir)) {
        if (++seen > WALK_LIMIT) return;
        const path = join(dir, name);
        const real = realpathLoose(path);
        if (patternMatches(pattern, { lexical: path, real }, "deny")) {
          paths.add(real);
          continue;
        }
        if (name !== ".git") walk(path);
      }
    };
    walk(literal);
    if (seen > WALK_LIMIT) incomplete.push(entry.rule);
  }
  return { paths: [...paths], incomplete };
}
