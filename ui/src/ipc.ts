// Typed IPC: `call(cmd, req)` for every command in the Rust command list
// (palimpsest_core::rpc::with_commands!), typed by the generated `Commands` map, so a misspelt
// command or a wrong request fails to type-check; `onEvent(name, cb)` the same for the events
// the app emits (rpc::with_events!, the generated `Events` map). Errors always reject with a Problem
// `{code, message}`; branch on `code`, never on the message.
import { invoke } from "@tauri-apps/api/core";
import { listen } from "@tauri-apps/api/event";
import type { Commands } from "./bindings/Commands";
import type { Events } from "./bindings/Events";
import type { Problem } from "./bindings/Problem";

export type Command = keyof Commands;
export type Req<K extends Command> = Commands[K][0];
export type Res<K extends Command> = Commands[K][1];

export function isIpcError(e: unknown): e is Problem {
  return (
    typeof e === "object" &&
    e !== null &&
    typeof (e as Problem).code === "string" &&
    typeof (e as Problem).message === "string"
  );
}

/** Any rejection as a Problem (transport failures become `internal`). */
export function toIpcError(e: unknown): Problem {
  if (isIpcError(e)) return e;
  return { code: "internal", message: e instanceof Error ? e.message : String(e) };
}

/**
 * When a probe sets `window.__palimpsestTrace` to an array (the end-to-end suite's, to say what
 * landed in a long block of the page), each answer and event is pushed to it as
 * `[name, asked ms, landed ms]` (`performance.now()`); otherwise nothing is kept.
 */
function traced(name: string, asked: number) {
  const t = (window as { __palimpsestTrace?: [string, number, number][] }).__palimpsestTrace;
  if (Array.isArray(t)) t.push([name, Math.round(asked), Math.round(performance.now())]);
}

export async function call<K extends Command>(cmd: K, req: Req<K>): Promise<Res<K>> {
  const asked = performance.now();
  try {
    return await invoke<Res<K>>(cmd, { req });
  } catch (e) {
    throw toIpcError(e);
  } finally {
    traced(cmd, asked);
  }
}

export type EventName = keyof Events;

/** Call `cb` with the payload of every `name` event the app emits; resolves to the unlisten. */
export function onEvent<K extends EventName>(name: K, cb: (payload: Events[K]) => void): Promise<() => void> {
  return listen<Events[K]>(name, (e) => {
    traced(`event:${name}`, performance.now());
    cb(e.payload);
  });
}

/**
 * An effect's cleanup for a listener being set up: it unlistens once the listener is in,
 * however late that is. Outside the app (unit tests, a plain browser) there are no events.
 */
export function whileMounted(listening: Promise<() => void>): () => void {
  let unlisten: (() => void) | undefined;
  let gone = false;
  listening.then((u) => (gone ? u() : (unlisten = u))).catch(() => undefined);
  return () => {
    gone = true;
    unlisten?.();
  };
}
