"use client";

import { useState, type FormEvent } from "react";
import type { Me } from "./me";

/** A student types a display name once; the store keeps their buyer id in a cookie. */
export function JoinForm(props: { onJoined: (me: Me) => void }) {
  const [name, setName] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function join(event: FormEvent) {
    event.preventDefault();
    setPending(true);
    setError(null);
    try {
      const response = await fetch("/api/workshop/join", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name }),
      });
      const body = await response.json().catch(() => ({}));
      if (response.status === 201) props.onJoined({ buyer: body.buyer, name: body.name });
      else setError(body.fieldErrors?.name?.[0] ?? body.message ?? `The store answered ${response.status}.`);
    } catch {
      setError("The store could not be reached.");
    } finally {
      setPending(false);
    }
  }

  return (
    <form className="join-form" onSubmit={join}>
      <label htmlFor="display-name">Your name for the scoreboard</label>
      <div className="join-row">
        <input id="display-name" name="name" value={name} onChange={(e) => setName(e.target.value)} maxLength={24} autoComplete="nickname" required />
        <button type="submit" disabled={pending}>Join</button>
      </div>
      {error && <p className="field-error" role="alert">{error}</p>}
    </form>
  );
}
