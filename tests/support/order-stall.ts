import pg from "pg";

/** A Postgres session holding the orders table against inserts (reads go on), as a long migration or a stuck transaction would. */
export interface OrdersStall {
  /**
   * Order inserts waiting on the held table now, from pg_stat_activity: the stall is really in force.
   * `batches`: only the statements carrying many orders at once (the order store's `unnest` batch).
   */
  insertsWaiting(only?: "batches"): Promise<number>;
  /** Cancels the order inserts waiting on the held table (as an operator's pg_cancel_backend would); how many. */
  cancelWaitingInserts(): Promise<number>;
  /** Lets the inserts go (commits the holding transaction) and closes the session. */
  release(): Promise<void>;
}

export async function stallOrders(): Promise<OrdersStall> {
  const session = new pg.Client({ connectionString: process.env.DATABASE_URL });
  // A session of its own reads pg_stat_activity: inside the holding transaction the view is one
  // snapshot, taken at its first read, and would never see the inserts that wait after it.
  const watcher = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await Promise.all([session.connect(), watcher.connect()]);
  let held = false;
  try {
    await session.query("BEGIN");
    await session.query("LOCK TABLE orders IN SHARE ROW EXCLUSIVE MODE");
    held = true;
  } finally {
    if (!held) await Promise.all([session.end(), watcher.end()]);
  }
  let released = false;
  const WAITING_INSERTS = `FROM pg_stat_activity
    WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO orders%' AND datname = current_database()`;
  return {
    async insertsWaiting(only?: "batches") {
      const { rows } = await watcher.query<{ n: number }>(`SELECT count(*)::int AS n ${WAITING_INSERTS}${only === "batches" ? " AND position('unnest(' in query) > 0" : ""}`);
      return rows[0]!.n;
    },
    async cancelWaitingInserts() {
      const { rows } = await watcher.query<{ cancelled: boolean }>(`SELECT pg_cancel_backend(pid) AS cancelled ${WAITING_INSERTS}`);
      return rows.filter((row) => row.cancelled).length;
    },
    async release() {
      if (released) return;
      released = true;
      await session.query("COMMIT").catch(() => {});
      await Promise.all([session.end(), watcher.end()]);
    },
  };
}
