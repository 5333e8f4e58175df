import { z } from "zod";

/** `POST /api/admin/sale`: start a new sale, optionally with another initial stock. */
export const saleResetSchema = z.object({ initialStock: z.number().int().min(0).max(100_000).optional() }).strict();
export type SaleReset = z.infer<typeof saleResetSchema>;
