// Where the session's user actions run in a VS Code window: the team opened by the window's
// host (folders made and watched), and questions asked in modal dialogs.
import * as vscode from 'vscode';
import { sessionScope, type ActionScope, type TeamSession } from '../../core/session';

/** The window's scope: the team opened by its host (folders made and watched), modal questions. */
export function windowScope(session: TeamSession, ensureTeam: () => Promise<unknown>): ActionScope {
  return sessionScope(session, {
    ready: ensureTeam,
    async ask(q) {
      return !!(await vscode.window.showWarningMessage(q.text, { modal: true, detail: q.detail }, q.yes));
    },
  });
}
