import { timestamp } from "drizzle-orm/pg-core";

// Shared column builders. Each call returns a fresh builder: a builder must never be shared by two tables.

/** A `timestamptz` column read and written as a JS `Date`. */
export const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/** `created_at timestamptz not null default now()` */
export const createdAt = () => timestamptz("created_at").notNull().defaultNow();

/** `updated_at timestamptz not null default now()`, refreshed by drizzle on every update. */
export const updatedAt = () =>
  timestamptz("updated_at")
    .notNull()
    .defaultNow()
    .$onUpdate(() => new Date());
