// runtime.resume_ms (docs: bench/README.md): a host starting over a team whose transcripts
// total `transcript_mb`, until every agent is ready (TeamSession.start resolves after each
// teammate's conversation is restored). History lies before each agent's last compaction,
// as in a long-lived team, so resuming should cost the same whatever its size.
// naive: what restore did before, reading and parsing every transcript line from byte 0.
// Tunables (env): BENCH_RT_RESUME_MB ("16,128,512": total sizes), BENCH_RT_RESUME_AGENTS (4).
import { randomUUID } from 'node:crypto';
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TeamSession } from '../src/core/session/team-session';
import { Team } from '../src/core/team/team';
import { createModelClient } from '../src/core/model';
import { bench, note, round } from './lib/report';
import { BASE_SETTINGS, noteMachine } from './fixtures/runtime-common';

const SIZES = (process.env.BENCH_RT_RESUME_MB ?? '16,128,512').split(',').map(Number);
const AGENTS = Number(process.env.BENCH_RT_RESUME_AGENTS ?? 4);

const line = (e: object) => JSON.stringify(e) + '\n';

/** A transcript of `bytes` history, then a compaction and 20 messages after it. */
async function writeTranscript(path: string, bytes: number): Promise<void> {
  const fh = await open(path, 'w');
  const chunk = 'history '.repeat(8192);
  let buf = '';
  for (let written = 0; written < bytes;) {
    const l = line({ id: randomUUID(), kind: 'msg', message: { role: 'user', content: chunk } });
    buf += l;
    written += l.length;
    if (buf.length > 4 << 20) {
      await fh.write(buf);
      buf = '';
    }
  }
  buf += line({ id: randomUUID(), kind: 'reset', messages: [{ role: 'user', content: 'Summary of the work so far.' }], inbox_cursor: 0 });
  for (let i = 0; i < 20; i++) buf += line({ id: randomUUID(), kind: 'msg', message: { role: i % 2 ? 'user' : 'assistant', content: `after ${i}` } });
  buf += line({ id: randomUUID(), kind: 'msg', message: { role: 'assistant', content: 'Done for now.' } });
  await fh.write(buf);
  await fh.close();
}

async function workspace(totalMb: number): Promise<{ root: string; names: string[] }> {
  const root = await mkdtemp(join(tmpdir(), 'bench-resume-'));
  const team = await new Team(root).init();
  const names = Array.from({ length: AGENTS }, (_, i) => `mate${i + 1}`);
  for (const n of names) {
    await team.spawnMember(n, 'dev');
    await team.roster.patch(n, { status: 'idle' });
  }
  const per = Math.floor((totalMb << 20) / (AGENTS + 1));
  for (const n of ['lead', ...names]) await writeTranscript(team.paths.transcript(n), per);
  team.dispose();
  return { root, names };
}

async function measure<T>(fn: () => Promise<T>): Promise<{ ms: number; rssMb: number; value: T }> {
  const base = process.memoryUsage().rss;
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const t0 = performance.now();
  const value = await fn();
  const ms = performance.now() - t0;
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().rss);
  return { ms, rssMb: (peak - base) / 2 ** 20, value };
}

async function main(): Promise<void> {
  noteMachine();
  note(`${AGENTS} teammates + lead, history before each one's last compaction; sizes ${SIZES.join(', ')} MB`);
  for (const mb of SIZES) {
    const { root, names } = await workspace(mb);
    const ours = await measure(() => TeamSession.start({
      root, settings: BASE_SETTINGS,
      agents: {
        approver: { bash: async () => 'allow' },
        // Never called: every agent resumes idle.
        models: (model, onStatus) => createModelClient({ apiKey: 'sk-bench', baseURL: 'http://127.0.0.1:9', model, caching: false, onStatus }),
      },
    }));
    const ready = names.every((n) => ours.value.activity(n).kind !== 'stopped');
    await ours.value.dispose();
    bench('runtime.resume_ms', 'ours', { transcript_mb: mb, ms: round(ours.ms), rss_growth_mb: round(ours.rssMb), agents: AGENTS + 1, ready });
    const naive = await measure(async () => {
      for (const n of ['lead', ...names]) {
        const text = await readFile(join(root, '.team', 'transcripts', `${n}.jsonl`), 'utf8');
        for (const l of text.split('\n')) if (l) JSON.parse(l);
      }
    });
    bench('runtime.resume_ms', 'naive', { transcript_mb: mb, ms: round(naive.ms), rss_growth_mb: round(naive.rssMb), agents: AGENTS + 1 });
    await rm(root, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
