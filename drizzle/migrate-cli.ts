/** `npm run db:migrate`: applies migrations to DATABASE_URL. */
import { migrateDatabase } from "./migrate";

const url = process.env.DATABASE_URL;
if (!url) {
  console.error("db:migrate: DATABASE_URL is not set");
  process.exit(1);
}
const applied = await migrateDatabase(url);
console.log(`db:migrate: ${applied} migration(s) applied`);
