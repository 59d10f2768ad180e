// What the Inbox and the transcript panels ask of the team, as the session's user actions
// (core/session/actions/): mail from any view gets the `send` action's checks (a recipient
// that is unknown or shut down is refused before the team's folders are made), and a panel's
// Stop is the `stop` action's (the lead: its turn ends). No VS Code here: test/vscode tests it.
import { ACTIONS, runAction, type ActionScope } from '../../core/session';

/** The user's message from a view, to `to`. */
export function mailFromView(scope: ActionScope, to: string, content: string): Promise<unknown> {
  return runAction(ACTIONS.send, scope, { to, content });
}

/** A transcript panel's Stop: the teammate is stopped, the lead's turn cancelled. */
export function stopFromView(scope: ActionScope, agent: string): Promise<unknown> {
  return runAction(ACTIONS.stop, scope, { teammate: agent });
}
