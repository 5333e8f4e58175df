-- Unit-level accounting, crash-safe orders, fenced row lock.

-- An order carries the reservation the stock write recorded in Redis: the insert is idempotent on
-- it, and the reconciler settles a reservation whose order never arrived. `status` is 'sold', or
-- 'returned' when the reconciler gave the unit back to stock instead (a tombstone, so a late insert
-- of the same reservation cannot sell it as well).
ALTER TABLE "orders" ADD COLUMN "reservation" TEXT;
ALTER TABLE "orders" ADD COLUMN "status" TEXT NOT NULL DEFAULT 'sold';
ALTER TABLE "orders" ADD COLUMN "reconciled" BOOLEAN NOT NULL DEFAULT false;
CREATE UNIQUE INDEX "orders_reservation_key" ON "orders"("reservation");

-- A run's accounting, counted per unit from the durable record (see lib/sale/accounting.ts). The
-- old lost_stock column was a residual clamped at zero, and it is replaced, not renamed.
ALTER TABLE "runs" DROP COLUMN "lost_stock";
ALTER TABLE "runs" ADD COLUMN "double_sold" INTEGER;
ALTER TABLE "runs" ADD COLUMN "lost_units" INTEGER;
ALTER TABLE "runs" ADD COLUMN "phantom_units" INTEGER;
ALTER TABLE "runs" ADD COLUMN "out_of_range" INTEGER;
ALTER TABLE "runs" ADD COLUMN "pending_units" INTEGER;

-- Fencing tokens of the row lock (pg-for-update), taken inside the transaction that holds the row.
CREATE SEQUENCE "lock_fence_seq";

-- The stock a sale was left with when the next sale replaced it in Redis, so its accounting can
-- still be counted afterwards.
ALTER TABLE "sales" ADD COLUMN "final_stock" INTEGER;
