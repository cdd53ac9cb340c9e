/** The bus's wire format, which both ends write and read. */

export const REQUEST_ID_HEADER = "x-request-id";
/** When the caller stops waiting (epoch ms): work still queued at that time is not started. */
export const DEADLINE_HEADER = "x-deadline";

/**
 * A reply on the wire: `{"ok":true,"data":<the reply>}` or `{"ok":false,"error":...}`.
 * A success is written with exactly this prefix, so a caller that passes the
 * reply on (the gateway, POST /register's parts) cuts the data's JSON text out
 * instead of parsing it and serializing it again (docs/adr/0028-replies-as-json-bytes.md).
 */
export const OK_PREFIX = '{"ok":true,"data":';
export const OK_PREFIX_BYTES = Buffer.from(OK_PREFIX);

/** What an instance sends while it still works on a keepAlive request (an empty message: no reply starts so). */
export const KEEPALIVE = new Uint8Array(0);
/** A caller gives the instance up after this many of its keep-alive intervals without hearing anything. */
export const KEEPALIVE_SILENCE_INTERVALS = 3;

export const encoder = new TextEncoder();
export const encode = (v: unknown): Uint8Array => encoder.encode(JSON.stringify(v));
