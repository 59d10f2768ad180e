// What of the team's folders git sees (docs/file-formats.md): state (mailboxes, transcripts,
// requests, the board) stays out, so an agent's `git add -A` never commits it, but what a team
// shares — its agent definitions, instructions and settings — can be committed. Written as a
// `.gitignore` inside each folder, never in the user's own files.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../util/atomic-file';

/** `.tasks/.gitignore`: the board is state. */
export const TASKS_GITIGNORE = '# Agent Teams state: kept out of git.\n*\n';

/**
 * `.team/.gitignore`: state out; agents/, instructions.md and settings.json in. The file itself
 * stays out (a folder with only state shows nothing in `git status`); Agent Teams writes it
 * wherever it finds none.
 */
export const TEAM_GITIGNORE = [
  '# Agent Teams: state (mail, transcripts, requests, leases) is kept out of git;',
  '# what a team shares is not: agent definitions, instructions and settings.',
  '*',
  '!agents/',
  '!agents/**',
  '!instructions.md',
  '!settings.json',
  '',
].join('\n');

/** What earlier versions wrote in `.team/.gitignore`: replaced by TEAM_GITIGNORE (nobody else writes exactly this). */
const OLD_TEAM_GITIGNORE = TASKS_GITIGNORE;

/**
 * Writes `<dir>/.gitignore` unless one is there. One the user wrote is left as it is; the one
 * an earlier version wrote for `.team` (exactly `OLD_TEAM_GITIGNORE`) is brought up to date.
 * `wx` never follows a link; the update is a rename, which replaces one.
 */
export async function keepOutOfGit(dir: string, content: string): Promise<void> {
  const file = join(dir, '.gitignore');
  const created = await writeFileExclusive(file, content);
  if (created || content !== TEAM_GITIGNORE) return;
  const current = await readFile(file, 'utf8').catch(() => undefined);
  if (current === OLD_TEAM_GITIGNORE) await writeFileAtomic(file, content);
}

async function writeFileExclusive(file: string, content: string): Promise<boolean> {
  return writeFile(file, content, { flag: 'wx' }).then(() => true, (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw err;
    return false;
  });
}
