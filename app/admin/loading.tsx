/** Shown while an admin page reads the sale, the runs or the lab. */
export default function AdminLoading() {
  return (
    <section className="card" aria-busy="true">
      <p className="muted">Loading…</p>
    </section>
  );
}
