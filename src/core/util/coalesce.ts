// One run at a time for work that triggers faster than it finishes (file events, polls).

/**
 * Runs `fn` on each trigger; triggers during a run collapse into one re-run after it. The
 * returned promise settles when this trigger's run is over, or at once when it joined one
 * already under way. `fn`'s errors are its own to handle: a rejection is dropped here.
 */
export function coalesce(fn: () => Promise<void>): () => Promise<void> {
  let running = false;
  let again = false;
  return async (): Promise<void> => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        await fn().catch(() => undefined);
      } while (again);
    } finally {
      running = false;
    }
  };
}
