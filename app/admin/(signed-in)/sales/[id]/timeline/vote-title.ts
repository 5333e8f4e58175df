import type { useTranslations } from "next-intl";
import type { PlacedVote } from "@/lib/timeline/layout";

type Translate = ReturnType<typeof useTranslations<"votes">>;

/** A Redlock vote mark's tooltip in the reader's language: the node's vote, the buyer, and what the acquire came to. */
export function voteTitle(node: string, placed: Pick<PlacedVote, "mark" | "more">, v: Translate): string {
  const { mark, more } = placed;
  const who = mark.buyer ? v("whoBuyer", { buyer: mark.buyer, holder: mark.holder }) : v("whoHolder", { holder: mark.holder });
  // Milliseconds as the store gave them (no digit grouping: "4900 ms", "-5 ms").
  const validity = mark.validityMs === undefined ? v("validityUnknown") : v("validityLeft", { ms: String(mark.validityMs) });
  const outcome = mark.won
    ? v("won", { validity })
    : mark.granted > mark.asked / 2
      ? v("quorumLate", { ms: String(mark.validityMs) })
      : v("noQuorum", { validity });
  return [
    v("title", { node, vote: v(mark.vote), who }),
    v("granted_of", { granted: mark.granted, asked: mark.asked, outcome }),
    more ? v("more", { count: more, vote: v(mark.vote) }) : "",
  ].filter(Boolean).join("\n");
}
