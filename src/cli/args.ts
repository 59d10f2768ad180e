// Argument parsing on node:util parseArgs. A command line is parsed twice: a lenient scan
// (knowing every option, so values are not mistaken for words) finds the command words,
// then a strict parse with the global options plus that command's own rejects the rest.
import { parseArgs } from 'node:util';

/** Bad arguments: printed with the command's usage; exit code 2. */
export class UsageError extends Error {
  constructor(message: string, readonly usage?: string) {
    super(message);
  }
}

/** A failure of the operation itself (unknown task, recipient shut down…): exit code 1. */
export class CliError extends Error {}

export type OptionSpec = Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>;
export type OptionValues = Record<string, string | boolean | string[] | undefined>;

export const GLOBAL_OPTIONS: OptionSpec = {
  root: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' },
};

export interface ParsedArgs {
  words: string[];
  values: OptionValues;
}

/** Strict parse: unknown options and missing option values are usage errors. */
export function parseStrict(argv: string[], options: OptionSpec, usage?: string): ParsedArgs {
  try {
    const r = parseArgs({ args: argv, options, strict: true, allowPositionals: true });
    return { words: r.positionals, values: r.values as OptionValues };
  } catch (err) {
    // parseArgs explains itself well ("Unknown option '--x'…"); keep its words, on one line.
    throw new UsageError((err as Error).message.replace(/\s*\n\s*/g, ' '), usage);
  }
}

/** Lenient scan for the positional words (the command), never throwing. */
export function scanWords(argv: string[], options: OptionSpec): string[] {
  try {
    return parseArgs({ args: argv, options, strict: false, allowPositionals: true }).positionals;
  } catch {
    return argv.filter((a) => !a.startsWith('-'));
  }
}

/** Every value of a repeatable option (`--allow a --allow b`). */
export function stringList(values: OptionValues, name: string): string[] {
  const v = values[name];
  return Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
}

export function stringOpt(values: OptionValues, name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

/** A positive integer (task ids), or a usage error naming what was expected. */
export function positiveInt(raw: string, what: string, usage?: string): number {
  const s = raw.trim().replace(/^#/, '');
  if (!/^\d+$/.test(s) || Number(s) <= 0 || !Number.isSafeInteger(Number(s))) {
    throw new UsageError(`${what} must be a positive integer, got ${JSON.stringify(raw)}`, usage);
  }
  return Number(s);
}

/** "1,2, #3" → [1, 2, 3]. */
export function intList(raw: string, what: string, usage?: string): number[] {
  const parts = raw.split(',').map((p) => p.trim()).filter(Boolean);
  if (!parts.length) throw new UsageError(`${what} needs at least one id`, usage);
  return parts.map((p) => positiveInt(p, what, usage));
}

/** One of a fixed set of words (policies). */
export function oneOf<T extends string>(raw: string, allowed: readonly T[], what: string): T {
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new UsageError(`${what} must be one of ${allowed.join(', ')}, got ${JSON.stringify(raw)}`);
  }
  return raw as T;
}

/** A non-negative number (seconds, budgets). */
export function nonNegative(raw: string, what: string, integer = false): number {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n < 0 || (integer && !Number.isInteger(n))) {
    throw new UsageError(`${what} must be a non-negative ${integer ? 'integer' : 'number'}, got ${JSON.stringify(raw)}`);
  }
  return n;
}
