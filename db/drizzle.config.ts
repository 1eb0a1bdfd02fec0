// drizzle-kit: `npm run db:generate` writes a new SQL migration into db/migrations from db/schema.
// Commands that connect (push, studio, introspect) use the project's database, password included.
import { defineConfig } from 'drizzle-kit';
import { databaseUrl } from '../config/services';

export default defineConfig({
  dialect: 'postgresql',
  schema: './db/schema/index.ts',
  out: './db/migrations',
  dbCredentials: {
    // A getter: `generate` needs no database, so it must not create the local password on load.
    get url() {
      return databaseUrl();
    },
  },
});
