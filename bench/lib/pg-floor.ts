/**
 * Peer of session billing in the gateway bench: the floor of a billed proxy that keeps an exact, durable
 * balance in PostgreSQL. Plain node:http; once a call's body has arrived whole (a call the client gave up on
 * before is not charged), it debits one row in one statement (`UPDATE … SET balance = balance - $1 WHERE
 * balance >= $1`, prepared, on a pool of 10 like the web's), then sends the call to the upstream over a
 * keep-alive agent and pipes the answer back. Nothing else: no validation, no receipts, no metrics, no refund
 * path (the bench's upstream never fails).
 */
import http from "node:http";
import pg from "pg";
import { forward } from "./forward";

/** The floor's own table, created in the bench's database. Balances in micro-USD. */
export const FLOOR_TABLE = "bench_floor_balances";

/** Creates the floor's table and one account holding `micros`. */
export async function seedFloorAccount(db: pg.Client, account: string, micros: bigint): Promise<void> {
  await db.query(
    `create table if not exists ${FLOOR_TABLE} (id text primary key, balance bigint not null check (balance >= 0))`,
  );
  await db.query(`insert into ${FLOOR_TABLE} (id, balance) values ($1, $2)`, [account, micros.toString()]);
}

/** The account's balance in micro-USD. */
export async function floorBalance(db: pg.Client, account: string): Promise<bigint> {
  const { rows } = await db.query<{ balance: string }>(
    `select balance::text as balance from ${FLOOR_TABLE} where id = $1`,
    [account],
  );
  return BigInt(rows[0].balance);
}

export interface PgFloorOptions {
  databaseUrl: string;
  upstreamPort: number;
  /** The upstream path every paid call goes to. */
  upstreamPath: string;
  priceMicros: bigint;
}

/** The floor server: `X-Account-Id` names the row to debit; 402 when it does not cover the price. */
export function pgFloorServer(options: PgFloorOptions): http.Server {
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10 });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const price = options.priceMicros.toString();
  const debit = {
    name: "bench-floor-debit",
    text: `update ${FLOOR_TABLE} set balance = balance - $1 where id = $2 and balance >= $1 returning balance`,
  };
  return http.createServer((req, res) => {
    const account = req.headers["x-account-id"];
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      pool.query({ ...debit, values: [price, account] }).then(
        (debited) => {
          if (debited.rowCount === 0) {
            res.writeHead(402, { "content-type": "application/json" });
            return void res.end('{"error":"insufficient_balance"}');
          }
          const upstream = { port: options.upstreamPort, path: options.upstreamPath, agent };
          forward(req, res, upstream, { "x-balance": debited.rows[0].balance }, Buffer.concat(chunks));
        },
        () => {
          res.writeHead(500, { "content-type": "application/json" });
          res.end('{"error":"internal"}');
        },
      );
    });
  });
}
