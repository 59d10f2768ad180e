// The product appends `.worktrees/` to the clone's `info/exclude`; a symbolic link planted
// there (or at `info`) must not send that write to another file (docs/security.md).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { ensureExcluded, repoInfo } from '../../src/core/worktree/repo';
import { tempDir } from '../helpers/tmp';

const exec = promisify(execFile);

for (const at of ['info/exclude', 'info'] as const) {
  test(`a symbolic link at .git/${at} is not followed when the exclude entry is written`, async (t) => {
    const root = await tempDir(t);
    await exec('git', ['init', '-q'], { cwd: root });
    const victim = join(root, 'victim');
    await mkdir(victim);
    await writeFile(join(victim, 'exclude'), 'precious\n');
    await rm(join(root, '.git', 'info'), { recursive: true, force: true });
    if (at === 'info') await symlink(victim, join(root, '.git', 'info'));
    else { await mkdir(join(root, '.git', 'info')); await symlink(join(victim, 'exclude'), join(root, '.git', 'info', 'exclude')); }
    const info = await repoInfo(root, {});
    await assert.rejects(ensureExcluded(info), /symbolic link/);
    assert.equal(await readFile(join(victim, 'exclude'), 'utf8'), 'precious\n');
  });
}
