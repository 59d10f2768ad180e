// One file into a running container (a container teammate's write_file and edit_file,
// container-fs.ts): its bytes through the engine's archive API into /tmp, then copied over the
// target by a command there — `cat >` keeps an existing file's mode, and a folder in the way is
// refused rather than replaced.
import { randomBytes } from 'node:crypto';
import type Docker from 'dockerode';
import { WorkspaceFsError } from '../exec/workspace-fs-error';
import type { CommandLoop } from './command-loop';
import { tarOneFile } from './tar';

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export async function putFile(container: Docker.Container, loop: CommandLoop, abs: string, data: Buffer): Promise<{ created: boolean }> {
  const name = `.agent-teams-put-${randomBytes(6).toString('hex')}`;
  await container.putArchive(tarOneFile(name, data), { path: '/tmp' });
  const r = await loop.run([
    `t=${quote(abs)}; s=/tmp/${name}`,
    'if [ -e "$t" ] && [ ! -f "$t" ]; then rm -f -- "$s"; echo D; exit 0; fi',
    'if [ -e "$t" ]; then e=E; else e=N; fi',
    'mkdir -p -- "$(dirname -- "$t")" && cat -- "$s" >"$t"; c=$?; rm -f -- "$s"; [ $c -eq 0 ] && echo $e',
  ].join('; '), { cwd: '/', timeoutMs: 60_000, maxOutputBytes: 4096 });
  const said = r.output.trim().split('\n').pop();
  if (said === 'D') throw new WorkspaceFsError('not_a_file', `${abs} is a directory`);
  if (r.error || r.exitCode !== 0 || (said !== 'E' && said !== 'N')) {
    throw new WorkspaceFsError('io', `writing ${abs} in the container failed: ${r.error ?? r.output.trim().slice(-300)}`);
  }
  return { created: said === 'N' };
}
