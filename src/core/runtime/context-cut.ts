// Cutting text to fit a model's context without losing any one piece entirely: a budget is
// shared out so that every piece keeps its head and tail (water-filling: short pieces stay
// whole, long ones are cut to the same size), and every cut says how much was left out.

/** `text` cut to at most about `max` characters: head and tail kept, `note` in between. */
export function cutMiddle(text: string, max: number, note: (cut: number) => string): string {
  if (text.length <= max) return text;
  const keep = Math.max(0, max);
  const head = Math.ceil(keep * 0.75);
  const tail = keep - head;
  const cut = text.length - keep;
  return `${text.slice(0, head)}\n${note(cut)}\n${tail > 0 ? text.slice(-tail) : ''}`;
}

/**
 * The largest per-piece size such that all pieces cut to it fit in `budget` characters (but
 * never below `floor`: with thousands of pieces each still shows its start).
 */
export function fairCap(lengths: readonly number[], budget: number, floor = 200): number {
  const total = lengths.reduce((a, b) => a + b, 0);
  if (total <= budget) return Infinity;
  const sorted = [...lengths].sort((a, b) => a - b);
  let left = budget;
  for (let i = 0; i < sorted.length; i++) {
    const share = left / (sorted.length - i);
    if (sorted[i]! > share) return Math.max(floor, Math.floor(share));
    left -= sorted[i]!;
  }
  return Math.max(floor, Math.floor(left));
}

/** Every piece cut to a fair share of `budget` (see fairCap), each cut noted. */
export function fitAll(texts: readonly string[], budget: number, note: (cut: number) => string): string[] {
  const cap = fairCap(texts.map((t) => t.length), budget);
  return texts.map((t) => (t.length > cap ? cutMiddle(t, cap, note) : t));
}

/** How many characters of one message (mail, a tool result) an agent is given at most. */
export function maxMessageChars(compactAtTokens: number): number {
  // A quarter of the context the compaction threshold allows (about 4 characters a token).
  return Math.max(4000, compactAtTokens);
}

/** The note in a message cut to fit: where its full text stays. */
export function mailCutNote(agent: string): (cut: number) => string {
  return (cut) => `[… ${cut} characters cut to fit your context; the full message stays in .team/inbox/${agent}.jsonl …]`;
}
