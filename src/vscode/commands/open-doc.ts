// The repository's documents, shipped in the extension (`docs/*.md`, allowed by
// .vscodeignore): Open Documentation (`agentTeams.openDoc`) shows one in VS Code's Markdown
// preview, and links in settings (package.json, `command:agentTeams.openDoc?…`) and buttons
// on notices that name a document lead there. Only the names in DOCS open: a link's argument
// is never a path.
import * as vscode from 'vscode';
import { CANCEL, type Asked } from './questions';

export const DOCS = ['activation', 'containers', 'file-formats', 'headless', 'hooks', 'mcp', 'models', 'permissions', 'security', 'tools'] as const;
export type DocName = (typeof DOCS)[number];

export const EXTENSION_ID = 'agent-teams.agent-teams';

export function isDocName(v: unknown): v is DocName {
  return typeof v === 'string' && (DOCS as readonly string[]).includes(v);
}

/** The first document a message names (`docs/security.md`), for a button that opens it. */
export function docNamed(text: string): DocName | undefined {
  for (const m of text.matchAll(/\bdocs\/([a-z-]+)\.md\b/g)) if (isDocName(m[1])) return m[1];
  return undefined;
}

/** Opens `doc` from the installed extension in the Markdown preview (the text editor where there is none). */
export async function openDoc(doc: DocName): Promise<void> {
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  if (!ext) throw new Error('the extension\'s own folder was not found');
  const uri = vscode.Uri.joinPath(ext.extensionUri, 'docs', `${doc}.md`);
  await vscode.workspace.fs.stat(uri).then(undefined, () => {
    throw new Error(`docs/${doc}.md is not in this installation`);
  });
  await vscode.commands.executeCommand('markdown.showPreview', uri).then(undefined, () => vscode.window.showTextDocument(uri));
}

/** Which document, asked when Open Documentation runs from the palette. */
export async function pickDoc(): Promise<Asked<DocName>> {
  const picked = await vscode.window.showQuickPick(DOCS.map((d) => ({ label: `docs/${d}.md`, doc: d })), { title: 'Open Documentation' });
  return picked ? picked.doc : CANCEL;
}
