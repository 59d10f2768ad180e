// Architecture rules the code must keep (ARCHITECTURE.md): the layers and their allowed
// arrows, no import circles, small files, and no blocking calls.
import assert from 'node:assert/strict';
import { builtinModules } from 'node:module';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

const repo = join(__dirname, '..', '..');
const src = join(repo, 'src');

/** Who may import whom. `vscode` the API is only for the VS Code layer; `node` the built-ins. */
const ALLOWED: Record<string, string[]> = {
  core: ['shared', 'node'],
  shared: [],
  vscode: ['core', 'shared', 'vscode-api', 'node'],
  cli: ['core', 'shared', 'node'],
  webview: ['shared'],
};

async function sources(dir: string, out: string[] = []): Promise<string[]> {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) await sources(p, out);
    else if (/\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** Every module a file names: static imports and re-exports, `import()`, `require()`, `typeof import()`. */
function specifiers(text: string): string[] {
  const out: string[] = [];
  const code = text.replace(/^\s*\/\/.*$/gm, '');
  for (const m of code.matchAll(/(?:^|[\s;}])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|\bimport\s*['"]([^'"]+)['"]|\b(?:import|require)\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    out.push((m[1] ?? m[2] ?? m[3])!);
  }
  return out;
}

interface Edge { from: string; to: string; spec: string }

let graph: Promise<{ files: string[]; edges: Edge[]; text: Map<string, string> }> | undefined;
function load() {
  graph ??= (async () => {
    const files = await sources(src);
    const known = new Set(files);
    const text = new Map<string, string>();
    const edges: Edge[] = [];
    for (const f of files) {
      const t = await readFile(f, 'utf8');
      text.set(f, t);
      for (const spec of specifiers(t)) {
        if (!spec.startsWith('.')) {
          edges.push({ from: f, to: spec, spec });
          continue;
        }
        const base = resolve(dirname(f), spec);
        const to = [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((c) => known.has(c)) ?? base;
        edges.push({ from: f, to, spec });
      }
    }
    return { files, edges, text };
  })();
  return graph;
}

function layerOf(file: string): string {
  return relative(src, file).split(/[\\/]/)[0]!;
}

function targetLayer(e: Edge): string | null {
  if (e.spec.startsWith('.')) return e.to.startsWith(src) ? layerOf(e.to) : 'outside';
  if (e.spec === 'vscode') return 'vscode-api';
  const bare = e.spec.replace(/^node:/, '').split('/')[0]!;
  if (e.spec.startsWith('node:') || builtinModules.includes(bare)) return 'node';
  return null; // an npm package: allowed in every layer (the bundle decides where it runs)
}

test('each layer imports only what the table allows: core → shared; vscode, cli → core, shared; webview → shared', async () => {
  const { edges } = await load();
  const bad: string[] = [];
  for (const e of edges) {
    const from = layerOf(e.from);
    const to = targetLayer(e);
    if (to === null || to === from) continue;
    if (!(ALLOWED[from] ?? []).includes(to)) bad.push(`${relative(repo, e.from)} (${from}) imports ${e.spec} (${to})`);
  }
  assert.deepEqual(bad, []);
});

test('hosts reach the core only through its door: src/vscode and src/cli import core/session/** alone', async () => {
  const { edges } = await load();
  const door = join(src, 'core', 'session');
  const bad = edges
    .filter((e) => ['vscode', 'cli'].includes(layerOf(e.from)) && e.spec.startsWith('.') && targetLayer(e) === 'core')
    .filter((e) => !e.to.startsWith(door + '/') && e.to !== join(door, 'index.ts'))
    .map((e) => `${relative(repo, e.from)} imports ${e.spec}`);
  assert.deepEqual(bad, []);
});

/**
 * The engine values the door (core/session's index, models, containers) may hand a host, by
 * kind: anything else a host needs is a view, an action or an event of the session. Types
 * are free (data has no behaviour); a new value here is a decision, made in this list.
 */
const DOOR_VALUES: Record<string, string[]> = {
  // Words: team state and its numbers, worded the same in every host (pure functions).
  words: [
    'askReason', 'branchStateWords', 'commandLine', 'describeIgnored', 'entryWords', 'estimateCost', 'formatCost',
    'gitExposureWarning', 'isPlanning', 'PLANNING_WORDS', 'positions', 'preparedWords', 'proposalText', 'sandboxReportText',
    'shownEntries', 'stateWords', 'teamProposalText', 'unifiedDiff', 'changeLines', 'overlapsOf', 'liveForeignHost', 'providerOf',
  ],
  // Checks of what the user typed (pure).
  checks: ['assertParticipantName', 'assertTeammateName', 'isParticipantName', 'NAME_RE', 'checkName', 'normalizeGlobs', 'WorktreeSetupSchema', 'containerFileSchema'],
  // The folder's configuration, read before a session starts agents (trust, settings, roles,
  // hooks, MCP, sandbox): what the user is asked about or shown before anything runs.
  configuration: [
    'DEFAULT_SETTINGS', 'readTeamSettings', 'setTeamSettingsTrusted', 'resolveModel', 'loadTeamDefinitions', 'HOOK_EVENTS', 'loadHookConfig',
    'readMcpConfig', 'describeSandbox', 'trackedHidden', 'controlFilesOf', 'fingerprints', 'hooksUsable', 'readControlFiles', 'untrustedChanges',
    'resolveContainerSettings', 'writeJsonAtomic',
  ],
  // Reads a view makes on demand (a file at a commit for a diff editor, which merges landed a change).
  reads: ['fileAtCommit', 'mergeMarks'],
  // Problems reported once per process, shown by the host.
  problems: ['onProblem', 'reportProblem', 'coalesce'],
  // Errors hosts tell apart (instanceof) to word them their way; never constructed by a host.
  errors: ['WorktreeError', 'WorktreeInUseError'],
  // The model client (models.ts: loaded with the first agent) and the containers (containers.ts).
  factories: ['createModelClient', 'createModelFactory', 'resolveModelConfig', 'resolveOpenAIConfig', 'openContainers'],
};

/** Names a door file re-exports from outside core/session, values and types apart. */
function reexports(text: string): { values: string[]; star: string[] } {
  const code = text.replace(/^\s*\/\/.*$/gm, '');
  const values: string[] = [];
  const star: string[] = [];
  for (const m of code.matchAll(/export\s+(type\s+)?\{([^}]*)\}\s*from\s*'([^']+)'/g)) {
    if (!m[3]!.startsWith('..') || m[1]) continue;
    for (const n of m[2]!.split(',').map((x) => x.trim()).filter(Boolean)) if (!n.startsWith('type ')) values.push(n.split(/\s+as\s+/).pop()!);
  }
  for (const m of code.matchAll(/export\s+\*\s+from\s*'([^']+)'/g)) if (m[1]!.startsWith('..')) star.push(m[1]!);
  return { values, star };
}

const DOOR_FILES = ['index.ts', 'models.ts', 'containers.ts'];

test('the door hands out views, not parts: it re-exports only the engine values listed in DOOR_VALUES, and no engine module whole', async () => {
  const { text } = await load();
  const allowed = new Set(Object.values(DOOR_VALUES).flat());
  const extra: string[] = [];
  const stars: string[] = [];
  for (const f of DOOR_FILES) {
    const { values, star } = reexports(text.get(join(src, 'core', 'session', f))!);
    extra.push(...values.filter((v) => !allowed.has(v)).map((v) => `${f}: ${v}`));
    stars.push(...star.map((s) => `${f}: export * from ${s}`));
  }
  assert.deepEqual(extra, [], 'an engine value through the door: make it a view of the session, or add it to DOOR_VALUES with its kind');
  assert.deepEqual(stars, []);
});

test('hosts import the door\'s front only (index, models, containers): never parts.ts or another file behind it', async () => {
  const { edges } = await load();
  const door = join(src, 'core', 'session');
  const front = new Set(DOOR_FILES.map((f) => join(door, f)));
  const bad = edges
    .filter((e) => ['vscode', 'cli'].includes(layerOf(e.from)) && e.to.startsWith(door + '/') && !front.has(e.to))
    .map((e) => `${relative(repo, e.from)} imports ${e.spec}`);
  assert.deepEqual(bad, []);
});

test('hosts construct no engine class: the session (TeamSession) is the one thing a host makes with new', async () => {
  const { edges, text } = await load();
  const door = join(src, 'core', 'session');
  const bad: string[] = [];
  for (const [f, t] of text) {
    if (!['vscode', 'cli'].includes(layerOf(f))) continue;
    if (!edges.some((e) => e.from === f && e.to.startsWith(door + '/'))) continue;
    const fromDoor = new Set<string>();
    for (const m of t.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s*from\s*'[./]*core\/session[^']*'/g)) {
      for (const n of m[1]!.split(',').map((x) => x.trim().replace(/^type\s+/, '')).filter(Boolean)) fromDoor.add(n.split(/\s+as\s+/).pop()!);
    }
    for (const m of t.matchAll(/\bnew\s+([A-Za-z_$][\w$]*)/g)) {
      if (fromDoor.has(m[1]!) && m[1] !== 'TeamSession') bad.push(`${relative(repo, f)}: new ${m[1]}`);
    }
  }
  assert.deepEqual(bad, []);
});

test("hosts never hold the session's engine parts that are still public (its worktree manager, its merge queue): they read views and act through actions", async () => {
  const { text } = await load();
  const bad: string[] = [];
  for (const [f, t] of text) {
    if (!['vscode', 'cli'].includes(layerOf(f))) continue;
    for (const m of t.matchAll(/\b(?:session|rt)\s*\.\s*(worktrees|mergeQueue)\b(?!\s*\()/g)) bad.push(`${relative(repo, f)}: .${m[1]}`);
  }
  assert.deepEqual(bad, []);
});

test('no engine imports the session: core/session is the door, built on the engine, never under it', async () => {
  const { edges } = await load();
  const door = join(src, 'core', 'session');
  const bad = edges
    .filter((e) => layerOf(e.from) === 'core' && !e.from.startsWith(door + '/') && (e.to.startsWith(door + '/') || e.to === door))
    .map((e) => `${relative(repo, e.from)} imports ${e.spec}`);
  assert.deepEqual(bad, []);
});

test('no import circles among source files', async () => {
  const { files, edges } = await load();
  const next = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const e of edges) if (next.has(e.to)) next.get(e.from)!.push(e.to);
  const state = new Map<string, 'open' | 'done'>();
  const circles: string[] = [];
  const visit = (f: string, path: string[]): void => {
    state.set(f, 'open');
    for (const t of next.get(f)!) {
      if (state.get(t) === 'open') circles.push([...path.slice(path.indexOf(t)), t].map((p) => relative(src, p)).join(' → '));
      else if (!state.has(t)) visit(t, [...path, t]);
    }
    state.set(f, 'done');
  };
  for (const f of files) if (!state.has(f)) visit(f, [f]);
  assert.deepEqual(circles, []);
});

test('no source file is over 400 lines', async () => {
  const { text } = await load();
  const long = [...text].map(([f, t]) => [relative(repo, f), t.split('\n').length - (t.endsWith('\n') ? 1 : 0)] as const).filter(([, n]) => n > 400);
  assert.deepEqual(long, []);
});

test('no synchronous fs or child-process calls in src/ (the extension host must never block)', async () => {
  const { text } = await load();
  const offenders: string[] = [];
  const SYNC = /\b(execSync|spawnSync|execFileSync|readFileSync|writeFileSync|appendFileSync|renameSync|readdirSync|statSync|mkdirSync|unlinkSync|existsSync|rmSync|copyFileSync|openSync|lstatSync|realpathSync)\s*\(/;
  // Code that runs only inside a worker thread (marked so on its first line) blocks nobody
  // but that worker; it must not be imported by code outside the worker.
  const workerOnly = new Set<string>();
  for (const [f, t] of text) if (t.startsWith('// @worker-thread-only')) workerOnly.add(f);
  for (const [f, t] of text) {
    if (workerOnly.has(f)) continue;
    for (const w of workerOnly) {
      const name = w.replace(/\.tsx?$/, '').split('/').pop()!;
      if (new RegExp(`^import (?!type)[^;]*from '\\./${name}'`, 'm').test(t)) offenders.push(`${relative(repo, f)} imports worker-only ${name}`);
    }
    t.split('\n').forEach((l, i) => {
      if (SYNC.test(l) && !l.trim().startsWith('//')) offenders.push(`${relative(repo, f)}:${i + 1}`);
    });
  }
  assert.deepEqual(offenders, []);
});
