// The steps of one merge-queue entry (docs/file-formats.md, "Merge queue"), against the tip
// the workspace branch has now: merge (integrate.ts), test in the run's scratch checkout
// (queue-test.ts), the gate (control-gate.ts), land by fast-forward when the user's tree is
// clean. Each step is written to the queue file while the entry is still this host's, so a
// cancel or a host taking it back stops the steps after it. What lands is exactly what was
// tested: the commit tested is the commit the branch is fast-forwarded to.
import { join } from 'node:path';
import type { MergeEntry } from '../../shared/schemas/merge-queue';
import { fileList } from '../worktree/errors';
import { approvedAll, askControl, controlChanges } from './control-gate';
import { changedFiles, headState, land, mergeCommit, type CommitFacts, type RepoPaths } from './integrate';
import { tellFailed, tellMerged } from './queue-notes';
import { nowSeconds } from './queue-store';
import { conflictFailure, testFailure, withOnly } from './failure';
import { QUEUE_BOX, runEntryTest, tail, testsOf, type TestSandbox } from './queue-test';
import { firstErrors, lockKey, prepareScratch, type PrepState } from './scratch-prep';
import type { ScratchCheckout } from './scratch';
import type { WorkerOptions } from './queue-options';

/** done: the entry is settled (or no longer ours); again: the branch moved, merge anew; wait: the workspace cannot take it yet. */
export type Step = 'done' | 'again' | 'wait';

/** What one run of the queue shares between its entries. */
export interface QueueRun {
  repo(): Promise<{ p: RepoPaths; facts: CommitFacts }>;
  scratch: ScratchCheckout;
  tests: TestSandbox;
  /** How the run's scratch checkout was prepared (null: not yet, or it must be again). */
  prep: PrepState | null;
}

export interface EntryCtx {
  w: WorkerOptions;
  run: QueueRun;
  e: MergeEntry;
  signal: AbortSignal;
}

interface Made { into: string; base: string; commit: string; tree: string; files: string[]; added: string[] }

export const mergeMessage = (e: MergeEntry, into: string): string => `Merge ${e.branch} (teammate ${e.teammate}) into ${into}`;

const mine = (c: EntryCtx, change: Partial<MergeEntry>): Promise<boolean> => c.w.store.mine(c.e.id, c.w.hostId, change);

/** One merge + test + gate + land against the branch's tip now. */
export async function attempt(c: EntryCtx): Promise<Step> {
  const { p, facts } = await c.run.repo();
  const st = await headState(p, c.w.git);
  if (st.busy) return waitOut(c, st.busy);
  if (!st.oid) return waitOut(c, `branch ${st.branch} has no commit yet`);
  const [into, base] = [st.branch!, st.oid];
  const tests = testsOf(c.e);
  // The tests' sandbox (its proxy and network namespace) is readied while the merge is made.
  if (tests.length) void c.run.tests.prepare?.(QUEUE_BOX);
  if (!(await mine(c, { into, base, commit: null, waiting: null }))) return 'done';
  const m = await mergeCommit(p.top, base, c.e.branch, mergeMessage(c.e, into), facts, c.w.git);
  if (m.kind === 'conflict') {
    const failure = await conflictFailure(p.top, base, m.tip, m.files, c.w.git).catch(() => undefined);
    return fail(c, `conflicts with ${into} in ${fileList(m.files)}`, { files: m.files, into, ...(failure ? { failure } : {}) });
  }
  const ch = await changedFiles(p.top, base, m.tree, c.w.git);
  // Already part of the workspace branch (its changes came another way): nothing to test or land.
  if (!ch.files.length) return merged(c, { into, commit: base, files: [] }, true);
  // The commit (and the scratch folder) are written down first: a host that dies after the
  // branch moved to it is recognised as having landed it, and its folder is removed by the next.
  const scratch = tests.length ? await c.run.scratch.folder() : null;
  if (!(await mine(c, { commit: m.commit, files: ch.files, ...(scratch ? { scratch } : {}) }))) return 'done';
  const made: Made = { into, base, commit: m.commit, tree: m.tree, ...ch };
  if (tests.length) {
    const { workdir, step } = await ready(c, p, m.commit);
    if (step) return step;
    const test = (e: MergeEntry, dir: string) => runEntryTest(c.run.tests, e, dir, c.signal, { timeoutMs: c.w.testTimeoutMs, processes: c.w.processes });
    const r = await test(c.e, workdir);
    if (r.kind === 'aborted') return 'done';
    if (r.kind === 'failed') {
      // Whose fault: the same command on the workspace branch alone, in the same prepared checkout.
      // Not comparable when the branch changed a lockfile (the checkout holds its dependencies).
      const failure = await testFailure(r, into, async (command) => ((await lockKey(p.top, base, p.subdir, c.w.git)) === c.run.prep?.key
        ? test(withOnly(c.e, command), (await checkoutAt(c, p, base)).workdir) : { kind: 'aborted' }));
      return fail(c, r.reason, { into, failure, ...(r.output_tail !== undefined ? { output_tail: r.output_tail } : {}) });
    }
  }
  if (!(await gate(c, p, made))) return 'done';
  return landWhenClean(c, p, made);
}

/** The scratch checkout moved to `commit`, what was prepared kept; `workdir`: its workspace folder. */
async function checkoutAt(c: EntryCtx, p: RepoPaths, commit: string): Promise<{ workdir: string; made: boolean }> {
  const keep = (c.run.prep?.keep ?? []).map((k) => (p.subdir ? `${p.subdir}/${k}` : k));
  const { dir, made } = await c.run.scratch.at(p.top, commit, keep);
  return { workdir: p.subdir ? join(dir, p.subdir) : dir, made };
}

/** The scratch checkout at `commit`, prepared (scratch-prep.ts): its workspace folder, or the entry failed at `prepare`. */
async function ready(c: EntryCtx, p: RepoPaths, commit: string): Promise<{ workdir: string; step?: Step }> {
  const { workdir, made } = await checkoutAt(c, p, commit);
  const key = await lockKey(p.top, commit, p.subdir, c.w.git);
  if (!made && c.run.prep?.key === key) return { workdir };
  // A lockfile changed: what was prepared goes (the checkout emptied of it too), and it is prepared again.
  const stale = !made && c.run.prep;
  c.run.prep = null;
  if (stale) await checkoutAt(c, p, commit);
  const env = { root: c.w.worktrees.root, setup: c.w.settings().worktreeSetup, tests: c.run.tests, git: c.w.git, signal: c.signal };
  const r = await prepareScratch(env, workdir, key);
  if ('failed' in r) {
    const f = r.failed;
    return { workdir, step: await fail(c, `could not be tested: ${f.reason}`, {
      prepared: r.prepared, output_tail: tail(f.output) || null,
      failure: { step: 'prepare', fault: 'environment', why: 'the scratch checkout could not be prepared (worktree.setup)', exit_code: f.exit_code, first_errors: firstErrors(f.output) },
    }) };
  }
  c.run.prep = r;
  return (await mine(c, { prepared: r.prepared })) ? { workdir } : { workdir, step: 'done' };
}

/**
 * The gate (control-gate.ts): true when the merge may land — it changes no control path, or
 * only ones approved for this entry to the byte, or the user (asked now, with each diff) says
 * yes. Else the entry is held: failed with the changes listed, for `queue approve`.
 */
async function gate(c: EntryCtx, p: RepoPaths, m: Made): Promise<boolean> {
  const pending = (await controlChanges(p.top, m.base, m.tree, m.files, c.w.git)).filter((x) => !approvedAll([x], c.e.approved));
  if (!pending.length) return true;
  const list = fileList(pending.map((x) => x.path));
  const ask = c.w.askChange;
  if (ask) {
    if (!(await mine(c, { waiting: `asks for your approval: it changes control files (${list})` }))) return false;
    if (await askControl(ask, c.e, p.top, m.base, pending, c.w.git, c.signal)) return mine(c, { waiting: null });
    if (c.signal.aborted) return false;
  }
  const why = ask ? 'you did not approve them' : 'those land only on the user\'s yes';
  await fail(c, `changes control files (${list}) and ${why}; \`agent-teams queue approve ${c.e.teammate}\` shows their diff and lands it on your yes`, {
    into: m.into, base: m.base, commit: m.commit, control: pending,
  });
  return false;
}

async function landWhenClean(c: EntryCtx, p: RepoPaths, m: Made): Promise<Step> {
  for (;;) {
    if (c.signal.aborted) return 'done';
    const r = await land(p, m.into, m.base, m.commit, m.added, c.w.git);
    if (r.kind === 'landed') return merged(c, m, false);
    if (r.kind === 'moved') return 'again';
    if (!(await mine(c, { waiting: r.reason }))) return 'done';
    await sleep(c.w.pollMs ?? 2_000, c.signal);
  }
}

async function waitOut(c: EntryCtx, reason: string): Promise<Step> {
  if (!(await mine(c, { waiting: reason }))) return 'done';
  await sleep(c.w.pollMs ?? 2_000, c.signal);
  return c.signal.aborted ? 'done' : 'wait';
}

/** Writes the entry merged — even if a cancel arrived after the branch moved: landed is landed. */
async function merged(c: EntryCtx, r: { into: string; commit: string; files: string[] }, already: boolean): Promise<Step> {
  const done = await c.w.store.update((entries) => {
    const e = entries.find((x) => x.id === c.e.id);
    Object.assign(e ?? {}, {
      state: 'merged', worker: null, scratch: null, waiting: null, into: r.into, commit: r.commit, files: r.files,
      reason: already ? `${c.e.branch} was already part of ${r.into}` : null, updated_at: nowSeconds(),
    });
    return e ? { ...e } : undefined;
  });
  if (done) await tellMerged(c.w, done, already).catch(() => undefined);
  return 'done';
}

export async function fail(c: EntryCtx, reason: string, extra: Partial<MergeEntry>): Promise<Step> {
  // `files` is what a conflict lists (written with it in `extra`), not what the merge changed.
  if (await mine(c, { state: 'failed', worker: null, scratch: null, waiting: null, commit: null, files: undefined, reason, ...extra })) {
    await tellFailed(c.w, { ...c.e, ...extra, reason, state: 'failed' });
  }
  return 'done';
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
