/**
 * Shown while a signed-in admin page reads its data (runs, sale figures, faults, lab results).
 * It sits below this group's layout.tsx, which has already turned strangers away with a 307.
 */
export default function AdminLoading() {
  return (
    <div className="dashboard" aria-busy="true" data-testid="admin-loading">
      <p className="muted" role="status">Loading the admin page…</p>
      <div className="skeleton card" />
      <div className="skeleton card" />
      <div className="skeleton card" />
    </div>
  );
}
