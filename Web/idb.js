// IndexedDB, as the areas that keep things on the device use it (Write's drafts and songs, the
// downloads for offline): a database opened per transaction and closed after, so another tab's
// upgrade is never blocked.

/**
 * A database `name` at `version`, whose `upgrade(db)` makes its stores. Returns
 * `run(stores, mode, action)`: runs `action(byName)` in one transaction over the store names in
 * `stores` (`byName` maps each name to its store) and resolves with the result of the request it
 * returns, once the transaction is complete; rejects when it fails or is aborted (a quota refusal
 * aborts), with `refused` as the message when the browser gives no error.
 */
export function database(name, version, upgrade, refused = "The device's storage refused it.") {
  const open = () => new Promise((resolve, reject) => {
    const request = indexedDB.open(name, version);
    request.onupgradeneeded = () => upgrade(request.result);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  return async function run(stores, mode, action) {
    const db = await open();
    try {
      return await new Promise((resolve, reject) => {
        const transaction = db.transaction(stores, mode);
        const byName = Object.fromEntries(stores.map((store) => [store, transaction.objectStore(store)]));
        const request = action(byName);
        transaction.oncomplete = () => resolve(request ? request.result : undefined);
        transaction.onerror = () => reject(transaction.error);
        transaction.onabort = () => reject(transaction.error || new Error(refused));
      });
    } finally {
      db.close();
    }
  };
}
