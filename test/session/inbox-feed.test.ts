// InboxFeed: the inbox view's incremental reader — whole history once, then only new lines,
// never a message twice, even with polls overlapping.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { Team } from '../../src/core/team/team';
import { InboxFeed } from '../../src/core/session/inbox-feed';
import { tempDir } from '../helpers/tmp';

describe('InboxFeed', () => {
  it('reads the history once, then only what is new, in time order', async (t) => {
    const team = await new Team(await tempDir(t)).init();
    t.after(() => team.dispose());
    await team.spawnMember('alice', 'dev');
    await team.mailbox.send({ from: 'lead', to: 'alice', type: 'message', content: 'one' });
    await team.mailbox.send({ from: 'alice', to: 'lead', type: 'message', content: 'two' });
    const feed = new InboxFeed(team);
    assert.deepEqual((await feed.poll()).map((m) => m.content), ['one', 'two']);
    assert.deepEqual(await feed.poll(), []);
    await team.mailbox.send({ from: 'user', to: 'alice', type: 'message', content: 'three' });
    const [a, b] = await Promise.all([feed.poll(), feed.poll()]);
    assert.deepEqual([...a!, ...b!].map((m) => m.content), ['three']);
    assert.deepEqual(feed.messages.map((m) => m.content), ['one', 'two', 'three']);
  });

  it('takes a history of 200,000 messages in one poll (no argument-spread overflow)', async (t) => {
    const team = await new Team(await tempDir(t)).init();
    t.after(() => team.dispose());
    await team.spawnMember('alice', 'dev');
    const lines: string[] = [];
    for (let i = 0; i < 200_000; i++) {
      lines.push(JSON.stringify({ id: `m${i}`, type: 'message', from: 'lead', to: 'alice', content: `n${i}`, timestamp: 1_700_000_000 + i / 1000 }));
    }
    await writeFile(team.paths.inbox('alice'), `${lines.join('\n')}\n`);
    const feed = new InboxFeed(team);
    assert.equal((await feed.poll()).length, 200_000);
    assert.equal(feed.messages.length, 200_000);
    await team.mailbox.send({ from: 'user', to: 'alice', type: 'message', content: 'one more' });
    assert.deepEqual((await feed.poll()).map((m) => m.content), ['one more']);
  });

  it('reads nothing from a workspace without a team', async (t) => {
    const feed = new InboxFeed(new Team(await tempDir(t)));
    assert.deepEqual(await feed.poll(), []);
  });
});
