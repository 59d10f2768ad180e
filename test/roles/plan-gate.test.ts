// The plan gate from the roster and the request records alone (what every host reads).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ANSWER_MAIL_GRACE_MS, answerInTransit, planGateOf } from '../../src/core/roles/plan-mode';
import type { Member, Message, RequestRecord } from '../../src/shared/schemas';

const member = (extra: Partial<Member> = {}): Member => ({ name: 'ada', role: 'dev', status: 'working', incarnation: 2, current_task: 7, ...extra });
const plan = (extra: Partial<RequestRecord>): RequestRecord => ({
  request_id: `req_${Math.random()}`, kind: 'plan', from: 'ada', to: 'user', subject: 'ada', status: 'approved',
  created_at: 1, incarnation: 2, task: 7, plan_mode_id: 'pm1', ...extra,
});
const mode = { id: 'pm1', by: 'user', since: 1 };

test('plan gate: outside plan mode only a pending or rejected plan of its own closes it', () => {
  assert.equal(planGateOf(member(), []).open, true);
  assert.equal(planGateOf(member(), [plan({ status: 'pending' })]).open, false);
  assert.equal(planGateOf(member(), [plan({ status: 'rejected' })]).open, false);
  assert.equal(planGateOf(member(), [plan({ status: 'pending', incarnation: 1 })]).open, true);
});

test('plan gate: in plan mode only an approved plan of this incarnation, plan mode and task opens it', () => {
  const m = member({ plan_mode: mode });
  assert.equal(planGateOf(m, []).open, false);
  assert.equal(planGateOf(m, [plan({})]).open, true);
  // Approved for another task, an earlier incarnation, or before this plan mode began: closed.
  assert.equal(planGateOf(m, [plan({ task: 6 })]).open, false);
  assert.equal(planGateOf(m, [plan({ incarnation: 1 })]).open, false);
  assert.equal(planGateOf(m, [plan({ plan_mode_id: null })]).open, false);
  assert.equal(planGateOf(m, [plan({ plan_mode_id: 'pm0' })]).open, false);
  // A later plan for the same task that was rejected closes it again; a pending one is named.
  assert.equal(planGateOf(m, [plan({}), plan({ status: 'rejected' })]).open, false);
  const pending = plan({ status: 'pending' });
  assert.deepEqual(planGateOf(m, [pending]), { open: false, planMode: true, pending });
  // No task: the approval is for "no task".
  assert.equal(planGateOf(member({ plan_mode: mode, current_task: null }), [plan({ task: null })]).open, true);
  assert.equal(planGateOf(member({ plan_mode: mode, current_task: null }), [plan({})]).open, false);
});

test("a decided plan whose answer's mail is not in the inbox yet is still waited for, a few seconds at most", () => {
  const now = 1_767_000_000_000;
  const decided = { request_id: 'req_1', kind: 'plan', from: 'ada', to: 'user', subject: 'ada', status: 'approved', created_at: now / 1000 - 60, updated_at: now / 1000 - 0.05 } as RequestRecord;
  const answer = { id: 'm1', type: 'plan_approval_response', from: 'user', to: 'ada', content: 'ok', timestamp: now / 1000, request_id: 'req_1' } as unknown as Message;
  assert.equal(answerInTransit(decided, [], now), true, 'decided, mail not here: wait for it');
  assert.equal(answerInTransit(decided, [answer], now), false, 'the mail is here: it wakes the teammate');
  assert.equal(answerInTransit({ ...decided, status: 'pending' }, [], now), false, 'still pending is awaitingAnswer, not this');
  assert.equal(answerInTransit(decided, [], now + ANSWER_MAIL_GRACE_MS + 100), false, 'a mail that never came is not waited for forever');
});
