// A sandboxed command may make a repository inside the folder (`git init sub`), set its config
// and commit it as a submodule link. Git run by the user (a terminal, VS Code's Source Control,
// which opens nested repositories by itself) would then run its `core.fsmonitor` outside the
// sandbox on the next `git status`. When the command ends, the repository's `.git` is renamed
// aside and the user is told (docs/security.md, "Nested repositories"). A scripted model
// through the real SDK plants the repository.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { lstat, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { harness, toolResults } from './harness';
import { detectEngine } from '../../src/core/sandbox/engine';
import { DISABLED_NAME } from '../../src/core/sandbox/nested-repos';
import { git } from '../../src/core/worktree/git';
import { waitFor } from '../helpers/tmp';

const exec = promisify(execFile);

for (const how of ['committed as a link', 'left untracked, two folders down', 'made in a folder of tracked files'] as const) {
  test(`a nested repository planted from the sandbox (${how}) is disabled before any git runs it, and reported`, async (t) => {
    const e = await detectEngine();
    if (!e.engine) return t.skip(`no sandbox on this machine: ${e.reason}`);
    const h = await harness(t, { bashPolicy: 'allow', sandbox: { mode: 'auto', allowedDomains: [], autoAllow: true } });
    await exec('git', ['init', '-q'], { cwd: h.root });
    await exec('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'base'], { cwd: h.root });
    const marker = join(h.root, 'fsmonitor-ran');
    const id = '-c user.name=a -c user.email=a@a';
    const sub = how === 'committed as a link' ? 'sub' : how === 'made in a folder of tracked files' ? 'src' : 'a/b/sub';
    if (how === 'made in a folder of tracked files') {
      // Red team B7: git lists such a repository nowhere (its files are the outer repository's).
      await exec('mkdir', ['-p', join(h.root, 'src')]);
      await exec('sh', ['-c', 'echo app > src/app.js && git add src && git -c user.name=t -c user.email=t@t commit -qm src'], { cwd: h.root });
    }
    const plant = [
      `mkdir -p ${sub} && git init -q ${sub} && git -C ${sub} ${id} commit -q --allow-empty -m s`,
      `git -C ${sub} config core.fsmonitor "touch ${marker}; false"`,
      ...(how === 'committed as a link' ? [`git add sub && git ${id} commit -q -m sub`] : []),
      'echo planted',
    ].join(' && ');
    h.api.script('lead', reply(toolUse('bash', { command: plant })), 'Done.');
    await h.rt.askLead('Go.');
    assert.match(toolResults(h)[0]!, /planted/, 'the command ran');
    await waitFor(async () => h.events.some((ev) => ev.type === 'notice' && ev.message.includes(sub)), 5000, 'the check after the command');
    const ran = () => stat(marker).then(() => 'ran', () => 'not run');

    // The user's own git (no settings of the product's) and the product's git alike.
    await exec('git', ['status', '--short'], { cwd: h.root }).catch(() => undefined);
    await exec('git', ['-C', join(h.root, sub), 'status', '--short']).catch(() => undefined);
    const status = await git(['status', '--porcelain'], { cwd: h.root });
    assert.equal(status.code, 0, status.stderr);
    assert.equal(await ran(), 'not run', "no git runs the nested repository's fsmonitor");
    assert.equal(await lstat(join(h.root, sub, '.git')).then(() => 'there', () => 'gone'), 'gone');
    assert.ok((await lstat(join(h.root, sub, DISABLED_NAME))).isDirectory(), 'its .git is kept aside, not deleted');
    const notice = h.events.find((ev) => ev.type === 'notice' && ev.message.includes(sub));
    assert.ok(notice, 'the user is told which repository was disabled');
  });
}
