/** Shown while the store page fetches the product and the live stock. */
export default function StoreLoading() {
  return (
    <section className="card" aria-busy="true">
      <p className="muted">Loading the store…</p>
    </section>
  );
}
