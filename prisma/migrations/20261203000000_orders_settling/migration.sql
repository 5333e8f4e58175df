-- Orders the reconciler could not settle yet: it gave their unit back and never learned whether it
-- went (Redis node 1 did not answer), so it committed the row as 'settling' instead of holding its
-- transaction open until Redis answered (lib/purchase/reconciler.ts). Every pass looks for such
-- rows; they are few, and this index holds only them, so a pass that finds none reads nothing and
-- an order insert ('sold') never writes to it. A partial index: prisma/schema.prisma cannot say it.
CREATE INDEX "orders_settling_idx" ON "orders"("id") WHERE "status" = 'settling';
