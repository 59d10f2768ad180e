// Participant names: the one check every path built from a name goes through (the pattern
// itself is in shared/names.ts, which the schemas and the webview use too).
import { NAME_RE, RESERVED } from '../../shared/names';

export { NAME_RE, RESERVED };

export class NameError extends Error {}

/** A valid participant name (teammate, `lead` or `user`). */
export function isParticipantName(name: unknown): name is string {
  return typeof name === 'string' && NAME_RE.test(name);
}

/** A valid name that is not reserved (`lead`, `user`, `team`: the sender of the team's own notices). */
export function isTeammateName(name: unknown): name is string {
  return isParticipantName(name) && !(RESERVED as readonly string[]).includes(name);
}

/** Throws NameError unless `name` may be a teammate (valid and not reserved). */
export function assertTeammateName(name: unknown): string {
  if (!isParticipantName(name)) {
    throw new NameError(`invalid name ${JSON.stringify(name)}: must match ${NAME_RE}`);
  }
  if ((RESERVED as readonly string[]).includes(name)) {
    throw new NameError(`"${name}" is reserved and cannot be a teammate`);
  }
  return name;
}

/** Throws NameError unless `name` is a valid participant (teammate, lead or user). */
export function assertParticipantName(name: unknown): string {
  if (!isParticipantName(name)) {
    throw new NameError(`invalid name ${JSON.stringify(name)}: must match ${NAME_RE}`);
  }
  return name;
}
