// Ids made on this device: a song written with sync off, a meditation record, a progress event.
// Each is a random UUID, which the server takes as the item's id or counts once.

/**
 * A random (version 4) UUID, also where crypto.randomUUID is missing: a page whose address is not
 * secure (plain http on a LAN address) has no crypto.randomUUID, but has crypto.getRandomValues.
 * https://www.rfc-editor.org/rfc/rfc9562#section-5.4
 */
export function uuid() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;  // version 4
  bytes[8] = (bytes[8] & 0x3f) | 0x80;  // variant 10
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
