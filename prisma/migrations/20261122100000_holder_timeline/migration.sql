-- The holder timeline of a sale, kept when its run or lab case ends (the live record is a capped
-- Redis stream, see lib/timeline). `events` is the list of events as recorded, or a sample of a big
-- run's (every holder near an anomaly plus a share of the others), which `sampled` then describes.
-- No semicolons in these comments: the migration runner splits the script on them.
CREATE TABLE "sale_timelines" (
    "sale_id" INTEGER NOT NULL,
    "events" JSONB NOT NULL,
    "recorded" INTEGER NOT NULL,
    "sampled" TEXT,
    "clock_error_ms" DOUBLE PRECISION NOT NULL,
    "kept_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sale_timelines_pkey" PRIMARY KEY ("sale_id")
);

ALTER TABLE "sale_timelines" ADD CONSTRAINT "sale_timelines_sale_id_fkey" FOREIGN KEY ("sale_id") REFERENCES "sales"("id") ON DELETE CASCADE ON UPDATE CASCADE;
