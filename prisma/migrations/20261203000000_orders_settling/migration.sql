-- Orders the reconciler could not settle yet: it gave their unit back and never learned whether it
-- went (Redis node 1 did not answer), so it committed the row with the status settling instead of
-- holding its transaction open until Redis answered (lib/purchase/reconciler.ts). Every pass looks
-- for such rows, and they are few: this index holds only them, so a pass that finds none reads
-- nothing and an order insert (status sold) never writes to it. A partial index: the Prisma schema
-- cannot say it. No semicolon or quote mark in these comments: the migration runner splits on them.
CREATE INDEX "orders_settling_idx" ON "orders"("id") WHERE "status" = 'settling';
