// Whose fault a failing test is (docs/file-formats.md, "Merge queue"): a test ended from outside
// by a signal (a stop, the out-of-memory killer) is not the branch's, and the base is not even
// asked; a crash of the test's own (SIGSEGV) or a plain failure still is asked about.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testFailure } from '../../src/core/merge/queue-test';

const failed = (reason: string, exit_code: number | null) => ({ kind: 'failed' as const, reason, command: 'npm test', exit_code, output: '' });

test('a test killed from outside (SIGTERM, SIGKILL) is the environment\'s fault; a crash or a failure that passes on the base is the branch\'s', async () => {
  let asked = 0;
  const passesOnBase = async () => { asked++; return { kind: 'passed' as const }; };
  for (const sig of ['SIGTERM', 'SIGKILL']) {
    const f = await testFailure(failed(`failed the test command \`npm test\` on the merge (killed by ${sig})`, null), 'main', passesOnBase);
    assert.equal(f.fault, 'environment', sig);
    assert.match(f.why ?? '', new RegExp(`ended from outside \\(${sig}\\)`));
  }
  assert.equal(asked, 0, 'the base is not run for a kill from outside');
  assert.equal((await testFailure(failed('failed the test command `npm test` on the merge (killed by SIGSEGV)', null), 'main', passesOnBase)).fault, 'branch');
  assert.equal((await testFailure(failed('failed the test command `npm test` on the merge (exit 1)', 1), 'main', passesOnBase)).fault, 'branch');
});
