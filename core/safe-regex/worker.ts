import os from 'node:os';
import { parentPort } from 'node:worker_threads';
import { runSearchJob, type SearchJob, type SearchJobResult } from './search.js';

/**
 * A regex worker thread of the pool (core/safe-regex/pool.ts): runs one case's searches at a
 * time, off the event loop the API and the rest of the process share, and answers with the
 * outcome or the error. Loaded as TypeScript through tsx from sources, as JavaScript from dist/.
 */

export interface JobMessage {
  id: number;
  job: SearchJob;
}

export type ReplyMessage = { id: number; result: SearchJobResult } | { id: number; error: string };

if (!parentPort) throw new Error('core/safe-regex/worker.ts runs as a worker thread of the regex pool');

// Searching yields the CPU to everything else: on Linux a thread's nice value is its own
// (setpriority of "this process" applies to the calling thread), so this thread runs at the
// lowest priority and the event loop, the stores and the engine go first when the cores are
// busy. Elsewhere it would lower the whole process, so it is left alone.
if (process.platform === 'linux') {
  try {
    os.setPriority(os.constants.priority.PRIORITY_LOW);
  } catch {
    // Not allowed here (a sandbox): searches run at the process's priority.
  }
}

const port = parentPort;
port.on('message', ({ id, job }: JobMessage) => {
  let reply: ReplyMessage;
  try {
    reply = { id, result: runSearchJob(job) };
  } catch (err) {
    reply = { id, error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(reply);
});
