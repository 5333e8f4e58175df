import { z } from "zod";
import { LOCALES } from "../i18n/locales";
import { STRATEGY_NAMES } from "../locks/strategies";
import en from "../../messages/en.json";

/** What a person is told of a bad name, in English; the other languages translate them by zod issue code. */
const NAME = en.apiErrors.fields.name;

/**
 * A display name in workshop mode: shown on the projector to the whole room, so letters, digits,
 * spaces and a little punctuation, 1–24 characters; no markup, no control characters, no letters
 * that draw nothing, no towers of combining marks.
 */
export const displayNameSchema = z
  .string()
  .trim()
  .min(1, NAME.too_small)
  // Normalised before its length is counted: NFC can lengthen a name (U+0958 becomes two code
  // units), and 24 is what the projector has room for.
  .transform((name) => name.normalize("NFC"))
  .pipe(
    z
      .string()
      .max(24, NAME.too_big)
      .regex(/^[\p{L}\p{N}][\p{L}\p{M}\p{N} ._'-]*$/u, NAME.invalid_format)
      // Letters that draw nothing (the Hangul fillers): a name the room could not see.
      .refine((name) => !/\p{Default_Ignorable_Code_Point}/u.test(name), NAME.invalid_format)
      // Thai and Vietnamese stack two marks on a letter; more is a tower over the projector's other names.
      .refine((name) => !/\p{M}{3}/u.test(name), NAME.custom),
  );

/** `POST /api/workshop/join`: the name a student types once. */
export const joinCreateSchema = z.object({ name: displayNameSchema }).strict();
export type JoinCreate = z.infer<typeof joinCreateSchema>;

/** `POST /api/admin/drop`: a new drop of `stock` units after a countdown, under a strategy. */
export const dropCreateSchema = z
  .object({
    stock: z.number().int().min(1).max(10_000),
    countdownS: z.number().int().min(0).max(600).default(10),
    onePerBuyer: z.boolean().default(false),
    strategy: z.enum(STRATEGY_NAMES).optional(),
    workMs: z.number().int().min(0).max(60_000).optional(),
    /** The room's language while this drop is current: every phone and the projector show it. */
    locale: z.enum(LOCALES).optional(),
  })
  .strict();
export type DropCreate = z.infer<typeof dropCreateSchema>;

/** `PUT /api/admin/room`: how many people may join from one network address. */
export const roomUpdateSchema = z.object({ peoplePerAddress: z.number().int().min(1).max(1000) }).strict();
export type RoomUpdate = z.infer<typeof roomUpdateSchema>;

/** `PATCH /api/admin/room/people/:buyer`: a person's new display name. */
export const personRenameSchema = z.object({ name: displayNameSchema }).strict();
