// Reading .team/config.json member by member: a roster written by hand or by the learn-claude-code tutorial
// may hold entries we cannot run (a name such as "Alice", a reserved `lead`/`user`, a
// missing field). Those are reported and kept aside for the next rewrite; the valid
// members are the team (docs/file-formats.md, "Roster").
import { z } from 'zod';
import { Member, TeamConfig } from '../../shared/schemas';
import { isTeammateName } from '../util/names';
import { reportProblem } from '../util/problems';

const RosterShape = z.looseObject({ team_name: z.string(), members: z.array(z.unknown()) });

export type RosterParse =
  | { ok: true; config: TeamConfig; invalid: unknown[] }
  | { ok: false; error: string };

export function parseRoster(text: string, path: string): RosterParse {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `not valid JSON: ${(err as Error).message}` };
  }
  const shape = RosterShape.safeParse(raw);
  if (!shape.success) {
    return { ok: false, error: `invalid: ${shape.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}` };
  }
  const members: Member[] = [];
  const invalid: unknown[] = [];
  const seen = new Set<string>();
  shape.data.members.forEach((entry, i) => {
    const m = Member.safeParse(entry);
    const name = (entry as { name?: unknown } | null)?.name;
    let why: string | null = null;
    if (!m.success) why = m.error.issues.slice(0, 2).map((x) => `${x.path.join('.') || '(entry)'}: ${x.message}`).join('; ');
    else if (!isTeammateName(m.data.name)) why = `"${m.data.name}" is reserved and never runs as a teammate`;
    else if (seen.has(m.data.name)) why = `"${m.data.name}" is listed twice; the first entry counts`;
    if (why !== null || !m.success) {
      reportProblem({ path, message: `member ${i} (${JSON.stringify(name ?? null)}) skipped: ${why}; kept in the file unchanged` });
      invalid.push(entry);
      return;
    }
    seen.add(m.data.name);
    members.push(m.data);
  });
  return { ok: true, config: TeamConfig.parse({ ...shape.data, members }), invalid };
}
