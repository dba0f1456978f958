import { newId, userContextHeaders } from "@svc/common";
import type { Database } from "@svc/db";
import { type NewUser, type User, users } from "@svc/db/schema";
import { testDatabase } from "./app";
import { HMAC_SECRET, INTERNAL_API_KEY } from "./keys";

/**
 * A user row on the file's database (or `db`): a new `usr_` id, `<id>@example.com`, plan `solo` (the
 * column's default), a referral code from the id; `fields` sets any column.
 */
export async function createUser(
  fields: Partial<NewUser> = {},
  db: Database = testDatabase().db,
): Promise<User> {
  const id = fields.id ?? newId("usr");
  const [user] = await db
    .insert(users)
    .values({ id, email: `${id}@example.com`, name: "Test user", referralCode: id.slice(4, 16), ...fields })
    .returning();
  return user;
}

/** Who `headersFor` signs for: any user row, or just its id and email. */
export interface TestUser {
  id: string;
  email: string;
}

/**
 * The headers the web sends the backend: the internal key alone (`"internal"`), or with the user context of
 * `user` signed with HMAC_SECRET (role `user` unless `role` says otherwise).
 */
export function headersFor(who: "internal" | TestUser, role = "user"): Record<string, string> {
  const authorization = { authorization: `Bearer ${INTERNAL_API_KEY}` };
  if (who === "internal") return authorization;
  return {
    ...authorization,
    ...userContextHeaders(HMAC_SECRET, { userId: who.id, userEmail: who.email, userRole: role }),
  };
}
