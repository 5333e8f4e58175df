import { LoginForm } from "./login-form";

export const dynamic = "force-dynamic";

export default async function LoginPage(props: { searchParams: Promise<{ next?: string }> }) {
  const { next } = await props.searchParams;
  const target = next && next.startsWith("/admin") && !next.startsWith("//") ? next : "/admin";
  return (
    <section className="card narrow">
      <h1>Instructor sign-in</h1>
      <p className="muted">The admin password is printed by <code>npm run demo</code> (or set ADMIN_PASSWORD).</p>
      <LoginForm next={target} />
    </section>
  );
}
