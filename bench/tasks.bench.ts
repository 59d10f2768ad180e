// tasks.claim (issue 2, SPEC §8): 1000 pending tasks, 16 claimers in 4 processes racing to
// claim and complete them, ours (TaskBoard: board lock, atomic writes) against the
// tutorial's unlocked read-check-write claim on the same load.
// Tunables (env): BENCH_TASKS (1000), BENCH_CLAIM_PROCS (4), BENCH_CLAIMERS_PER_PROC (4).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Team } from '../src/core/team/team';
import { NaiveTaskBoard } from './lib/naive';
import { startChild, startTogether } from './lib/proc';
import { bench, note, round, type Figures } from './lib/report';
import type { ClaimerResult } from './fixtures/claimer';

const env = (k: string, d: number): number => (process.env[k] ? Number(process.env[k]) : d);
const TASKS = env('BENCH_TASKS', 1000);
const PROCS = env('BENCH_CLAIM_PROCS', 4);
const PER_PROC = env('BENCH_CLAIMERS_PER_PROC', 4);
const FIXTURES = join(__dirname, 'fixtures');

/** Creates the board: ours through the API (ids, generation record), naive as plain files. */
async function seed(impl: 'ours' | 'naive', root: string): Promise<void> {
  if (impl === 'ours') {
    const team = await new Team(root).init();
    try {
      for (let i = 1; i <= TASKS; i++) await team.tasks.create({ subject: `task ${i}` });
    } finally {
      team.dispose();
    }
    return;
  }
  await new Team(root).init();
  const board = new NaiveTaskBoard(root);
  for (let id = 1; id <= TASKS; id++) {
    await board.write({ id, subject: `task ${id}`, description: '', status: 'pending', owner: '', blockedBy: [] });
  }
}

/**
 * What is on disk afterwards: tasks not completed were dropped somewhere; unreadable ones
 * were corrupted by racing in-place rewrites (naive) — ours would have moved such a file
 * aside and reported it, so it is counted the same way for both.
 */
async function finalState(impl: 'ours' | 'naive', root: string): Promise<{ unfinished: number; corrupt: number }> {
  let unfinished = 0;
  let corrupt = 0;
  if (impl === 'ours') {
    const team = new Team(root);
    for (let id = 1; id <= TASKS; id++) {
      const t = await team.tasks.get(id);
      if (!t) corrupt++;
      else if (t.status !== 'completed') unfinished++;
    }
    team.dispose();
  } else {
    const board = new NaiveTaskBoard(root);
    for (let id = 1; id <= TASKS; id++) {
      const t = await board.read(id);
      if (!t) corrupt++;
      else if (t.status !== 'completed') unfinished++;
    }
  }
  return { unfinished, corrupt };
}

async function claimRace(impl: 'ours' | 'naive'): Promise<Figures> {
  const root = await mkdtemp(join(tmpdir(), `bench-tasks-${impl}-`));
  try {
    await seed(impl, root);
    const children = Array.from({ length: PROCS }, (_, p) =>
      startChild<ClaimerResult>(join(FIXTURES, 'claimer.js'), [impl, root, `p${p}`, String(PER_PROC)]),
    );
    await startTogether(children);
    const results = await Promise.all(children.map((c) => c.done));
    const owners = new Map<number, number>(); // task id → how many claimers believed they won it
    let claims = 0;
    for (const r of results) {
      for (const ids of Object.values(r.claimed)) {
        for (const id of ids) owners.set(id, (owners.get(id) ?? 0) + 1);
        claims += ids.length;
      }
    }
    const startMs = Math.min(...results.map((r) => r.startMs));
    const endMs = Math.max(...results.map((r) => r.endMs));
    const errors = results.reduce((a, r) => a + r.errors, 0);
    if (errors) throw new Error(`${impl}: ${errors} claimer(s) failed (see above)`);
    return {
      tasks: TASKS,
      claimers: PROCS * PER_PROC,
      processes: PROCS,
      double_claims: [...owners.values()].filter((n) => n > 1).length,
      lost: TASKS - owners.size,
      ...(await finalState(impl, root)),
      claims,
      // Distinct tasks claimed (and completed) per second of the race.
      claims_per_s: Math.round(owners.size / ((endMs - startMs) / 1000)),
      seconds: (endMs - startMs) / 1000,
      torn_reads: results.reduce((a, r) => a + r.torn, 0),
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const t0 = Date.now();
  console.log(`tasks.claim: ${TASKS} tasks, ${PROCS} processes × ${PER_PROC} claimers, each claims then completes until none is left`);
  console.log('  naive: unlocked read-check-write claim; its scan skips work that cannot change the outcome (see bench/lib/naive.ts), so its claims/s is an upper bound');
  bench('tasks.claim', 'ours', await claimRace('ours'));
  bench('tasks.claim', 'naive', await claimRace('naive'));
  note(`tasks bench took ${round((Date.now() - t0) / 1000, 1)} s`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
