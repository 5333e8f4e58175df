import { z } from "zod";

/** `POST /api/buy`: who buys, and optionally which product (only `goods:001` is on sale). */
export const buyCreateSchema = z
  .object({
    buyer: z.string().trim().min(1).max(64).regex(/^[\w.@:-]+$/, "letters, digits and . _ @ : - only"),
    sku: z.string().min(1).max(64).optional(),
  })
  .strict();

export type BuyCreate = z.infer<typeof buyCreateSchema>;
