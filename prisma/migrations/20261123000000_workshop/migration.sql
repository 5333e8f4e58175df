-- Workshop mode: a sale may allow one order per buyer (as flash sales do). The rule is enforced
-- under the sale's lock, and its invariant (no buyer with two orders) is counted from the orders.
ALTER TABLE "sales" ADD COLUMN "one_per_buyer" BOOLEAN NOT NULL DEFAULT false;
CREATE INDEX "orders_sale_id_buyer_idx" ON "orders"("sale_id", "buyer");
