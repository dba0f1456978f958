/**
 * Databases: a client running SQL (`-c`, `-e`, arguments, here-document or piped input) that drops,
 * truncates or deletes rows is destructive (database drop / truncate / delete-from), as are dropdb, Redis
 * FLUSHALL/FLUSHDB and MongoDB drops; any other query is dangerous (database query).
 */
import { isVersionQuery, register, words } from "../registry";
import { type Classification, dangerous, destructive, shown } from "../types";

const SQL_DROP =
  /\bdrop\s+(?:temporary\s+|materialized\s+|foreign\s+)?(?:database|schema|table|keyspace|collection|view|sequence|owned|user|role|column|index|tablespace)\b/i;
const SQL_TRUNCATE = /\btruncate\b/i;
const SQL_DELETE = /\bdelete\s+from\b/i;
const MONGO_DROP = /\.\s*(?:dropdatabase|drop|dropindex|dropindexes)\s*\(/i;
const MONGO_DELETE = /\.\s*(?:deletemany|deleteone|remove|findoneanddelete|findanddelete)\s*\(/i;
const REDIS_FLUSH = /\bflush(?:all|db)\b/i;
const CASSANDRA_DROP = /\bdrop\s+keyspace\b/i;

/** The destructive statement in `text`, if any. */
export function destructiveQuery(text: string): Classification | null {
  if (SQL_DROP.test(text) || CASSANDRA_DROP.test(text)) {
    const match = SQL_DROP.exec(text) ?? CASSANDRA_DROP.exec(text);
    return destructive(
      "database-drop",
      `database drop: ${(match?.[0] ?? "DROP").toUpperCase().replace(WHITESPACE, " ")}`,
    );
  }
  if (SQL_TRUNCATE.test(text)) return destructive("database-truncate", "database truncate: TRUNCATE");
  if (SQL_DELETE.test(text)) return destructive("database-delete-from", "database delete-from: DELETE FROM");
  if (MONGO_DROP.test(text))
    return destructive("database-drop", `database drop: ${shown(MONGO_DROP.exec(text)?.[0] ?? "drop()")}`);
  if (MONGO_DELETE.test(text))
    return destructive(
      "database-delete-from",
      `database delete-from: ${shown(MONGO_DELETE.exec(text)?.[0] ?? "delete")}`,
    );
  if (REDIS_FLUSH.test(text))
    return destructive(
      "database-drop",
      `database drop: ${(REDIS_FLUSH.exec(text)?.[0] ?? "FLUSHALL").toUpperCase()}`,
    );
  return null;
}
const WHITESPACE = /\s+/g;

register(
  words(`
  psql pgcli mysql mariadb mycli sqlite3 sqlite litecli sqlcmd clickhouse-client clickhouse duckdb
  cockroach cqlsh mongo mongosh redis-cli valkey-cli keydb-cli influx usql sqlplus isql bq snowsql
  trino presto spark-sql beeline turso mysqlsh surreal neo4j cypher-shell memcached-tool
`),
  (inv) => {
    if (isVersionQuery(inv.args))
      return { tier: "safe", rule: "system-info", reason: `system info: ${inv.name} --version` };
    const text = inv.stdin === null ? inv.args.join(" ") : `${inv.args.join(" ")}\n${inv.stdin}`;
    return destructiveQuery(text) ?? dangerous("database-query", `database query: ${inv.name}`);
  },
);

register(["dropdb", "dropuser"], (inv) =>
  destructive("database-drop", `database drop: ${inv.name} ${shown(inv.args.join(" "))}`),
);

register(["mysqladmin", "mariadb-admin"], (inv) =>
  inv.args.some((arg) => arg.toLowerCase() === "drop")
    ? destructive("database-drop", `database drop: ${inv.name} drop`)
    : dangerous("database-query", `database query: ${inv.name}`),
);

register(["pg_restore"], (inv) =>
  inv.args.some(
    (arg) =>
      arg === "-c" ||
      arg === "--clean" ||
      (arg.startsWith("-") && !arg.startsWith("--") && arg.includes("c")),
  )
    ? destructive("database-drop", "database drop: pg_restore --clean")
    : dangerous("database-query", "database query: pg_restore"),
);

register(
  words(`
  pg_dump pg_dumpall mysqldump mongodump mongoexport mongorestore mongoimport createdb createuser
  pg_ctl pg_upgrade initdb redis-server mongod mysqld postgres
`),
  (inv) =>
    inv.name === "mongorestore" && inv.args.includes("--drop")
      ? destructive("database-drop", "database drop: mongorestore --drop")
      : dangerous("database-query", `database query: ${inv.name}`),
);

/** ORMs and migration tools: resets drop the database. */
register(["prisma"], (inv) => {
  const words = inv.args.filter((arg) => !arg.startsWith("-"));
  if ((words[0] === "migrate" && words[1] === "reset") || inv.args.includes("--force-reset")) {
    return destructive(
      "database-drop",
      `database drop: prisma ${words.slice(0, 2).join(" ")}${inv.args.includes("--force-reset") ? " --force-reset" : ""}`,
    );
  }
  if (isVersionQuery(inv.args) || words[0] === "version")
    return { tier: "safe", rule: "system-info", reason: "system info: prisma version" };
  return dangerous("database-query", `database query: prisma ${words.slice(0, 2).join(" ")}`);
});

const ORM_DESTROY = new Set(
  words("db:drop schema:drop db:reset migrate:reset migrate:fresh db:wipe migration:revert-all drop"),
);
register(
  words(`
  sequelize sequelize-cli typeorm knex artisan drizzle-kit migrate goose flyway liquibase alembic
  atlas dbmate
`),
  (inv) => {
    const task = inv.args.find(
      (arg) => ORM_DESTROY.has(arg) || arg === "clean" || arg === "dropAll" || arg === "drop-all",
    );
    const dropsData = task !== undefined && !(inv.name === "drizzle-kit" && task === "drop");
    if (dropsData) return destructive("database-drop", `database drop: ${inv.name} ${task}`);
    return dangerous(
      "database-query",
      `database query: ${inv.name} ${shown(inv.args.slice(0, 2).join(" "))}`,
    );
  },
);
