"use client";

import { useState, type FormEvent } from "react";

export function LoginForm({ next }: { next: string }) {
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setPending(true);
    setError(null);
    const password = String(new FormData(event.currentTarget).get("password") ?? "");
    try {
      const response = await fetch("/api/admin/session", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ password }),
      });
      if (response.ok) {
        window.location.assign(next);
        return;
      }
      const body = await response.json().catch(() => ({}));
      setError(body.code === "invalid_password" ? "Wrong password." : (body.message ?? `Sign-in failed (${response.status}).`));
    } catch {
      setError("The server could not be reached.");
    } finally {
      setPending(false);
    }
  }

  return (
    <form onSubmit={submit} className="form">
      <label>
        Password
        <input name="password" type="password" autoComplete="current-password" required autoFocus />
      </label>
      <button type="submit" className="primary" disabled={pending}>{pending ? "Signing in…" : "Sign in"}</button>
      {error && <p className="notice error" role="alert">{error}</p>}
    </form>
  );
}
