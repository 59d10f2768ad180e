// The question of content-trust.ts in VS Code: one modal naming each changed control file and
// what changed; "Trust changes" records them, "Ignore files" (or closing it) leaves them out
// of this start (docs/security.md, "Folder trust").
import * as vscode from 'vscode';
import type { ControlFileChange } from '../../core/session';
import { contentQuestion, type ContentAnswer } from './content-trust';

export async function askContentTrust(changes: ControlFileChange[]): Promise<ContentAnswer | undefined> {
  const trust = 'Trust changes';
  const ignore = changes.length > 1 ? 'Ignore files' : 'Ignore file';
  const [first, ...rest] = contentQuestion(changes).split('\n');
  const picked = await vscode.window.showWarningMessage(first!, { modal: true, detail: rest.join('\n') }, trust, ignore);
  return picked === trust ? 'trust' : picked === ignore ? 'ignore' : undefined;
}
