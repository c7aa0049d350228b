// The index behind SearchTools: exact names and toolRefs first, then scores over name and
// description. Built once per catalog refresh; a query costs one pass over the hits of its terms
// (cached per term), not a scan of every entry, so thousands of tools stay well under a millisecond.

/** What the index needs of one catalog entry; `name` and `ref` as the model sees them. */
export interface Searchable {
  ref: string;
  name: string;
  description: string;
}

/** Query or text → lowercase words, camelCase split: "createIssue" → create, issue. */
/** Plain string order: locale-independent. */
export const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function wordsOf(text: string): string[] {
  return text
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

const NAME_CONTAINS_QUERY = 20;
const NAME_CONTAINS_TERM = 8;
const HAS_WORD = 4;
const DESCRIPTION_CONTAINS_TERM = 2;
/** Per-term hit lists are cached; past this many distinct terms the cache starts over. */
const TERM_CACHE_LIMIT = 4096;

interface Row<T> {
  item: T;
  name: string;
  ref: string;
  words: Set<string>;
  description: string;
}

export class SearchIndex<T extends Searchable> {
  /**
   * In toolRef order (code units, as the notices list them: the same on every machine, and no ICU
   * collator to build at start, which costs ~6 ms): a row's index is its tie-break between equal scores.
   */
  private readonly rows: Row<T>[];
  /** Row index → position in catalog order, the order exact matches are listed in. */
  private readonly position: Int32Array;
  private readonly byName = new Map<string, number[]>();
  private readonly byRef = new Map<string, number>();
  /** term → (row index << 4 | points) for every row the term scores on. */
  private readonly termHits = new Map<string, Int32Array>();
  private readonly scores: Int32Array;

  /** `items` in catalog order. */
  constructor(items: readonly T[]) {
    const order = items.map((_, i) => i).sort((a, b) => byCodeUnits(items[a]!.ref, items[b]!.ref));
    this.rows = order.map((i) => {
      const item = items[i]!;
      return {
        item,
        name: item.name.toLowerCase(),
        ref: item.ref.toLowerCase(),
        words: new Set(wordsOf(`${item.name} ${item.description}`)),
        description: item.description.toLowerCase(),
      };
    });
    this.position = Int32Array.from(order);
    this.rows.forEach((row, i) => {
      this.byName.set(row.name, [...(this.byName.get(row.name) ?? []), i]);
      this.byRef.set(row.ref, i);
    });
    this.scores = new Int32Array(this.rows.length);
  }

  /** The rows a term scores on, with its points for each (one scan per distinct term). */
  private hits(term: string): Int32Array {
    const cached = this.termHits.get(term);
    if (cached) return cached;
    const found: number[] = [];
    this.rows.forEach((row, i) => {
      let points = row.name.includes(term) ? NAME_CONTAINS_TERM : 0;
      if (row.words.has(term)) points += HAS_WORD;
      else if (row.description.includes(term)) points += DESCRIPTION_CONTAINS_TERM;
      if (points > 0) found.push((i << 4) | points);
    });
    if (this.termHits.size >= TERM_CACHE_LIMIT) this.termHits.clear();
    const hits = Int32Array.from(found);
    this.termHits.set(term, hits);
    return hits;
  }

  /** Rows whose name contains the whole query. A name holding the query holds each of its terms. */
  private nameContains(q: string, terms: string[]): number[] {
    if (terms.length === 0) return this.rows.flatMap((row, i) => (row.name.includes(q) ? [i] : []));
    let narrowest: Int32Array | undefined;
    for (const term of terms) {
      const hits = this.hits(term);
      if (!narrowest || hits.length < narrowest.length) narrowest = hits;
    }
    const out: number[] = [];
    for (const code of narrowest!) {
      const i = code >> 4;
      if ((code & NAME_CONTAINS_TERM) !== 0 && this.rows[i]!.name.includes(q)) out.push(i);
    }
    return out;
  }

  search(query: string, limit: number): T[] {
    if (limit <= 0) return [];
    const q = query.trim().toLowerCase();
    const terms = wordsOf(query);

    const exactRows = new Set<number>(this.byName.get(q) ?? []);
    const byRef = this.byRef.get(q);
    if (byRef !== undefined) exactRows.add(byRef);
    const exact = [...exactRows].sort((a, b) => this.position[a]! - this.position[b]!);

    const scores = this.scores;
    const touched: number[] = [];
    const add = (i: number, points: number) => {
      if (scores[i] === 0) touched.push(i);
      scores[i] = scores[i]! + points;
    };
    if (q) for (const i of this.nameContains(q, terms)) add(i, NAME_CONTAINS_QUERY);
    for (const term of terms) for (const code of this.hits(term)) add(code >> 4, code & 15);

    // The best `limit` scored rows, best first; equal scores in toolRef (row) order.
    const best: number[] = [];
    const better = (a: number, b: number) => scores[a]! > scores[b]! || (scores[a] === scores[b] && a < b);
    for (const i of touched) {
      if (exactRows.has(i)) continue;
      if (best.length >= limit && !better(i, best[best.length - 1]!)) continue;
      let at = best.length;
      while (at > 0 && better(i, best[at - 1]!)) at--;
      best.splice(at, 0, i);
      if (best.length > limit) best.pop();
    }
    for (const i of touched) scores[i] = 0;
    return [...exact, ...best].slice(0, limit).map((i) => this.rows[i]!.item);
  }
}
