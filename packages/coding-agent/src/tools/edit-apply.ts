// The pure core of Edit: apply exact replacements to LF-normalised text, all or nothing,
// and explain a miss with the closest candidate lines so the model can correct itself.
import { err, ok, type Result } from "neverthrow";

export interface EditSpec {
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

export interface Candidate {
  startLine: number;
  endLine: number;
  /** 1 for a whitespace-only difference, otherwise average line similarity in [0, 1]. */
  score: number;
  whitespaceOnly: boolean;
  lines: string[];
}

/** `index` is 0-based; messages show it 1-based. */
export type EditFailure =
  | { kind: "empty_old_string"; index: number }
  | { kind: "no_change"; index: number }
  | { kind: "not_found"; index: number; candidates: Candidate[] }
  | { kind: "ambiguous"; index: number; count: number; lines: number[] };

export interface EditOutcome {
  text: string;
  replacements: number;
}

export function applyEdits(text: string, edits: readonly EditSpec[]): Result<EditOutcome, EditFailure> {
  let current = text;
  let replacements = 0;
  for (const [index, edit] of edits.entries()) {
    const oldString = edit.old_string;
    if (oldString === "") return err({ kind: "empty_old_string", index });
    if (oldString === edit.new_string) return err({ kind: "no_change", index });
    const positions = occurrences(current, oldString);
    if (positions.length === 0) {
      return err({ kind: "not_found", index, candidates: closestCandidates(current, oldString) });
    }
    if (positions.length > 1 && edit.replace_all !== true) {
      const lines = positions.slice(0, 10).map((at) => lineNumberAt(current, at));
      return err({ kind: "ambiguous", index, count: positions.length, lines });
    }
    // split/join rather than String.replace: `$&` and friends in new_string must stay literal.
    current =
      edit.replace_all === true
        ? current.split(oldString).join(edit.new_string)
        : current.slice(0, positions[0]) + edit.new_string + current.slice(positions[0]! + oldString.length);
    replacements += positions.length;
  }
  return ok({ text: current, replacements });
}

function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length))
    found.push(at);
  return found;
}

function lineNumberAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

const normalise = (line: string) => line.trim().replace(/\s+/g, " ");
const MAX_CANDIDATES = 2;
const MIN_SIMILARITY = 0.5;
/** Beyond this the fuzzy scan would cost more than a fresh Read. */
const MAX_SCANNED_LINES = 50_000;
const MAX_SCORED_NEEDLE_LINES = 30;

export function closestCandidates(text: string, needle: string): Candidate[] {
  const lines = text.split("\n");
  const wanted = needle.split("\n");
  if (wanted.length > 1 && wanted.at(-1) === "") wanted.pop();
  const span = wanted.length;
  if (span > lines.length || lines.length > MAX_SCANNED_LINES) return [];

  const wantedNorm = wanted.map(normalise);
  const whitespaceMatches: Candidate[] = [];
  for (let start = 0; start + span <= lines.length && whitespaceMatches.length < MAX_CANDIDATES; start++) {
    const same =
      span === 1
        ? wantedNorm[0] !== "" && normalise(lines[start]!).includes(wantedNorm[0]!)
        : wantedNorm.every((w, j) => normalise(lines[start + j]!) === w);
    if (same) whitespaceMatches.push(candidate(lines, start, span, 1, true));
  }
  if (whitespaceMatches.length > 0) return whitespaceMatches;

  // Score a bounded, evenly spread sample of the needle's lines against each window.
  const step = Math.max(1, Math.ceil(span / MAX_SCORED_NEEDLE_LINES));
  const sample: number[] = [];
  for (let j = 0; j < span; j += step) sample.push(j);
  const wantedGrams = wanted.map((w) => bigrams(normalise(w)));
  const lineGrams = new Map<number, Set<string>>();
  const gramsOf = (i: number) => {
    let grams = lineGrams.get(i);
    if (grams === undefined) {
      grams = bigrams(normalise(lines[i]!));
      lineGrams.set(i, grams);
    }
    return grams;
  };
  const scored: { start: number; score: number }[] = [];
  for (let start = 0; start + span <= lines.length; start++) {
    let total = 0;
    for (const j of sample) total += dice(gramsOf(start + j), wantedGrams[j]!);
    const score = total / sample.length;
    if (score >= MIN_SIMILARITY) scored.push({ start, score });
  }
  scored.sort((a, b) => b.score - a.score || a.start - b.start);
  const picked: Candidate[] = [];
  for (const { start, score } of scored) {
    if (picked.length === MAX_CANDIDATES) break;
    const overlaps = picked.some((p) => start < p.endLine && start + span > p.startLine - 1);
    if (!overlaps) picked.push(candidate(lines, start, span, score, false));
  }
  return picked;
}

function candidate(
  lines: string[],
  start: number,
  span: number,
  score: number,
  whitespaceOnly: boolean,
): Candidate {
  return {
    startLine: start + 1,
    endLine: start + span,
    score: Math.round(score * 100) / 100,
    whitespaceOnly,
    lines: lines.slice(start, start + span),
  };
}

function bigrams(text: string): Set<string> {
  const grams = new Set<string>();
  for (let i = 0; i < text.length - 1; i++) grams.add(text.slice(i, i + 2));
  if (text.length === 1) grams.add(text);
  return grams;
}

function dice(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  if (a.size === 0 || b.size === 0) return 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const gram of small) if (large.has(gram)) shared++;
  return (2 * shared) / (a.size + b.size);
}
