// The team's one change feed (core/team/team-files.ts, reached through TeamSession): each
// kind of file a view follows — inbox, transcript, change records, worktrees, `.mcp.json` —
// reaches it as the event that view listens to, and a host opens one OS watch per team
// folder however many views and transcript panels follow, never one of its own per file.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { appendFile, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { TeamSession, type FileEvent, type TeamChange } from '../../src/core/session';
import { appendJsonLine } from '../../src/core/team/jsonl';
import { Team } from '../../src/core/team/team';
import { TranscriptFollower } from '../../src/core/watch/transcript-reader';
import { node, FAULTY } from '../mcp/helpers';
import { harness } from '../runtime/harness';
import { sleep, tempDir, waitFor } from '../helpers/tmp';
import { partsOf } from '../helpers/session-parts';

/** Counts the OS watches opened from now on (fs.watch), by path, until the test ends. */
function countWatches(t: TestContext): string[] {
  const opened: string[] = [];
  const real = fs.watch;
  fs.watch = ((path: fs.PathLike, ...rest: unknown[]) => {
    opened.push(String(path));
    return (real as (...a: unknown[]) => fs.FSWatcher)(path, ...rest);
  }) as typeof fs.watch;
  t.after(() => {
    fs.watch = real;
  });
  return opened;
}

const line = (id: string) => ({ id, kind: 'msg', ts: 1, message: { role: 'user', content: 'Go.' } });

async function openSession(t: TestContext): Promise<TeamSession> {
  const root = await tempDir(t, 'agent-teams-feed-');
  const session = new TeamSession({ root });
  t.after(() => session.dispose());
  await partsOf(session).team.init();
  return session;
}

test('each kind of team file a view follows reaches it from the session feed, with whose file it was', async (t) => {
  const session = await openSession(t);
  const { paths } = partsOf(session).team;
  const team: TeamChange[] = [];
  const files: FileEvent[] = [];
  const subs = await Promise.all([
    session.subscribe((k) => team.push(k)), // the trees and the inbox view (TeamHost)
    session.watchFiles(['transcripts', 'changes', 'worktrees', 'mcp'], (e) => files.push(e)),
  ]);
  t.after(() => subs.forEach((s) => s.dispose()));
  // Following folders that do not exist yet does not create them in the user's workspace.
  for (const d of [paths.changesDir, paths.worktreesDir]) assert.equal(await stat(d).catch(() => null), null, `${d} not created`);

  await partsOf(session).team.mailbox.send({ from: 'user', to: 'lead', type: 'message', content: 'hi' });
  await waitFor(() => team.includes('inbox'), 5000, 'inbox event (inbox view)');

  await appendJsonLine(paths.transcript('alice'), line('m1'));
  await waitFor(() => files.some((e) => e.kind === 'transcripts' && e.name === 'alice'), 5000, "alice's transcript event (her panel)");

  // .team/changes appears with the first record: its first line is reported too.
  await mkdir(paths.changesDir);
  await appendFile(join(paths.changesDir, 'bob.jsonl'), '{"id":"chg_1"}\n');
  await waitFor(() => files.some((e) => e.kind === 'changes' && e.name === 'bob'), 5000, "bob's change records event (Changes view)");

  await mkdir(paths.worktreesDir);
  await writeFile(join(paths.worktreesDir, 'index.json'), '{"version":1,"worktrees":[]}');
  await waitFor(() => files.some((e) => e.kind === 'worktrees'), 5000, 'worktrees event (Team tree)');

  await writeFile(join(session.root, '.mcp.json'), '{"mcpServers":{}}');
  await waitFor(() => files.some((e) => e.kind === 'mcp'), 5000, '.mcp.json event (MCP servers)');

  assert.ok(files.every((e) => e.kind !== 'transcripts' || e.name === 'alice'), 'only the transcript written');
  assert.ok(!team.some((k) => (k as string) === 'transcripts'), 'Team.subscribe reports the team state only, as before');
});

test('a host opens one watch per team folder, however many transcript panels follow; a panel opens none of its own', async (t) => {
  const session = await openSession(t);
  const { paths } = partsOf(session).team;
  const opened = countWatches(t);
  const stops: Array<() => void> = [];
  t.after(() => stops.forEach((s) => s()));
  // What the VS Code host subscribes: TeamHost (team state, worktrees), the Changes view, an agent's mailbox.
  const subs = await Promise.all([
    session.watchFiles(['roster', 'inbox', 'requests', 'tasks', 'queue', 'worktrees'], () => undefined),
    session.watchFiles(['changes'], () => undefined),
    partsOf(session).team.mailbox.subscribe('lead', () => undefined),
  ]);
  t.after(() => subs.forEach((s) => s.dispose()));
  const seen = new Map<string, string[]>();
  const panel = (agent: string) => {
    const f = new TranscriptFollower(paths.transcript(agent), agent, (c) => {
      if (c.op === 'put') seen.set(agent, [...(seen.get(agent) ?? []), c.item.key]);
    });
    // As transcript-panel.ts follows: through the session's feed, filtered to its agent.
    stops.push(f.follow({ pollMs: 60_000, changes: (cb) => session.watchFiles(['transcripts'], (e) => e.name === agent && cb()) }));
  };
  panel('alice');
  await sleep(100);
  const withOne = [...opened];
  for (const a of ['bob', 'carol', 'lead']) panel(a);
  await sleep(100);
  assert.deepEqual(opened, withOne, 'three more panels open no watch');
  assert.equal(new Set(opened).size, opened.length, `each folder once: ${opened.join(', ')}`);
  assert.ok(!opened.some((p) => p.endsWith('.jsonl')), 'no watch on a transcript file');
  assert.ok(opened.includes(paths.transcriptsDir));

  // The panel still reads what another process appends, as soon as it is written (the poll is a minute).
  await appendJsonLine(paths.transcript('bob'), line('b1'));
  await waitFor(() => seen.get('bob')?.length, 5000, "bob's panel shows the new line");
  assert.equal(seen.get('alice'), undefined, "alice's panel read nothing");

  // The CLI's `log -f` (no session feed) watches its file itself, as every panel did before.
  const cli = new TranscriptFollower(paths.transcript('bob'), 'bob', () => undefined);
  stops.push(cli.follow({ pollMs: 60_000 }));
  assert.equal(opened.at(-1), paths.transcript('bob'));
});

test('.mcp.json edits reach the MCP servers through the session feed: the root is watched once', async (t) => {
  const opened = countWatches(t);
  const h = await harness(t, {}, 'allow', { mcpServerStart: async () => true });
  const changes: number[] = [];
  partsOf(h.rt).runner!.mcp.onChange(() => changes.push(Date.now()));
  await partsOf(h.rt).runner!.mcp.ensureStarted();
  // A second watcher of the root (the VS Code host waiting for a team) shares the same watch.
  const layout = await h.rt.watchFiles(['layout'], () => undefined);
  t.after(() => layout.dispose());
  await writeFile(join(h.root, '.mcp.json'), JSON.stringify({ mcpServers: { a: node(FAULTY, 'ok') } }));
  await waitFor(() => partsOf(h.rt).runner!.mcp.list().some((s) => s.name === 'a' && s.state.kind === 'ready'), 20_000, 'server a started from the edit');
  assert.ok(changes.length > 0, 'the Team tree hears of it (mcp.onChange)');
  assert.equal(opened.filter((p) => p === h.root).length, 1, `the workspace folder watched once: ${opened.join(', ')}`);
});

test('a followed folder removed and made again is followed again (the worktrees folder after its last worktree went)', async (t) => {
  const root = await tempDir(t, 'agent-teams-feed-');
  const team = new Team(root, { pollMs: 100 });
  t.after(() => team.dispose());
  await team.init();
  const seen: FileEvent[] = [];
  const sub = await team.files.on(['worktrees'], (e) => seen.push(e));
  t.after(() => sub.dispose());
  const index = join(team.paths.worktreesDir, 'index.json');
  await mkdir(team.paths.worktreesDir);
  await writeFile(index, '{"version":1,"worktrees":[]}');
  await waitFor(() => seen.length, 5000, 'first event');
  await sleep(300); // the poll has recorded which folder it watches
  await rm(team.paths.worktreesDir, { recursive: true });
  await sleep(300);
  await mkdir(team.paths.worktreesDir);
  seen.length = 0;
  await writeFile(index, '{"version":1,"worktrees":[]}');
  await waitFor(() => seen.some((e) => e.file === 'index.json'), 5000, 'event from the new folder');
});
