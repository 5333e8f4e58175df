-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "products" (
    "sku" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "price_cents" INTEGER NOT NULL,
    "initial_stock" INTEGER NOT NULL,
    "image_url" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "products_pkey" PRIMARY KEY ("sku")
);

-- CreateTable
CREATE TABLE "sales" (
    "id" SERIAL NOT NULL,
    "sku" TEXT NOT NULL,
    "initial_stock" INTEGER NOT NULL,
    "strategy" TEXT NOT NULL,
    "started_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sales_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "orders" (
    "id" SERIAL NOT NULL,
    "sku" TEXT NOT NULL,
    "sale_id" INTEGER NOT NULL,
    "run_id" INTEGER,
    "strategy" TEXT NOT NULL,
    "instance" TEXT NOT NULL,
    "buyer" TEXT NOT NULL,
    "stock_seen" INTEGER NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "orders_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "lock_rows" (
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "lock_rows_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "runs" (
    "id" SERIAL NOT NULL,
    "sale_id" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'running',
    "strategy" TEXT NOT NULL,
    "scenario" TEXT,
    "knobs" JSONB NOT NULL,
    "tool" TEXT NOT NULL,
    "vus" INTEGER NOT NULL,
    "duration_ms" INTEGER,
    "total_requests" INTEGER,
    "started_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMP(3),
    "requests" INTEGER,
    "bought" INTEGER,
    "sold_out" INTEGER,
    "busy" INTEGER,
    "errors" INTEGER,
    "throughput" DOUBLE PRECISION,
    "p50_ms" DOUBLE PRECISION,
    "p95_ms" DOUBLE PRECISION,
    "p99_ms" DOUBLE PRECISION,
    "initial_stock" INTEGER NOT NULL,
    "orders" INTEGER,
    "remaining" INTEGER,
    "oversell" INTEGER,
    "lost_stock" INTEGER,
    "peak_holders" INTEGER,
    "verdict" TEXT,
    "timeline" JSONB,
    "summary" JSONB,

    CONSTRAINT "runs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "sales_sku_started_at_idx" ON "sales"("sku", "started_at");

-- CreateIndex
CREATE INDEX "orders_sale_id_idx" ON "orders"("sale_id");

-- CreateIndex
CREATE UNIQUE INDEX "runs_sale_id_key" ON "runs"("sale_id");

-- CreateIndex
CREATE INDEX "runs_started_at_idx" ON "runs"("started_at");

-- AddForeignKey
ALTER TABLE "sales" ADD CONSTRAINT "sales_sku_fkey" FOREIGN KEY ("sku") REFERENCES "products"("sku") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "orders" ADD CONSTRAINT "orders_sale_id_fkey" FOREIGN KEY ("sale_id") REFERENCES "sales"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_sale_id_fkey" FOREIGN KEY ("sale_id") REFERENCES "sales"("id") ON DELETE CASCADE ON UPDATE CASCADE;

