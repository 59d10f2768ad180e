// The steps of one merge-queue entry (docs/file-formats.md, "Merge queue"), against the tip
// the workspace branch has now: merge (integrate.ts), test in the run's scratch checkout
// (scratch.ts, queue-test.ts), the gate (control-gate.ts), land by fast-forward when the
// user's tree is clean. Each step is written to the queue file while the entry is still this
// host's, so a cancel or a host taking it back stops the steps after it. What lands is exactly
// what was tested: the commit tested is the commit the branch is fast-forwarded to.
import { setTimeout as sleep } from 'node:timers/promises';
import type { ControlChange, MergeEntry } from '../../shared/schemas/merge-queue';
import { fileList } from '../worktree/errors';
import { resolveCommit } from '../worktree/repo';
import { approvedAll, askControl, configuredControlPaths, inConfigured, isControlPath } from './control-gate';
import { changedFiles, headState, land, mergeCommit, repoFacts, type RepoFacts } from './integrate';
import type { WorkerOptions } from './queue-options';
import { tellFailed, tellMerged } from './queue-notes';
import { nowSeconds } from './queue-store';
import { firstErrors, QUEUE_BOX, runTests, tail, testFailure, testsOf } from './queue-test';
import type { ScratchCheckout } from './scratch';

/** What one run of the queue shares between its entries. */
export interface QueueRun {
  scratch: ScratchCheckout;
  /** The repository's facts, asked at the run's first entry (a failure: asked again at the next). */
  repo: RepoFacts | null;
}

export interface EntryCtx {
  w: WorkerOptions;
  run: QueueRun;
  e: MergeEntry;
  signal: AbortSignal;
}

/** The merge being worked: onto `base`, the tip of `into`; `changes` what it changes. */
interface Made { into: string; base: string; commit: string; changes: ControlChange[] }

/** How often a waiting entry looks at the user's tree again; the worker looks for new entries as often. */
export const POLL_MS = 2_000;

const mine = (c: EntryCtx, change: Partial<MergeEntry>): Promise<boolean> => c.w.store.mine(c.e.id, c.w.hostId, change);

/** One merge + test + gate + land against the branch's tip now: 'done' when the entry is settled (or no longer ours), 'again' when the branch moved. */
export async function attempt(c: EntryCtx): Promise<'done' | 'again'> {
  const p = (c.run.repo ??= await repoFacts(c.w.worktrees.root));
  let st = await headState(p);
  for (let why = st.busy; why || !st.oid; why = st.busy) {
    if (!(await hold(c, why ?? `branch ${st.branch} has no commit yet`))) return 'done';
    st = await headState(p);
  }
  const [into, base] = [st.branch!, st.oid!];
  const tests = testsOf(c.e);
  // The tests' sandbox (its proxy and network namespace) is readied while the merge is made.
  if (tests.length) void c.w.tests.prepare?.(QUEUE_BOX);
  if (!(await mine(c, { into, base, commit: null, waiting: null }))) return 'done';
  const m = await mergeCommit(p, base, c.e.branch, `Merge ${c.e.branch} (teammate ${c.e.teammate}) into ${into}`);
  if (m.kind === 'conflict') return fail(c, `conflicts with ${into} in ${fileList(m.files)}`, { files: m.files, into, failure: m.failure });
  const made: Made = { into, base, commit: m.commit, changes: await changedFiles(p.toplevel, base, m.tree) };
  const files = made.changes.map((x) => x.path);
  // Already part of the workspace branch (its changes came another way): nothing to test or land.
  if (!files.length) return merged(c, { into, commit: base, files }, true);
  // The commit is written down first: a host that dies after the branch moved to it is recognised as having landed it.
  if (!(await mine(c, { commit: m.commit, files }))) return 'done';
  if (tests.length && !(await tested(c, p, made, tests))) return 'done';
  if (!(await gate(c, p, made))) return 'done';
  while (!c.signal.aborted) {
    const r = await land(p, into, base, m.commit);
    if (r.kind === 'landed') return merged(c, { into, commit: m.commit, files }, false);
    if (r.kind === 'moved') return 'again';
    if (!(await hold(c, r.reason))) return 'done';
  }
  return 'done';
}

/** The merge's tests in the scratch checkout, prepared: true when they passed, else the entry is settled (or no longer ours). */
async function tested(c: EntryCtx, p: RepoFacts, m: Made, tests: string[]): Promise<boolean> {
  const ready = await c.run.scratch.ready(p, m.commit, c.w, c.signal);
  if ('failed' in ready) {
    const f = ready.failed;
    await fail(c, `could not be tested: ${f.reason}`, {
      prepared: ready.prepared, output_tail: tail(f.output) || null,
      failure: { step: 'prepare', fault: 'environment', why: 'the scratch checkout could not be prepared (worktree.setup)', exit_code: f.exit_code, first_errors: firstErrors(f.output) },
    });
    return false;
  }
  if (!(await mine(c, { prepared: ready.prepared }))) return false;
  const r = await runTests(c.w, c.signal, tests, ready.workdir);
  if (r.kind !== 'failed') return r.kind === 'passed';
  // Whose fault: the same command on the workspace branch alone, in the same prepared checkout
  // (not comparable when the branch changed a lockfile: the checkout holds its dependencies).
  const failure = await testFailure(r, m.into, async (command) => {
    const dir = await c.run.scratch.asPrepared(p, m.base);
    return dir ? runTests(c.w, c.signal, [command], dir) : { kind: 'aborted' };
  });
  await fail(c, r.reason, { into: m.into, failure, output_tail: tail(r.output) });
  return false;
}

/**
 * The gate (control-gate.ts): true when the merge may land — it changes no control path, or
 * only ones approved for this entry to the byte, or the user (asked now, with each diff) says
 * yes. Else the entry is held: failed with the changes listed, for `queue approve`.
 */
async function gate(c: EntryCtx, p: RepoFacts, m: Made): Promise<boolean> {
  const configured = await configuredControlPaths(p.toplevel).catch(() => []);
  const pending = m.changes.filter((x) => (isControlPath(x.path) || inConfigured(x.path, configured)) && !approvedAll([x], c.e.approved));
  if (!pending.length) return true;
  const list = fileList(pending.map((x) => x.path));
  const ask = c.w.askChange;
  if (ask) {
    if (!(await mine(c, { waiting: `asks for your approval: it changes control files (${list})` }))) return false;
    if (await askControl(ask, c.e, p.toplevel, m.base, pending, c.signal)) return mine(c, { waiting: null });
    if (c.signal.aborted) return false;
  }
  const why = ask ? 'you did not approve them' : 'those land only on the user\'s yes';
  await fail(c, `changes control files (${list}) and ${why}; \`agent-teams queue approve ${c.e.teammate}\` shows their diff and lands it on your yes`, {
    into: m.into, base: m.base, commit: m.commit, control: pending,
  });
  return false;
}

/** The entry waits a while saying why; false when it is no longer ours (cancelled, taken back). */
async function hold(c: EntryCtx, reason: string): Promise<boolean> {
  if (!(await mine(c, { waiting: reason }))) return false;
  await sleep(POLL_MS, undefined, { signal: c.signal }).catch(() => undefined);
  return !c.signal.aborted;
}

/** Writes the entry merged — even if a cancel arrived after the branch moved: landed is landed. */
async function merged(c: EntryCtx, r: { into: string; commit: string; files: string[] }, already: boolean): Promise<'done'> {
  const done = await c.w.store.set(c.e.id, {
    state: 'merged', worker: null, waiting: null, into: r.into, commit: r.commit, files: r.files,
    reason: already ? `${c.e.branch} was already part of ${r.into}` : null, updated_at: nowSeconds(),
  });
  if (done) await tellMerged(c.w, done, already).catch(() => undefined);
  return 'done';
}

export async function fail(c: EntryCtx, reason: string, extra: Partial<MergeEntry>): Promise<'done'> {
  // The tip it failed at: a later one is the teammate's fix (merge-queue.ts requeueFixed).
  const tip = await resolveCommit(c.w.worktrees.root, `refs/heads/${c.e.branch}`, {}).catch(() => null);
  // `files` is what a conflict lists (written with it in `extra`), not what the merge changed.
  if (await mine(c, { state: 'failed', worker: null, waiting: null, commit: null, files: undefined, reason, ...(tip ? { tip } : {}), ...extra })) {
    await tellFailed(c.w, { ...c.e, ...extra, reason, state: 'failed' });
  }
  return 'done';
}
