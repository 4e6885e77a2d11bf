// A job on the server (a LibriVox book being added, an episode's download, an article's import)
// followed until it is done: the one place that asks for a job's progress.

import { api } from "./api.js";

const POLL = 1000;

/** Follows a job until it is done or failed, calling `paint(job)` on each answer. */
export function followJob(id, paint, isClosed) {
  const step = async () => {
    if (isClosed()) return;
    let job;
    try {
      job = await api(`/api/jobs/${id}`);
    } catch (error) {
      if (!isClosed()) setTimeout(step, POLL * 3);
      return;
    }
    if (isClosed()) return;
    paint(job);
    if (job.status === "queued" || job.status === "running") setTimeout(step, POLL);
  };
  step();
}
