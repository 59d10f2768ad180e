// A model that repeats the same failing call (a tool it does not have, the same bad input)
// is told plainly and its phase ends after a few identical failures in a row, instead of
// spending calls until maxRounds (README.md, "What the agents are told").
export const SAME_FAILURE_LIMIT = 3;

export class RepeatGuard {
  private key = '';
  private count = 0;

  reset(): void {
    this.key = '';
    this.count = 0;
  }

  /** Notes one call's outcome; returns the words that end the phase when it failed the same way too often. */
  note(tool: string, input: unknown, isError: boolean, text: string): string | null {
    const key = isError ? `${tool}\n${JSON.stringify(input)}\n${text}` : '';
    this.count = key && key === this.key ? this.count + 1 : key ? 1 : 0;
    this.key = key;
    if (this.count < SAME_FAILURE_LIMIT) return null;
    return `\n(This exact call has now failed ${this.count} times in a row with the same error: your turn ends here. Do something different next time.)`;
  }

  get stuck(): boolean {
    return this.count >= SAME_FAILURE_LIMIT;
  }
}
