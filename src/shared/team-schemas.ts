// Moved to src/shared/schemas/ (every team file's schema in one place: schemas/index.ts);
// kept so its many importers need not change.
export * from './schemas/roster';
export * from './schemas/processes';
export * from './schemas/messages';
export * from './schemas/requests';
export * from './schemas/tasks';
