// Cross-process guarantees: real child processes, real kill -9.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { Team } from '../../src/core/team/team';
import { sleep, tempDir } from '../helpers/tmp';

const fixture = (name: string) => join(__dirname, '..', 'fixtures', `${name}.js`);

function start(name: string, args: string[]): ChildProcess & { done: Promise<number | null>; stdoutText: () => string } {
  const child = spawn(process.execPath, [fixture(name), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const done = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return Object.assign(child, { done, stdoutText: () => out });
}

async function lines(path: string): Promise<string[]> {
  return (await readFile(path, 'utf8').catch(() => '')).split('\n').filter(Boolean);
}

test('8 writer processes + a reader, random kill -9 of both: every acked message exactly once, in per-sender order', async (t) => {
  const root = await tempDir(t);
  const team = await new Team(root).init();
  t.after(() => team.dispose());
  await team.spawnMember('sink', 'reader');
  const writers = 8;
  const perWriter = 400;
  const journal = join(root, 'journal.jsonl');
  const stopFile = join(root, 'stop');
  const startReader = () => start('mailbox-reader', [root, 'sink', journal, stopFile]);

  let reader = startReader();
  const writerLoops = Array.from({ length: writers }, async (_, w) => {
    let remaining = perWriter;
    let epoch = 0;
    while (remaining > 0) {
      const ackLog = join(root, `acks-w${w}-${epoch}.log`);
      const child = start('mailbox-writer', [root, `w${w}`, 'sink', String(remaining), String(epoch), ackLog]);
      const killAfter = epoch < 2 && Math.random() < 0.7 ? 50 + Math.random() * 400 : Infinity;
      const timer = Number.isFinite(killAfter) ? setTimeout(() => child.kill('SIGKILL'), killAfter) : null;
      const code = await child.done;
      if (timer) clearTimeout(timer);
      const acked = (await lines(ackLog)).length;
      remaining -= acked;
      if (code !== 0 && code !== null) throw new Error(`writer w${w} failed with ${code}`);
      epoch++;
    }
  });
  // Kill the reader a few times while writers run.
  let readerKills = 0;
  const chaos = (async () => {
    for (let i = 0; i < 3; i++) {
      await sleep(150 + Math.random() * 300);
      reader.kill('SIGKILL');
      await reader.done;
      readerKills++;
      reader = startReader();
    }
  })();
  await Promise.all([...writerLoops, chaos]);
  await writeFile(stopFile, '');
  assert.equal(await reader.done, 0);

  const acked = new Set<string>();
  for (let w = 0; w < writers; w++) {
    for (let e = 0; e < 10; e++) for (const id of await lines(join(root, `acks-w${w}-${e}.log`))) acked.add(id);
  }
  const delivered: string[] = [];
  const contents: string[] = [];
  for (const line of await lines(journal)) {
    let rec: { ids: string[]; contents: string[] };
    try {
      rec = JSON.parse(line);
    } catch {
      continue; // torn by a kill before its ack: redelivered later
    }
    delivered.push(...rec.ids);
    contents.push(...rec.contents);
  }
  const seen = new Set<string>();
  const dups = delivered.filter((id) => (seen.has(id) ? true : (seen.add(id), false)));
  assert.equal(dups.length, 0, `duplicated: ${dups.length}`);
  const lost = [...acked].filter((id) => !seen.has(id));
  assert.equal(lost.length, 0, `lost ${lost.length} of ${acked.size} acked`);
  assert.ok(acked.size >= writers * perWriter, `acked ${acked.size}`);
  // Per-sender order: within each writer incarnation, sequence numbers increase.
  const last = new Map<string, number>();
  for (const c of contents) {
    const [w, e, seq] = c.split(':');
    const key = `${w}:${e}`;
    assert.ok((last.get(key) ?? -1) < Number(seq), `order broken for ${key} at ${seq}`);
    last.set(key, Number(seq));
  }
  assert.equal(readerKills, 3);
});

test('4 processes × 4 claimers over 1000 tasks: no double claims, none lost', async (t) => {
  const root = await tempDir(t);
  const team = await new Team(root).init();
  t.after(() => team.dispose());
  for (let i = 0; i < 1000; i++) await team.tasks.create({ subject: `task ${i}` });
  const procs = Array.from({ length: 4 }, (_, p) => start('task-claimer', [root, `p${p}`, '4']));
  const codes = await Promise.all(procs.map((p) => p.done));
  assert.deepEqual(codes, [0, 0, 0, 0]);
  const claims = procs.flatMap((p) => Object.values(JSON.parse(p.stdoutText()) as Record<string, number[]>).flat());
  assert.equal(claims.length, 1000, 'each task claimed exactly once');
  assert.equal(new Set(claims).size, 1000);
  const board = await team.tasks.list();
  assert.equal(board.length, 1000);
  assert.ok(board.every((x) => x.status === 'completed' && x.owner.startsWith('p')));
});

test('task ids stay unique when processes create concurrently', async (t) => {
  const root = await tempDir(t);
  const team = await new Team(root).init();
  t.after(() => team.dispose());
  const script = (p: number) => `
    const { Team } = require(${JSON.stringify(require.resolve('../../src/core/team/team'))});
    const team = new Team(${JSON.stringify(root)});
    (async () => { for (let i = 0; i < 50; i++) await team.tasks.create({ subject: 'p${p}-' + i }); team.dispose(); })();`;
  const kids = Array.from({ length: 4 }, (_, p) => spawn(process.execPath, ['-e', script(p)], { stdio: 'inherit' }));
  await Promise.all(kids.map((k) => new Promise((r) => k.on('exit', r))));
  const tasks = await team.tasks.list();
  assert.equal(tasks.length, 200);
  assert.deepEqual(tasks.map((x) => x.id), Array.from({ length: 200 }, (_, i) => i + 1));
});

test('readers polling config.json and task files during rewrites never see invalid JSON', async (t) => {
  const root = await tempDir(t);
  const team = await new Team(root).init();
  t.after(() => team.dispose());
  await team.spawnMember('alice', 'r');
  await team.tasks.create({ subject: 'x', description: 'y'.repeat(20_000) });
  const script = `
    const { Team } = require(${JSON.stringify(require.resolve('../../src/core/team/team'))});
    const team = new Team(${JSON.stringify(root)});
    (async () => {
      for (let i = 0; i < 300; i++) {
        await team.roster.patch('alice', { note: 'n'.repeat(i * 50), status: i % 2 ? 'idle' : 'working' });
        await team.tasks.update(1, { status: i % 2 ? 'pending' : 'in_progress' });
      }
      team.dispose();
    })();`;
  const writer = spawn(process.execPath, ['-e', script], { stdio: 'inherit' });
  let exited = false;
  const done = new Promise((r) => writer.on('exit', () => r((exited = true))));
  let reads = 0;
  let bad = 0;
  while (!exited) {
    for (const p of [team.paths.config, team.paths.task(1)]) {
      const text = await readFile(p, 'utf8');
      reads++;
      try {
        JSON.parse(text);
      } catch {
        bad++;
      }
    }
  }
  await done;
  assert.ok(reads > 50, `only ${reads} reads`);
  assert.equal(bad, 0);
});
