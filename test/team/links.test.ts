// Symbolic links shipped inside the team folders (a cloned repository can carry them): the
// engine refuses to write through them, so nothing lands outside the workspace.
import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { Team, TeamLayoutError } from '../../src/core/team/team';
import { tempDir } from '../helpers/tmp';

test('an inbox that is a symbolic link is not appended through; the target is untouched', async (t) => {
  const root = await tempDir(t);
  const outside = join(await tempDir(t), 'notes.txt');
  await writeFile(outside, 'mine\n');
  const team = await new Team(root).init();
  t.after(() => team.dispose());
  await team.spawnMember('alice', 'coder');
  await symlink(outside, team.paths.inbox('alice'));
  await assert.rejects(team.mailbox.send({ from: 'user', to: 'alice', type: 'message', content: 'hi' }), /symbolic link/);
  assert.equal(await readFile(outside, 'utf8'), 'mine\n');
});

for (const dir of ['.tasks', '.team', '.team/inbox'] as const) {
  test(`a ${dir} folder that is a symbolic link is refused before anything is written`, async (t) => {
    const root = await tempDir(t);
    const elsewhere = await tempDir(t);
    if (dir === '.team/inbox') await mkdir(join(root, '.team'));
    await symlink(elsewhere, join(root, dir));
    const team = new Team(root);
    t.after(() => team.dispose());
    await assert.rejects(team.init(), (err: Error) => err instanceof TeamLayoutError && err.message.includes(dir));
    assert.deepEqual(await readdir(elsewhere), [], 'nothing written through the link');
  });
}
