// WorkspaceFs: confinement against hostile paths and symlinks, and the
// read/write/edit contracts the file tools rely on.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile, lstat, readlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WorkspaceFs, WorkspaceFsError, type WorkspaceFsErrorCode } from '../src/core/exec/workspace-fs';
import { isInside } from '../src/core/exec/confine';

let base: string;
let root: string;
let outside: string;
let fs: WorkspaceFs;

before(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'wsfs-'));
  root = path.join(base, 'root');
  outside = path.join(base, 'outside');
  await mkdir(path.join(root, 'src'), { recursive: true });
  await mkdir(path.join(base, 'rootX'));
  await mkdir(outside);
  await writeFile(path.join(base, 'rootX', 'f.txt'), 'sibling');
  await writeFile(path.join(outside, 'secret.txt'), 'secret');
  await writeFile(path.join(root, 'src', 'a.txt'), 'hello\n');
  await symlink('/etc', path.join(root, 'etc-link'));
  await symlink(outside, path.join(root, 'out-dir'));
  await symlink(path.join(outside, 'secret.txt'), path.join(root, 'secret-link'));
  await symlink(path.join(outside, 'nope.txt'), path.join(root, 'dangling'));
  await symlink('src/a.txt', path.join(root, 'inner-link'));
  fs = new WorkspaceFs(root);
});

after(async () => {
  await rm(base, { recursive: true, force: true });
});

/** Asserts a WorkspaceFsError with `code` whose message names the user's path and no outside path. */
async function rejects(p: Promise<unknown>, code: WorkspaceFsErrorCode, userPath?: string): Promise<WorkspaceFsError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof WorkspaceFsError, `not a WorkspaceFsError: ${e}`);
    assert.equal(e.code, code, e.message);
    if (userPath !== undefined) assert.ok(e.message.includes(JSON.stringify(userPath)), e.message);
    assert.ok(!e.message.includes(outside), `leaks outside path: ${e.message}`);
    return e;
  }
  assert.fail(`expected ${code}`);
}

test('isInside is not a string prefix test', () => {
  assert.equal(isInside('/work/root', '/work/rootX'), false);
  assert.equal(isInside('/work/root', '/work/root/x'), true);
  assert.equal(isInside('/work/root', '/work/root'), true);
  assert.equal(isInside('/work/root', '/work/root/..x'), true);
  assert.equal(isInside('/work/root', '/work'), false);
});

test('hostile paths are refused', async () => {
  for (const p of ['../x', '/etc/passwd', 'a/../../x', '../rootX/f.txt', path.join(base, 'rootX', 'f.txt'), '..']) {
    await rejects(fs.resolve(p), 'outside_root', p);
    await rejects(fs.readFile(p), 'outside_root', p);
    await rejects(fs.writeFile(p, 'pwned'), 'outside_root', p);
  }
  assert.equal(await readFile(path.join(base, 'rootX', 'f.txt'), 'utf8'), 'sibling');
  await rejects(fs.resolve('a\0b'), 'invalid_path', 'a\0b');
  await rejects(fs.resolve(''), 'invalid_path');
});

test('the folders that govern the agents are readable but never written, also through a symlink', async () => {
  await mkdir(path.join(root, '.team'), { recursive: true });
  await writeFile(path.join(root, '.team', 'config.json'), '{"members":[]}');
  await symlink('.team', path.join(root, 'team-link'));
  for (const p of ['.team/config.json', '.team/inbox/lead.jsonl', '.tasks/task_1.json', '.worktrees/index.json', '.git/hooks/pre-commit',
    '.vscode/settings.json', '.vscode/tasks.json', './.vscode/../.vscode/x', '.VSCODE/settings.json', 'team-link/config.json', path.join(root, '.git', 'config')]) {
    const e = await rejects(fs.writeFile(p, 'pwned'), 'protected', p);
    assert.match(e.message, /which file tools do not write/);
  }
  await rejects(fs.editFile('.team/config.json', 'members', 'pwned'), 'protected', '.team/config.json');
  assert.equal(await fs.readFile('.team/config.json'), '{"members":[]}', 'reading is fine');
  assert.equal(await readFile(path.join(root, '.team', 'config.json'), 'utf8'), '{"members":[]}');
  for (const d of ['.vscode', '.git', '.tasks', '.worktrees']) assert.equal(await stat(path.join(root, d)).catch(() => undefined), undefined, `${d} not created`);
  // Names that merely start like one are ordinary files.
  await fs.writeFile('.teamwork/notes.md', 'ok');
  await fs.writeFile('docs/.vscode/example.json', '{}');
  await rm(path.join(root, 'team-link'));
});

test('symlinks that lead outside are refused for read, write and edit', async () => {
  await rejects(fs.readFile('etc-link/passwd'), 'outside_root', 'etc-link/passwd');
  await rejects(fs.writeFile('etc-link/new-file', 'x'), 'outside_root', 'etc-link/new-file');
  await rejects(fs.readFile('out-dir/secret.txt'), 'outside_root', 'out-dir/secret.txt');
  await rejects(fs.writeFile('out-dir/deep/new.txt', 'x'), 'outside_root', 'out-dir/deep/new.txt');
  await rejects(fs.readFile('secret-link'), 'outside_root', 'secret-link');
  await rejects(fs.writeFile('secret-link', 'pwned'), 'outside_root', 'secret-link');
  await rejects(fs.editFile('secret-link', 'secret', 'pwned'), 'outside_root', 'secret-link');
  await rejects(fs.writeFile('dangling', 'pwned'), 'outside_root', 'dangling');
  assert.equal(await readFile(path.join(outside, 'secret.txt'), 'utf8'), 'secret');
  assert.deepEqual((await readdir(outside)).sort(), ['secret.txt']);
});

test('a symlink inside the root to a file inside is followed, and stays a link', async () => {
  assert.equal(await fs.readFile('inner-link'), 'hello\n');
  const r = await fs.writeFile('inner-link', 'hello again\n');
  assert.equal(r.path, path.join(await realRoot(), 'src', 'a.txt'));
  assert.ok((await lstat(path.join(root, 'inner-link'))).isSymbolicLink());
  assert.equal(await readlink(path.join(root, 'inner-link')), 'src/a.txt');
  assert.equal(await readFile(path.join(root, 'src', 'a.txt'), 'utf8'), 'hello again\n');
  await fs.writeFile('src/a.txt', 'hello\n');
});

test('absolute paths inside the root work, also through a symlinked root', async () => {
  assert.equal(await fs.readFile(path.join(root, 'src', 'a.txt')), 'hello\n');
  const linkRoot = path.join(base, 'root-link');
  await symlink(root, linkRoot);
  const viaLink = new WorkspaceFs(linkRoot);
  assert.equal(await viaLink.readFile(path.join(linkRoot, 'src', 'a.txt')), 'hello\n');
  assert.equal(await viaLink.readFile('src/a.txt'), 'hello\n');
  await rejects(viaLink.readFile('../outside/secret.txt'), 'outside_root');
});

test('write creates parent dirs, is atomic, and handles unicode names', async () => {
  const name = 'données/日本/ファイル-ü.txt';
  const r1 = await fs.writeFile(name, 'première ligne\n');
  assert.equal(r1.created, true);
  assert.equal(r1.bytes, Buffer.byteLength('première ligne\n'));
  assert.equal(await fs.readFile(name), 'première ligne\n');
  const r2 = await fs.writeFile(name, 'deux\n');
  assert.equal(r2.created, false);
  assert.deepEqual(await readdir(path.join(root, 'données', '日本')), ['ファイル-ü.txt']); // no temp files left
});

test('write keeps the file mode, refuses directories and oversized content', async () => {
  const script = path.join(root, 'run.sh');
  await writeFile(script, '#!/bin/sh\n');
  await chmod(script, 0o755);
  await fs.writeFile('run.sh', '#!/bin/sh\necho hi\n');
  assert.equal((await stat(script)).mode & 0o777, 0o755);
  await rejects(fs.writeFile('src', 'x'), 'not_a_file', 'src');
  await rejects(fs.writeFile('src/a.txt/child', 'x'), 'invalid_path', 'src/a.txt/child');
  const small = new WorkspaceFs(root, 10);
  await rejects(small.writeFile('big.txt', 'x'.repeat(11)), 'too_large', 'big.txt');
  await rejects(small.editFile('src/a.txt', 'hello', 'hello there'), 'too_large', 'src/a.txt');
});

test('edit replaces exactly one occurrence', async () => {
  await fs.writeFile('e.txt', 'one two three\n');
  await fs.editFile('e.txt', 'two', 'TWO $& $1');
  assert.equal(await fs.readFile('e.txt'), 'one TWO $& $1 three\n');
  const nf = await rejects(fs.editFile('e.txt', 'four', '4'), 'no_match', 'e.txt');
  assert.match(nf.message, /not found/);
  await fs.writeFile('e.txt', 'x = 1\nx = 1\n');
  const amb = await rejects(fs.editFile('e.txt', 'x = 1', 'x = 2'), 'ambiguous', 'e.txt');
  assert.match(amb.message, /found 2 times/);
  await fs.writeFile('o.txt', 'aaa');
  await rejects(fs.editFile('o.txt', 'aa', 'b'), 'ambiguous', 'o.txt'); // overlapping matches count
  await rejects(fs.editFile('e.txt', '', 'b'), 'invalid_input', 'e.txt');
  await rejects(fs.editFile('e.txt', 'x', 'x'), 'invalid_input', 'e.txt');
  await rejects(fs.editFile('missing.txt', 'a', 'b'), 'not_found', 'missing.txt');
});

test('edit matches LF text in a CRLF file and keeps CRLF', async () => {
  await fs.writeFile('crlf.txt', 'a\r\nb\r\nc\r\n');
  await fs.editFile('crlf.txt', 'a\nb', 'A\nB');
  assert.equal(await readFile(path.join(root, 'crlf.txt'), 'utf8'), 'A\r\nB\r\nc\r\n');
});

test('edit keeps a BOM and refuses non-UTF-8 files', async () => {
  await writeFile(path.join(root, 'bom.txt'), '\uFEFFhello');
  await fs.editFile('bom.txt', 'hello', 'bye');
  assert.equal(await readFile(path.join(root, 'bom.txt'), 'utf8'), '\uFEFFbye');
  await writeFile(path.join(root, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
  await rejects(fs.editFile('latin1.txt', 'caf', 'CAF'), 'binary', 'latin1.txt');
});

test('binary files are refused', async () => {
  await writeFile(path.join(root, 'bin.dat'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2]));
  const e = await rejects(fs.readFile('bin.dat'), 'binary', 'bin.dat');
  assert.match(e.message, /binary/);
  await rejects(fs.editFile('bin.dat', 'E', 'e'), 'binary', 'bin.dat');
});

test('read: line limit, byte cap on huge files, missing and directories', async () => {
  await fs.writeFile('lines.txt', Array.from({ length: 10 }, (_, i) => `l${i + 1}`).join('\n') + '\n');
  assert.equal(await fs.readFile('lines.txt', { limit: 3 }), 'l1\nl2\nl3\n... (7 more lines; read on with offset 4)');
  // The rest is reachable: offset picks up where the note says.
  assert.equal(await fs.readFile('lines.txt', { offset: 4, limit: 2 }), 'l4\nl5\n... (5 more lines; read on with offset 6)');
  assert.equal(await fs.readFile('lines.txt', { offset: 9 }), 'l9\nl10');
  assert.match(await fs.readFile('lines.txt', { offset: 11 }), /no line 11: the file has 10 lines/);
  assert.equal(await fs.readFile('lines.txt', { limit: 10 }), await fs.readFile('lines.txt'));
  assert.equal(await fs.readFile('lines.txt', { limit: null }), await fs.readFile('lines.txt'));
  await rejects(fs.readFile('lines.txt', { limit: 0 }), 'invalid_input', 'lines.txt');

  const line = 'ü'.repeat(49) + '\n'; // 99 bytes, multi-byte so the cut must respect boundaries
  await writeFile(path.join(root, 'huge.txt'), line.repeat(60_000)); // ~6 MB
  const capped = await fs.readFile('huge.txt', { maxBytes: 10_000 });
  assert.ok(capped.length < 10_200);
  assert.ok(!capped.includes('\uFFFD'));
  assert.match(capped, /\n\.\.\. \(truncated: file is 5940000 bytes, showing the first 9\d{3}; /);
  assert.match(await fs.readFile('huge.txt', { limit: 2, maxBytes: 10_000 }), /^ü+\nü+\n\.\.\. \(\d+\+ more lines; file is 5940000 bytes/);

  await rejects(fs.readFile('nope.txt'), 'not_found', 'nope.txt');
  await rejects(fs.readFile('src'), 'not_a_file', 'src');
  assert.equal(await fs.readFile('.'.concat('/src/../src/a.txt')), 'hello\n');
});

async function realRoot(): Promise<string> {
  const { realpath } = await import('node:fs/promises');
  return realpath(root);
}

test('a folder swapped for a symlink to outside while writing never takes the write (pinned folder)', { skip: process.platform !== 'linux' }, async () => {
  const ws = path.join(base, 'race-ws');
  const out = path.join(base, 'race-out');
  await mkdir(path.join(ws, 'sub'), { recursive: true });
  await mkdir(out);
  const { spawn } = await import('node:child_process');
  // Another process flips ws/sub between the real folder and a link to outside, as fast as it can.
  // Its own process group, killed whole: killing bash alone left a running `mv` behind, which
  // raced the clean-up (ENOTEMPTY) once in CI.
  const racer = spawn('bash', ['-c', `cd "${ws}"; while true; do mv sub subd; ln -s "${out}" sub; rm sub; mv subd sub; done`], { stdio: 'ignore', detached: true });
  const gone = new Promise((r) => racer.once('exit', r));
  try {
    const w = new WorkspaceFs(ws);
    let written = 0;
    for (let i = 0; i < 400; i++) {
      try {
        await w.writeFile(`sub/f${i}.txt`, 'x');
        written++;
      } catch (e) {
        assert.ok(e instanceof WorkspaceFsError, String(e));
      }
    }
    assert.ok(written > 0, 'some writes went through');
  } finally {
    process.kill(-racer.pid!, 'SIGKILL');
    await gone;
  }
  assert.deepEqual(await readdir(out), [], 'nothing landed outside, not even a temporary file');
});
