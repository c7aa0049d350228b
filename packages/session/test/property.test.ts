// Property test over random trees: whatever sequence of appends, branches, rewinds, state
// changes and compactions happened, fold(entries, X) equals the live state when X was head.
import type { Message } from "@keel/protocol";
import { seededRandom as prng } from "@keel/testing";
import { describe, expect, it } from "vitest";
import { compactionSummaryMessage, createSession, fold, openSession, type Session } from "../src/index.js";
import { assistant, must, tempDir, user } from "./helpers.js";

interface Item {
  source: string;
  pathIndex: number;
  message: Message;
}

/** The reference model, maintained step by step without ever looking at the journal. */
interface Live {
  path: string[];
  items: Item[];
  states: Record<string, unknown>;
  lastCompactionId: string | null;
}

const empty = (): Live => ({ path: [], items: [], states: {}, lastCompactionId: null });

function project(l: Live) {
  return {
    path: l.path,
    messageSources: l.items.map((i) => i.source),
    messages: l.items.map((i) => i.message),
    extensionStates: l.states,
    lastCompactionId: l.lastCompactionId,
  };
}

function projectFold(f: ReturnType<typeof fold>) {
  return {
    path: f.path,
    messageSources: f.messageSources,
    messages: f.messages,
    extensionStates: f.extensionStates,
    lastCompactionId: f.lastCompactionId,
  };
}

async function runSeed(seed: number, steps: number): Promise<void> {
  const rand = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  let s: Session = must(await createSession({ dir: tempDir(), cwd: "/", fsync: "never" }));
  const recorded = new Map<string | null, Live>([[null, empty()]]);
  let live = empty();
  const clone = (l: Live): Live => structuredClone(l);
  const record = (id: string) => {
    recorded.set(id, clone(live));
  };

  for (let step = 0; step < steps; step++) {
    const r = rand();
    const nodes = [...recorded.keys()];
    if (r < 0.4) {
      const message = rand() < 0.5 ? user(`u${step}`) : assistant(`a${step}`);
      const e = must(await s.appendMessage(message));
      live.path.push(e.id);
      live.items.push({ source: e.id, pathIndex: live.path.length - 1, message });
      record(e.id);
    } else if (r < 0.55) {
      const extensionId = pick(["todo", "notes", "timer"]);
      const state = { step, value: Math.floor(rand() * 100) };
      const e = must(await s.appendEntry({ type: "app_state", extensionId, state }));
      live.path.push(e.id);
      live.states[extensionId] = state;
      record(e.id);
    } else if (r < 0.65) {
      const keepFrom = live.path.length > 0 && rand() < 0.8 ? Math.floor(rand() * live.path.length) : -1;
      const firstKeptEntryId = keepFrom >= 0 ? live.path[keepFrom]! : null;
      const summary = `summary at ${step}`;
      const e = must(
        await s.appendEntry({
          type: "compaction",
          summary,
          firstKeptEntryId,
          tokensBefore: step,
          reason: "test",
        }),
      );
      live.path.push(e.id);
      const kept = keepFrom >= 0 ? live.items.filter((i) => i.pathIndex >= keepFrom) : [];
      const message = compactionSummaryMessage(summary, Date.parse(e.timestamp));
      live.items = [{ source: e.id, pathIndex: live.path.length - 1, message }, ...kept];
      live.lastCompactionId = e.id;
      record(e.id);
    } else if (r < 0.8) {
      const target = rand() < 0.1 ? null : pick(nodes);
      must(await s.branch(target));
      live = clone(recorded.get(target)!);
    } else if (r < 0.92) {
      const candidates = nodes.filter((n): n is string => n !== null);
      if (candidates.length === 0) continue;
      const target = pick(candidates);
      must(await s.rewind(target));
      live = clone(recorded.get(s.getEntry(target)!.parentId)!);
    } else {
      // Close and reopen: the head and everything else must come back from the file.
      must(await s.close());
      s = must(await openSession(s.path, { fsync: "never" }));
    }
    expect(s.headId).toBe(live.path[live.path.length - 1] ?? null);
    expect(projectFold(s.fold())).toEqual(project(live));
  }
  must(await s.close());

  const reopened = must(await openSession(s.path, { readOnly: true }));
  const entries = reopened.entries();
  for (const [id, state] of recorded) {
    expect(projectFold(fold(entries, id)), `seed ${seed}, head ${id}`).toEqual(project(state));
  }
  // Meta entries stand for the node they point at.
  for (const e of entries) {
    if (e.type !== "leaf") continue;
    expect(projectFold(fold(entries, e.id))).toEqual(
      project(recorded.get((e as { targetId: string | null }).targetId)!),
    );
  }
}

describe("fold over random trees", () => {
  for (let seed = 1; seed <= 24; seed++) {
    it(`seed ${seed}`, async () => {
      await runSeed(seed, 120);
    });
  }
});
