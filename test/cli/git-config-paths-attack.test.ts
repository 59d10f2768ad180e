// A third red-team round's hole, through the real CLI: the user's git configuration may name
// code inside the workspace — husky's `core.hooksPath = .husky/_` (whose shims run
// `.husky/pre-commit`), an `include.path` to a config file the project keeps. The lead wrote
// `.husky/pre-commit` and an fsmonitor into the included file; the user's own next `git commit`
// ran both on the host. Now the paths the configuration names inside a writable folder are
// guarded like control folders (docs/security.md, "The policy table").
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, mkdir, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test, type TestContext } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { tempDir } from '../helpers/tmp';
import { toolResults } from '../runtime/harness';
import { detectEngine } from '../../src/core/sandbox/engine';
import { fakeApi, session } from './cli-proc';

const exec = promisify(execFile);

type Git = (...a: string[]) => Promise<unknown>;

/**
 * A repository set up by `prepare` (the user's own git settings), a lead whose one command is
 * `attack(ran)`, then the user's own `git commit`. Returns the command's output; `ran` is the
 * prefix of the files a planted program would make. Null: no sandbox on this machine.
 */
async function attackThenCommit(t: TestContext, prepare: (root: string, g: Git) => Promise<void>, attack: (ran: string) => string): Promise<{ out: string; root: string; ran: string; printed: string } | null> {
  const e = await detectEngine();
  if (!e.engine) {
    t.skip(`no sandbox on this machine: ${e.reason}`);
    return null;
  }
  const api = await fakeApi(t);
  const root = await tempDir(t);
  const g = (...a: string[]) => exec('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...a], { cwd: root });
  await g('init', '-q', '-b', 'main');
  await prepare(root, g);
  await g('add', '.');
  await g('commit', '-q', '-m', 'base');
  const ran = join(root, 'ran');
  api.script('lead', reply(toolUse('bash', { command: attack(ran) })), 'Done.');
  const repl = await session(t, root, api, ['--bash', 'allow', '--sandbox', 'auto', '--trust']);
  await repl.ready();
  repl.send('Go.');
  await repl.expect(/Done\./, 60_000);
  const out = toolResults({ api }).join('\n');
  repl.send('/quit');
  await repl.exited;
  const printed = `${repl.output()}`;
  // The user commits, with their own git and its configuration.
  await g('add', 'work.txt');
  await g('commit', '-q', '-m', 'user');
  return { out, root, ran, printed };
}

const notRun = async (ran: string, what: string): Promise<void> => {
  assert.equal(await stat(`${ran}-${what}`).then(() => 'ran', () => 'not run'), 'not run', `the planted ${what} ran`);
};

test('CLI: hooks in a core.hooksPath folder and an included config inside the workspace cannot be written by an agent\'s command', async (t) => {
  const r = await attackThenCommit(t, async (root, g) => {
    // The project's husky 9 set-up, and a config file the project shares, included by the user.
    await mkdir(join(root, '.husky', '_'), { recursive: true });
    await writeFile(join(root, '.husky', '_', 'pre-commit'), '#!/bin/sh\nf="$(dirname "$(dirname "$0")")/pre-commit"\n[ -x "$f" ] && exec "$f"\nexit 0\n');
    await chmod(join(root, '.husky', '_', 'pre-commit'), 0o755);
    await writeFile(join(root, 'team.gitconfig'), '[pull]\n\trebase = true\n');
    await g('config', 'core.hooksPath', '.husky/_');
    await g('config', 'include.path', '../team.gitconfig');
  }, (ran) => [
    `printf '#!/bin/sh\\ntouch ${ran}-hook\\n' > .husky/pre-commit && chmod +x .husky/pre-commit && echo wrote-hook`,
    `printf '#!/bin/sh\\ntouch ${ran}-shim\\n' > .husky/_/pre-commit && echo wrote-shim`,
    `printf '[core]\\n\\tfsmonitor = "touch ${ran}-monitor; false"\\n' >> team.gitconfig && echo wrote-include`,
    'echo ok > work.txt && echo did-work',
  ].join('; '));
  if (!r) return;
  assert.match(r.out, /did-work/, 'the command ran and wrote the workspace');
  for (const what of ['hook', 'shim', 'monitor']) await notRun(r.ran, what);
  assert.doesNotMatch(r.out, /wrote-(hook|shim|include)/);
  assert.match(r.out, /Read-only file system/);
});

test('CLI: a folder above a guarded hooks folder cannot be renamed away and a new one made; a configured path whose folder is absent cannot be made', async (t) => {
  const r = await attackThenCommit(t, async (root, g) => {
    // A common set-up: `git config core.hooksPath scripts/git-hooks`; and an include the user
    // points at a folder the project has not made yet.
    await mkdir(join(root, 'scripts', 'git-hooks'), { recursive: true });
    await writeFile(join(root, 'scripts', 'git-hooks', 'pre-commit'), '#!/bin/sh\nexit 0\n');
    await chmod(join(root, 'scripts', 'git-hooks', 'pre-commit'), 0o755);
    await writeFile(join(root, 'scripts', 'build.sh'), 'echo build\n');
    await g('config', 'core.hooksPath', 'scripts/git-hooks');
    await g('config', 'include.path', '../conf/git/team.gitconfig');
  }, (ran) => [
    // The guarded folder is a mount; the folder holding it was not (before the fix: renamed, and a new hook made in its place).
    `mv scripts scripts.old && mkdir -p scripts/git-hooks && printf '#!/bin/sh\\ntouch ${ran}-hook\\n' > scripts/git-hooks/pre-commit && chmod +x scripts/git-hooks/pre-commit && echo planted-hook`,
    `mkdir -p conf/git && printf '[core]\\n\\tfsmonitor = "touch ${ran}-monitor; false"\\n' > conf/git/team.gitconfig && echo planted-include`,
    'echo more >> scripts/build.sh && echo ok > work.txt && echo did-work',
  ].join('; '));
  if (!r) return;
  assert.match(r.out, /did-work/, 'the rest of the folder stays writable, the pinned one included');
  assert.doesNotMatch(r.out, /planted-(hook|include)/);
  assert.match(r.out, /Device or resource busy/, 'the folder holding the guard is a mount: it cannot be renamed');
  assert.equal(await stat(join(r.root, 'scripts.old')).then(() => 'moved', () => 'in place'), 'in place');
  assert.equal(await stat(join(r.root, 'conf')).then(() => 'made', () => 'absent'), 'absent', 'the guard made for the absent folder is gone after the command');
  for (const what of ['hook', 'monitor']) await notRun(r.ran, what);
});

test('CLI: an optional include that does not exist yet, a script named by a later word of a filter, a python -m module: none can be written; a hooks folder reached through a link is said to be unguardable', async (t) => {
  const r = await attackThenCommit(t, async (root, g) => {
    await mkdir(join(root, 'config'), { recursive: true });
    await writeFile(join(root, 'config', 'README'), 'local settings go here\n');
    await mkdir(join(root, 'scripts'), { recursive: true });
    await writeFile(join(root, 'scripts', 'clean.sh'), 'cat\n');
    await writeFile(join(root, 'nb.ipynb'), '{}\n');
    await writeFile(join(root, '.gitattributes'), '*.ipynb filter=nbs diff=nbd\n');
    await mkdir(join(root, 'tools', 'hooks'), { recursive: true });
    await symlink('tools/hooks', join(root, '.githooks'));
    // An optional local include (config/ exists, the file does not); nbstripout's shape of filter; a textconv through sh.
    await g('config', 'include.path', '../config/local.gitconfig');
    await g('config', 'filter.nbs.clean', 'python3 -m nbstrip');
    await g('config', 'diff.nbd.textconv', 'sh scripts/clean.sh');
    await g('config', 'core.hooksPath', '.githooks');
  }, (ran) => [
    `printf '[core]\\n\\tfsmonitor = "touch ${ran}-include; false"\\n' > config/local.gitconfig && echo planted-include`,
    `printf 'import pathlib,sys\\npathlib.Path("${ran}-module").touch()\\nsys.stdout.write(sys.stdin.read())\\n' > nbstrip.py && echo planted-module`,
    `printf 'touch ${ran}-script; cat\\n' > scripts/clean.sh && echo planted-script`,
    'echo "{ }" > nb.ipynb; echo ok > work.txt && echo did-work',
  ].join('; '));
  if (!r) return;
  assert.match(r.out, /did-work/);
  assert.doesNotMatch(r.out, /planted-(include|module|script)/);
  for (const what of ['include', 'module', 'script']) await notRun(r.ran, what);
  assert.equal(await stat(join(r.root, 'config', 'local.gitconfig')).then(() => 'left', () => 'absent'), 'absent', 'the cover is gone after the command');
  assert.match(r.printed, /\S+\.githooks \(a symbolic link\) is a control path or one your git settings name[^\n]*a command can replace the link/);
});
