// The teammate's code in and out of its container, against a real engine: the branch goes in as
// a clone (no remote, none of the user's .git), commits come back onto team/<name> as a bundle,
// and a container that lies — a git of its own that bundles other branches too — changes no
// other branch of the user's, and runs none of the user's hooks.
import assert from 'node:assert/strict';
import { chmod, mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { engineForFile } from './engine-fixture';
import { backendFor, gitIn, RUN, userRepo } from './helpers';

const testEngine = engineForFile();

test('the branch goes in as a clone of its own; commits made inside come back onto team/<name>', async (t) => {
  const engine = testEngine();
  if ('skip' in engine) return t.skip(engine.skip);
  const root = await userRepo(t, ['ed']);
  // Things of the user's repository that must not reach the container.
  await gitIn(root, 'config', 'credential.helper', 'store --file=/secret');
  await writeFile(join(root, '.git', 'hooks', 'post-checkout'), '#!/bin/sh\necho hooked\n');
  await gitIn(root, 'branch', 'private-branch');
  const b = backendFor(t, engine, root);
  const started = await b.start('ed');
  assert.equal(started.created, true);
  assert.equal(started.clone, 'cloned');
  const inside = await b.exec('ed', 'git branch -a; git remote -v; cat .git/config; ls .git/hooks; git log --format=%s', RUN);
  assert.equal(inside.exitCode, 0, inside.output);
  assert.match(inside.output, /\* team\/ed/);
  assert.doesNotMatch(inside.output, /private-branch|credential|secret|post-checkout|remotes\//);
  assert.match(inside.output, /first/);
  const work = await b.exec('ed', 'echo feature > feature.txt && git add . && git commit -q -m "add feature" && git rev-parse HEAD', RUN);
  assert.equal(work.exitCode, 0, work.output);
  const sha = work.output.trim();
  const back = await b.bringBack('ed');
  assert.equal(back.updated, true);
  assert.equal(back.tip, sha);
  assert.equal(await gitIn(root, 'rev-parse', 'team/ed'), sha);
  assert.equal(await gitIn(root, 'show', 'team/ed:feature.txt'), 'feature');
  assert.equal(await gitIn(root, 'log', '-1', '--format=%an', 'team/ed'), 'ed');
  // Nothing new: nothing fetched; more work: only the new commits come.
  assert.equal((await b.bringBack('ed')).updated, false);
  await b.exec('ed', 'echo two >> feature.txt && git commit -qam two', RUN);
  const again = await b.bringBack('ed');
  assert.equal(again.updated, true);
  assert.equal(await gitIn(root, 'log', '-1', '--format=%s', 'team/ed'), 'two');
  assert.deepEqual(again.controlPaths, []);
  // A commit that changes control paths of the policy table comes back said as such.
  await b.exec('ed', 'mkdir -p .team .devcontainer && echo {} > .team/settings.json && echo x > .devcontainer/Dockerfile && echo {} > .mcp.json && git add -A && git commit -qm control', RUN);
  assert.deepEqual((await b.bringBack('ed')).controlPaths.sort(), ['.devcontainer/Dockerfile', '.mcp.json', '.team/settings.json']);
});

test("a new teammate's branch is made where the user is; an existing one is kept", async (t) => {
  const engine = testEngine();
  if ('skip' in engine) return t.skip(engine.skip);
  const root = await userRepo(t, []);
  await writeFile(join(root, 'later.txt'), 'later\n');
  await gitIn(root, 'add', '.');
  await gitIn(root, 'commit', '-q', '-m', 'later');
  const b = backendFor(t, engine, root);
  await b.start('quinn');
  assert.equal(await gitIn(root, 'rev-parse', 'team/quinn'), await gitIn(root, 'rev-parse', 'HEAD'));
  assert.equal((await b.exec('quinn', 'git log -1 --format=%s', RUN)).output, 'later\n');
  assert.equal(await gitIn(root, 'rev-parse', '--abbrev-ref', 'HEAD'), 'main', "the user's checkout stays on its branch");
});

test("a container that bundles other branches changes none of the user's, and no hook of the user's runs", async (t) => {
  const engine = testEngine();
  if ('skip' in engine) return t.skip(engine.skip);
  const root = await userRepo(t, ['flo']);
  const mainBefore = await gitIn(root, 'rev-parse', 'main');
  const marker = join(root, 'hook-ran');
  await mkdir(join(root, '.git', 'hooks'), { recursive: true });
  for (const h of ['reference-transaction', 'post-merge', 'post-checkout']) {
    await writeFile(join(root, '.git', 'hooks', h), `#!/bin/sh\ntouch ${marker}\n`);
    await chmod(join(root, '.git', 'hooks', h), 0o755);
  }
  const b = backendFor(t, engine, root);
  await b.start('flo');
  // The scripted attack: a git first on PATH that, when asked for a bundle, bundles every ref,
  // with main moved to a commit of the agent's.
  const attack = await b.exec('flo', [
    'git commit -q --allow-empty -m mine',
    'git branch -f main HEAD && git branch evil HEAD',
    `printf '#!/bin/sh\\nif [ "$1" = bundle ]; then exec /usr/bin/git bundle create -q /tmp/.agent-teams-out.bundle --all; fi\\nexec /usr/bin/git "$@"\\n' > /usr/local/bin/git`,
    'chmod +x /usr/local/bin/git',
    'git config core.hooksPath /tmp/evil-hooks',
  ].join(' && '), RUN);
  assert.equal(attack.exitCode, 0, attack.output);
  const back = await b.bringBack('flo');
  assert.equal(back.updated, true);
  assert.equal(await gitIn(root, 'rev-parse', 'main'), mainBefore, 'main is untouched');
  assert.equal(await gitIn(root, 'branch', '--list', 'evil'), '', 'no new branch');
  assert.equal(await gitIn(root, 'log', '-1', '--format=%s', 'team/flo'), 'mine');
  assert.equal(await stat(marker).then(() => 'ran', () => 'none'), 'none', 'no hook ran on the host');
});
