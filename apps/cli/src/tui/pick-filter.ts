// What a picker shows while the user types to narrow it: pure, so the matching is unit-tested.
// Options whose label or detail hold every typed word come first, in their own order; then those
// whose label holds the typed letters in order (fuzzy), as Claude Code's pickers match.
import type { PickOption } from "./store.js";

/** The indices of `options` that match `filter`, best first; all of them for an empty filter. */
export function filterOptions(options: readonly PickOption[], filter: string): number[] {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return options.map((_, i) => i);
  const letters = words.join("");
  const exact: number[] = [];
  const fuzzy: number[] = [];
  options.forEach((o, i) => {
    const text = `${o.label} ${o.detail ?? ""}`.toLowerCase();
    if (words.every((w) => text.includes(w))) exact.push(i);
    else if (inOrder(letters, o.label.toLowerCase())) fuzzy.push(i);
  });
  return [...exact, ...fuzzy];
}

/** Whether every letter of `letters` occurs in `text`, in that order. */
function inOrder(letters: string, text: string): boolean {
  let at = 0;
  for (const ch of letters) {
    at = text.indexOf(ch, at);
    if (at === -1) return false;
    at++;
  }
  return true;
}
