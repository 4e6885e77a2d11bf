// Sending a file to the server: the one upload the app has (Listen's books and music, an article's
// file, a song's track). fetch cannot report an upload's progress; XMLHttpRequest can.

import { ApiError, errorFromAnswer } from "./api.js";

/** Sends a file as a request body to `path` with its name, telling `progress(fraction)`; resolves with the JSON answer. */
export function sendFile(path, file, progress) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open("POST", path);
    request.setRequestHeader("Accept", "application/json");
    request.setRequestHeader("X-File-Name", encodeURIComponent(file.name));
    request.setRequestHeader("Content-Type", file.type || "application/octet-stream");
    request.upload.addEventListener("progress", (event) => { if (event.lengthComputable) progress(event.loaded / event.total); });
    request.addEventListener("load", () => {
      let data = null;
      try { data = JSON.parse(request.responseText); } catch { data = null; }
      if (request.status >= 200 && request.status < 300) return resolve(data);
      reject(errorFromAnswer(request.status, data));
    });
    request.addEventListener("error", () => reject(new ApiError(0, "offline", "The upload stopped: Reverie's server cannot be reached. Try again.")));
    request.send(file);
  });
}
