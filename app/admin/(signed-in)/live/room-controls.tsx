"use client";

import { useTranslations } from "next-intl";
import { useEffect, useId, useState, type FormEvent } from "react";
import type { RoomView } from "@/lib/workshop/buyers";
import { useErrorText } from "../../../use-error-text";

/**
 * Who is in the room, for the instructor: how many joined and from how many addresses, how many
 * people one address may hold (1 where each phone has its own; more behind a venue's NAT, a proxy
 * or Docker Desktop), and everyone by name and address, to rename or remove. Read again whenever
 * the projector's count of people changes (`joined`).
 */
export function RoomControls({ joined }: { joined: number }) {
  const t = useTranslations("room");
  const tc = useTranslations("common");
  const errorText = useErrorText();
  const [room, setRoom] = useState<RoomView | null>(null);
  const [open, setOpen] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const listId = useId();

  // Bumped after each change the instructor makes: the list is read again.
  const [version, setVersion] = useState(0);
  useEffect(() => {
    let current = true;
    fetch("/api/admin/room", { cache: "no-store" })
      .then(async (response) => {
        if (current && response.ok) setRoom(((await response.json()) as { room: RoomView }).room);
      })
      .catch(() => {});
    return () => {
      current = false;
    };
  }, [joined, version]);

  async function send(method: string, url: string, body: unknown, done: string) {
    setMessage(null);
    try {
      const response = await fetch(url, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      const answer = await response.json().catch(() => ({}));
      setMessage(response.ok ? done : errorText(answer, tc("refused", { status: response.status })));
      setVersion((n) => n + 1);
    } catch {
      setMessage(tc("serverUnreachable"));
    }
  }

  function setLimit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const peoplePerAddress = Number(new FormData(event.currentTarget).get("peoplePerAddress"));
    void send("PUT", "/api/admin/room", { peoplePerAddress }, t("limitSet", { count: peoplePerAddress }));
  }

  const fullest = room?.addresses[0];
  return (
    <div className="room-controls" data-testid="room-controls">
      <p className="joined-line">
        {t.rich("joined", { count: joined, addresses: room?.addresses.length ?? 0, joined: (chunks) => <span data-testid="joined">{chunks}</span> })}
      </p>
      {fullest && fullest.people > 1 && (
        <p className="muted" data-testid="room-fullest">{t("fullest", { address: fullest.address, count: fullest.people })}</p>
      )}
      <form className="room-limit" onSubmit={setLimit}>
        <label>
          {t("perAddress")}{" "}
          <input name="peoplePerAddress" type="number" min={1} max={1000} key={room?.peoplePerAddress} defaultValue={room?.peoplePerAddress ?? 1} data-testid="room-per-address" />
        </label>
        <button type="submit">{t("setLimit")}</button>
        <button type="button" aria-expanded={open} aria-controls={listId} onClick={() => setOpen(!open)}>{open ? t("hidePeople") : t("showPeople")}</button>
      </form>
      {room && room.peoplePerAddress > room.sizedFor && (
        <p className="bad-text" data-testid="room-nginx-sized">{t("nginxSized", { sizedFor: room.sizedFor, count: room.peoplePerAddress })}</p>
      )}
      {message && <p className="muted" role="status">{message}</p>}
      <ul id={listId} className="room-people" hidden={!open}>
        {room?.people.map((person) => (
          <li key={person.buyer} data-testid="room-person">
            <span className="person-name">{person.name}</span> <span className="muted">{person.address ?? t("thisMachine")}</span>{" "}
            <button type="button" onClick={() => {
              const name = window.prompt(t("renamePrompt", { name: person.name }), person.name);
              if (name) void send("PATCH", `/api/admin/room/people/${person.buyer}`, { name }, t("renamed", { name }));
            }}>{t("rename")}</button>
            <button type="button" onClick={() => void send("DELETE", `/api/admin/room/people/${person.buyer}`, undefined, t("removed", { name: person.name }))}
              aria-label={t("removeLabel", { name: person.name })}>{t("remove")}</button>
          </li>
        ))}
      </ul>
    </div>
  );
}
