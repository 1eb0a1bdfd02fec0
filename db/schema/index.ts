// The database schema, one file per domain. drizzle-kit reads this file to generate migrations.
export * from './datasets';
export * from './runs';
export * from './llm';
export * from './training';
export * from './ops';
export * from './reports';
export * from './descriptions';
export * from './judgeCards';
export * from './blobs';
export * from './criticCards';
