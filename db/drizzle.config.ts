// drizzle-kit: `npm run db:generate` writes a new SQL migration into db/migrations from db/schema.
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './db/schema/index.ts',
  out: './db/migrations',
});
