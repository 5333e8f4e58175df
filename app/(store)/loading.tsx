import { getTranslations } from "next-intl/server";
import { getRoom } from "../room-locale";

/**
 * Shown while the store page reads the product, the stock and the strategy. It lives in the
 * (store) route group, not at app/loading.tsx: a root loading.tsx would wrap every route, the
 * admin pages included, and turn their sign-in redirect into a streamed 200.
 */
export default async function StoreLoading() {
  // The layout has read the room already: this is the same read, cached for the request.
  const t = await getTranslations({ locale: (await getRoom()).locale, namespace: "store" });
  return (
    <section className="product" aria-busy="true" data-testid="store-loading">
      <div className="skeleton image" />
      <div>
        <p className="muted" role="status">{t("loading")}</p>
        <div className="skeleton line wide" />
        <div className="skeleton line" />
        <div className="skeleton button" />
      </div>
    </section>
  );
}
