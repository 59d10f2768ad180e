// The team's folders in the Explorer (docs/file-formats.md): `.team/`, `.tasks/` and
// `.worktrees/` appear in a user's workspace the first time a team runs. A newcomer sees
// them unexplained; each carries a badge and a tooltip saying what it holds and that the
// extension writes it (hand edits are read, agents' commands cannot write it).
import * as vscode from 'vscode';

export const TEAM_FOLDERS: Record<string, string> = {
  '.team': 'Agent Teams: the team — roster, mailboxes, requests, transcripts, settings. Written by the extension; agents cannot change it (docs/file-formats.md).',
  '.tasks': 'Agent Teams: the task board, one file per task. Written by the extension; agents change it only through their task tools (docs/file-formats.md).',
  '.worktrees': 'Agent Teams: teammates\' git worktrees, one per teammate spawned in its own worktree (branch wt/<name>).',
};

export class TeamFolderDecorations implements vscode.FileDecorationProvider {
  constructor(private readonly root: vscode.Uri) {}

  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    const top = `${this.root.path.replace(/\/$/, '')}/`;
    if (uri.scheme !== this.root.scheme || !uri.path.startsWith(top)) return undefined;
    const name = uri.path.slice(top.length);
    const tooltip = Object.hasOwn(TEAM_FOLDERS, name) ? TEAM_FOLDERS[name] : undefined;
    // Only the folders at the workspace's top: a `.team` deeper down is someone else's.
    return tooltip ? new vscode.FileDecoration('AT', tooltip) : undefined;
  }
}
