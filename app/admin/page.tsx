export default function AdminPage() {
  return <p className="muted">The admin dashboard is not built yet. Switch strategies with <code>npm run strategy -- --help</code>.</p>;
}
