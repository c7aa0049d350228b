// "Did you mean": the known name nearest to a mistyped one, by edit distance, if it is close.

function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = row;
  }
  return previous[b.length]!;
}

/**
 * The candidate within a typo's reach of `query` (one edit for short names, two for
 * names of ten characters or more), nearest first; undefined when nothing is that close. Case and "." vs "-"
 * are ignored. Names that differ only in digits are versions, not typos ("claude-opus-5-6" may be
 * a model released after the catalog), so they never match.
 */
export function closestName(query: string, candidates: readonly string[]): string | undefined {
  const norm = (s: string) => s.toLowerCase().replace(/[._]/g, "-");
  const digitless = (s: string) => s.replace(/\d+/g, "#");
  const q = norm(query);
  const reach = q.length < 10 ? 1 : 2;
  let best: { name: string; d: number } | undefined;
  for (const name of candidates) {
    const n = norm(name);
    if (n !== q && digitless(n) === digitless(q)) continue;
    const d = distance(q, n);
    if (d <= reach && (!best || d < best.d)) best = { name, d };
  }
  return best?.name;
}
