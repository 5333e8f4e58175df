import { getTranslations } from "next-intl/server";
import { LoginForm } from "./login-form";

export const dynamic = "force-dynamic";

export default async function LoginPage(props: { searchParams: Promise<{ next?: string }> }) {
  const { next } = await props.searchParams;
  const target = next && next.startsWith("/admin") && !next.startsWith("//") ? next : "/admin";
  const t = await getTranslations("login");
  return (
    <section className="card narrow">
      <h1>{t("title")}</h1>
      <p className="muted">{t.rich("hint", { code: (chunks) => <code>{chunks}</code> })}</p>
      <LoginForm next={target} />
    </section>
  );
}
