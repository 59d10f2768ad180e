// What tests reach behind a session: its engine parts (the Team, the AgentRunner) to arrange
// or inspect a team, and the user's mail sent the one way hosts send it (the `send` action).
// Hosts cannot do either (core/session/parts.ts; test/layering.test.ts).
import { ACTIONS, runAction, sessionScope, type TeamSession } from '../../src/core/session';
import type { Message } from '../../src/shared/schemas';

export { partsOf } from '../../src/core/session/parts';

/** The user's message to `to`, through the `send` action (as every host sends it). */
export function userSends(rt: TeamSession, to: string, content: string): Promise<Message> {
  return runAction(ACTIONS.send, sessionScope(rt), { to, content });
}

/** The user's message to every running teammate, through the `broadcast` action. */
export async function userBroadcasts(rt: TeamSession, content: string): Promise<Message[]> {
  return (await runAction(ACTIONS.broadcast, sessionScope(rt), { content })).sent;
}
