// Moved to src/shared/schemas/merge-queue.ts (every team file's schema in one place,
// src/shared/schemas/index.ts); kept so its importers need not change.
export * from './schemas/merge-queue';
